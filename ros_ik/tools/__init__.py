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
Tools for users of the node: small executables and helpers around it.

``target_marker`` (RViz drag target), ``static_transform_publisher`` (tf2_ros's, for
machines without it), ``position_stream_bridge`` (the node's JointTrajectory horizons as
a position stream that bridges the node's stalls), ``ros_ik_collision_pairs`` (an SRDF's
``disable_collisions`` for a URDF), ``ros_ik_report`` (a chain's joints, limits and
manipulability),
:mod:`~ros_ik.tools.parameter_docs` (``make docs``), :mod:`~ros_ik.tools.arm_selection` (the
bundled arms for launch files and the demo), :mod:`~ros_ik.tools.node_processes` (ros_ik
executables as owned child processes), :mod:`~ros_ik.tools.executables` (the console
scripts' entry points).

May import: rclpy, ROS message packages, :mod:`ros_ik.node` and the layers below it.
Never :mod:`ros_ik.sim`, :mod:`ros_ik.web` or :mod:`ros_ik.demo` (the console scripts load
their modules by name when run).
"""
