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
The ROS 2 API: the rclpy node, message conversions, parameter declarations, ``main()``.

May import: rclpy and ROS message packages, :mod:`ros_ik.control` and the
layers below it. Never :mod:`ros_ik.tools`. A thin layer: subscriptions convert
and hand over, timers publish what the controller computed.
"""
