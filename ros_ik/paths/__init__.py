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
Cartesian paths: the tool along straight segments between waypoints, timed, checked.

The geometry (:mod:`~ros_ik.paths.path_geometry`), the joints along it by continuation
(:mod:`~ros_ik.paths.path_tracing`, :mod:`~ros_ik.paths.joint_path`), the proof that the
motion is collision-free (:mod:`~ros_ik.paths.path_clearance`), the jerk-limited timing
(:mod:`~ros_ik.paths.speed_profile`, :mod:`~ros_ik.paths.path_timing`), one stretch between
rest points planned (:mod:`~ros_ik.paths.stretch_planner`) and the offline API
(:mod:`~ros_ik.paths.cartesian_planner`).

May import: numpy, numba, :mod:`ros_ik.trajectory`, :mod:`ros_ik.kinematics` and
:mod:`ros_ik.collision`. No ROS, nothing above it.
"""
