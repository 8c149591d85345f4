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
The numerical core: chain model, kinematics, damped least squares, IK solver, servo step.

May import: numpy, numba, urdf_parser_py and the standard library. Never ROS (rclpy,
message packages, ament) and never the other ros_ik layers: usable and testable anywhere.
Frames and units: the chain's base frame, metres, radians, seconds; twists linear first.
"""
