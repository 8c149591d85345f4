#!/usr/bin/env bash
# Build tf2_msgs/TFMessage from its definition into a venv of the ROS 2 wheels from PyPI,
# which has no tf2_msgs wheel: ament_cmake and the rosidl generators (wheels too) generate
# and compile its C and Python type support against the venv's geometry_msgs, and install
# it into the venv, so rclpy there sends and receives real /tf and /tf_static messages.
# Usage: msgs/build_tf2_msgs.sh VENV. Nothing to do where tf2_msgs imports already (a ROS
# install, or a build before). Needs cmake and a C compiler (Debian: cmake, build-essential).
set -euo pipefail
venv="$(cd "$1" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
python="$venv/bin/python"
if "$python" -c 'import tf2_msgs.msg' 2>/dev/null; then
  exit 0
fi
command -v cmake >/dev/null || { echo 'build_tf2_msgs.sh: cmake is missing (apt-get install cmake build-essential)' >&2; exit 1; }
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
export AMENT_PREFIX_PATH="$venv"  # the wheels' ament index: the type supports to generate
export PATH="$venv/bin:$PATH"
cmake -S "$here/tf2_msgs" -B "$build" -DCMAKE_PREFIX_PATH="$venv" \
  -DCMAKE_INSTALL_PREFIX="$venv" -DPython3_EXECUTABLE="$python" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_TESTING=OFF '-DCMAKE_INSTALL_RPATH=$ORIGIN;$ORIGIN/..;$ORIGIN/../../..' \
  > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" -j 2 > "$build/build.log" 2>&1 || { cat "$build/build.log" >&2; exit 1; }
cmake --install "$build" > "$build/install.log" 2>&1 || { cat "$build/install.log" >&2; exit 1; }
"$python" -c 'from tf2_msgs.msg import TFMessage; TFMessage()'
echo "tf2_msgs/TFMessage built into $venv"
