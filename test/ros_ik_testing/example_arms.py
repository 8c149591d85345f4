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
Real arms from the ``example-robot-data`` package (PyPI): URDFs with meshes and SRDFs.

Test and benchmark data for the collision checks: where the package is installed (its
cmeel prefix in site-packages, or a ROS install's share folder through the ament index),
:func:`example_arm` returns the files and chain ends of one arm, and
:func:`mesh_search_folder` the folder that ``package://example-robot-data/...`` resolves in.
"""

from dataclasses import dataclass
import os
import sys
from typing import Dict, Optional

PACKAGE = 'example-robot-data'


@dataclass(frozen=True)
class ExampleArm:
    """One arm of example-robot-data: URDF, SRDF and chain ends."""

    name: str
    urdf_path: str
    srdf_path: str
    base_link: str
    tip_link: str


ARMS: Dict[str, tuple] = {
    'ur5': ('ur_description/urdf/ur5_robot.urdf', 'ur_description/srdf/ur5.srdf',
            'base_link', 'tool0'),
    'panda': ('panda_description/urdf/panda.urdf', 'panda_description/srdf/panda.srdf',
              'panda_link0', 'panda_hand_tcp'),
    # example-robot-data's only Kinova arm: a Jaco2 j2s6s200 (6 joints, 3 continuous)
    'kinova': ('kinova_description/robots/kinova.urdf', 'kinova_description/srdf/kinova.srdf',
               'j2s6s200_link_base', 'j2s6s200_end_effector'),
    'xarm7': ('xarm_description/urdf/xarm7.urdf', 'xarm_description/srdf/xarm7.srdf',
              'link_base', 'link_eef'),
}


# The UR5 low over the floor (start) and a free goal whose straight joint motion from it
# swings wrist_3_link through the floor (every straight motion to its pose does: found by a
# seeded search over random free configurations, checked by the tests that use it).
UR5_FLOOR_CROSSING = ((-2.564, -1.194, 2.241, -1.394, -2.316, 2.739),
                      (-3.354, -0.709, 1.55, -3.898, -0.718, 1.551))


def mesh_search_folder() -> Optional[str]:
    """Return the folder holding ``example-robot-data`` (None when it is not installed)."""
    for prefix in [os.path.join(folder, 'cmeel.prefix', 'share') for folder in sys.path]:
        if os.path.isdir(os.path.join(prefix, PACKAGE, 'robots')):
            return prefix
    return None


def example_arm(name: str) -> Optional[ExampleArm]:
    """Return example arm ``name`` (see :data:`ARMS`), or None without the package."""
    folder = mesh_search_folder()
    if folder is None:
        return None
    urdf, srdf, base_link, tip_link = ARMS[name]
    robots = os.path.join(folder, PACKAGE, 'robots')
    return ExampleArm(name, os.path.join(robots, urdf), os.path.join(robots, srdf),
                      base_link, tip_link)
