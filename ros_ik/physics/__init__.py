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
Physics: the arm as a dynamic system in MuJoCo (no ROS).

:mod:`link_inertia` folds the URDF's ``<inertial>`` elements onto the chain's bodies,
:mod:`servo_gains` gives each joint's position-loop gains, :mod:`mujoco_arm` builds the
MuJoCo model (bodies, joints with their limits, actuators with the URDF's effort limits,
collision shapes, the scene) and :mod:`arm_simulation` steps it toward a reference and
reports what a physical arm reports: tracking error, torque saturation and contacts;
:mod:`drive_monitor` keeps their peaks, and :mod:`wall_clock_steps` counts the steps a
loop takes in wall-clock time and the time they reach.
"""
