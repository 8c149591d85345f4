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
Collision geometry: the robot's own links and its scene, distances and checks.

May import: :mod:`ros_ik.kinematics`, :mod:`ros_ik.trajectory`, numpy, numba, coal, PyYAML
and the standard library. Never ROS, never :mod:`ros_ik.control` and above. Frames and
units: the chain's base frame, metres; a clearance is a signed distance (negative:
penetration). The fast proxies (capsules and boxes in numba kernels) enclose the real
geometry, so a proxy clearance never exceeds the real one; coal (the successor of hpp-fcl)
gives the real distance of a close pair.
"""
