#!/usr/bin/env bash
# Build interface packages from their definitions into a venv of the ROS 2 wheels from
# PyPI: ament_cmake and the rosidl generators (wheels too) generate and compile the C and
# Python type support against the venv's message packages and install it into the venv,
# so rclpy there uses them like any installed interface.
#   tf2_msgs/TFMessage (no tf2_msgs wheel exists): built where tf2_msgs does not import
#     (a ROS install, or a build before, has it);
#   ros_ik_msgs (ros_ik's FollowPath action and SolveIk service): built every time this runs (make runs it
#     when a definition changed).
# Usage: msgs/build_interfaces.sh VENV. Needs cmake and a C compiler (Debian: cmake,
# build-essential). In a ROS workspace colcon builds ros_ik_msgs like any package instead.
set -euo pipefail
venv="$(cd "$1" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
python="$venv/bin/python"
command -v cmake >/dev/null || { echo 'build_interfaces.sh: cmake is missing (apt-get install cmake build-essential)' >&2; exit 1; }
export AMENT_PREFIX_PATH="$venv"  # the wheels' ament index: the type supports to generate
export PATH="$venv/bin:$PATH"

build_package() {  # build_package NAME: configure, build and install msgs/NAME into the venv
  local build
  build="$(mktemp -d)"
  cmake -S "$here/$1" -B "$build" -DCMAKE_PREFIX_PATH="$venv" \
    -DCMAKE_INSTALL_PREFIX="$venv" -DPython3_EXECUTABLE="$python" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_TESTING=OFF '-DCMAKE_INSTALL_RPATH=$ORIGIN;$ORIGIN/..;$ORIGIN/../../..' \
    > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; rm -rf "$build"; exit 1; }
  cmake --build "$build" -j 2 > "$build/build.log" 2>&1 || { cat "$build/build.log" >&2; rm -rf "$build"; exit 1; }
  cmake --install "$build" > "$build/install.log" 2>&1 || { cat "$build/install.log" >&2; rm -rf "$build"; exit 1; }
  rm -rf "$build"
}

if ! "$python" -c 'import tf2_msgs.msg' 2>/dev/null; then
  build_package tf2_msgs
  "$python" -c 'from tf2_msgs.msg import TFMessage; TFMessage()'
  echo "tf2_msgs/TFMessage built into $venv"
fi
build_package ros_ik_msgs
"$python" -c 'from ros_ik_msgs.action import FollowPath; from ros_ik_msgs.srv import SolveIk; FollowPath.Goal(); SolveIk.Request()'
echo "ros_ik_msgs (FollowPath, SolveIk) built into $venv"
