# Copyright 2026 ros_ik developers
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
The console scripts: stop signals first, then the (slow) imports and the node's ``main``.

Importing a node module loads rclpy, numba and the message packages (about a second); the
stop-signal handlers are installed before that, so a stop at any moment exits 0.
"""

import importlib
import os
import sys

from ros_ik.node import stop_signals


def _run(module: str) -> int:
    """Install the stop-signal handlers, then import ``module`` and run its ``main()``."""
    stop_signals.install()
    return importlib.import_module(module).main()


def ik_node() -> int:
    """Run the IK node."""
    return _run('ros_ik.node.ik_node')


def physics_arm() -> int:
    """
    Run the physics-backed (MuJoCo) simulated arm.

    It renders nothing, so MuJoCo's OpenGL set-up is off unless ``MUJOCO_GL`` is set:
    importing ``mujoco`` otherwise loads ``glfw``, which starts a Python subprocess to read
    the GLFW version; a Ctrl-C to the process group (or the pipe closing as the arm exits
    at a stop) then printed that child's traceback.
    """
    os.environ.setdefault('MUJOCO_GL', 'disable')
    return _run('ros_ik.sim.physics_arm')


def position_stream_bridge() -> int:
    """Run the position stream bridge (JointTrajectory horizons in, positions out)."""
    return _run('ros_ik.tools.position_stream_bridge')


def ros_ik_web() -> int:
    """Run the browser view (viser)."""
    return _run('ros_ik.web.view_node')


def sim_arm() -> int:
    """Run the simulated arm."""
    return _run('ros_ik.sim.sim_arm')


def static_transform_publisher() -> int:
    """Run the static transform publisher (tf2_ros's, for machines without it)."""
    return _run('ros_ik.tools.static_transform_publisher')


def target_marker() -> int:
    """Run the drag target."""
    return _run('ros_ik.tools.target_marker')


if __name__ == '__main__':
    sys.exit(ik_node())
