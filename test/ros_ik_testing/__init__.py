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
Test and benchmark support: references, recorders and data that users never need.

Never installed with ros_ik: tests import it from ``test/`` (pytest puts that folder on
``sys.path``), benchmarks add ``test/`` to ``sys.path`` themselves. Reference checks
(:mod:`~ros_ik_testing.reference_collisions`: Pinocchio + coal on the meshes;
:mod:`~ros_ik_testing.ruckig_reference`), example-robot-data's arms
(:mod:`~ros_ik_testing.example_arms`), the ros2_control closed loop on a simulated clock
(:mod:`~ros_ik_testing.ros2_control_loop`), stall faults in logs
(:mod:`~ros_ik_testing.stall_faults`) and headless Chromium
(:mod:`~ros_ik_testing.headless_browser`).
"""
