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
The ROS-free controller: targets, joint-state cache, the control cycle, the parameters.

May import: :mod:`ros_ik.collision`, :mod:`ros_ik.kinematics`, :mod:`ros_ik.trajectory`,
numpy and the standard library. Never ROS, never
:mod:`ros_ik.node` or :mod:`ros_ik.tools`. Plain data in (numbers, names, receive times in
s) and out (commands, status, notices), so every behaviour is unit-tested without DDS.
"""
