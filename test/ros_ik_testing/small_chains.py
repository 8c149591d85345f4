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

"""Small test chains written inline: URDF text for unit and closed-loop tests."""

# A polar arm in the x-y plane: a continuous wheel about z (base -> disc) and a prismatic
# reach along the disc's x from 0.5 m out (0 to 0.5 m); the tip at the reach's end.
POLAR_ARM_URDF = (
    '<robot name="wheel"><link name="base"/><link name="disc"/><link name="arm"/>'
    '<link name="tip"/>'
    '<joint name="wheel" type="continuous"><parent link="base"/><child link="disc"/>'
    '<axis xyz="0 0 1"/><limit velocity="2.0" effort="1"/></joint>'
    '<joint name="reach" type="prismatic"><parent link="disc"/><child link="arm"/>'
    '<origin xyz="0.5 0 0"/><axis xyz="1 0 0"/>'
    '<limit lower="0" upper="0.5" velocity="0.5" effort="1"/></joint>'
    '<joint name="tool" type="fixed"><parent link="arm"/><child link="tip"/></joint></robot>')
