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
ros_ik: singularity-aware damped-least-squares inverse kinematics for ROS 2 arms.

Four layers, each a subpackage; a layer imports only the layers before it:

* :mod:`ros_ik.kinematics`: URDF -> chain, FK/Jacobian, manipulability, damped least
  squares, joint limits, IK solver, servo step (numpy + numba; no ROS);
* :mod:`ros_ik.control`: the ROS-free controller (targets, joint-state cache, the cycle
  state machine, the parameter table);
* :mod:`ros_ik.node`: the rclpy node, message conversions, parameter declarations;
* :mod:`ros_ik.tools`: the simulated arm, the drag target, the demo, the report.
"""
