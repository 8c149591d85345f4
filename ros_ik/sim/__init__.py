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
Simulated arms behind the IK node's commands, as ROS nodes: the arm a demo or test drives.

``sim_arm`` (kinematic: exactly where its commands put it, within its limits) and
``physics_arm`` (MuJoCo: drives, gravity, contacts) share the command side
(:mod:`ros_ik.sim.commanded_arm`: JointState, JointTrajectory sampled as
joint_trajectory_controller does (:mod:`ros_ik.node.jtc_emulation`), Float64MultiArray;
strict faults like a real controller; joint_states with delays and outages).

May import: rclpy and ROS message packages, :mod:`ros_ik.node` and the layers below it
(:mod:`ros_ik.physics` for the MuJoCo model). Never :mod:`ros_ik.web`, :mod:`ros_ik.tools`
or :mod:`ros_ik.demo`.
"""
