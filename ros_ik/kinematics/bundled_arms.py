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
The arms shipped in ``urdf/``: file, chain ends, task rows and home pose of each.

``task_rows`` are the Jacobian rows (:mod:`ros_ik.kinematics.task_space`) that the arm can
control and that manipulability is measured on: the planar arm controls x and y only, the
5-joint SO-101-class arm x, y and z (it cannot reach arbitrary 6-D poses).
The URDF folder is found from this module's own location, so the same code works in a
source tree, a pip/venv install and a colcon install (``share/ros_ik/urdf`` beside
``lib/python3.X/site-packages``) without any ROS import.
"""

from dataclasses import dataclass
import math
import os
import sys
from typing import Dict, Tuple

from ros_ik.kinematics.chain import Chain
from ros_ik.kinematics.task_space import FULL_POSE_ROWS, POSITION_ROWS
from ros_ik.kinematics.urdf_loader import load_urdf_file

PACKAGE_NAME = 'ros_ik'
HALF_PI = 0.5 * math.pi
QUARTER_PI = 0.25 * math.pi


@dataclass(frozen=True)
class BundledArm:
    """A URDF shipped with ros_ik, the chain ends it is used with and its home pose (rad)."""

    name: str
    urdf_file: str
    base_link: str
    tip_link: str
    task_rows: Tuple[int, ...]
    home: Tuple[float, ...]
    description: str


BUNDLED_ARMS: Dict[str, BundledArm] = {
    arm.name: arm for arm in (
        BundledArm('ur5', 'ur5.urdf', 'base_link', 'tool0', FULL_POSE_ROWS,
                   (0.0, -HALF_PI, HALF_PI, -HALF_PI, -HALF_PI, 0.0),
                   '6-DOF UR5-class arm (standard DH)'),
        BundledArm('panda', 'panda.urdf', 'panda_link0', 'panda_hand_tcp', FULL_POSE_ROWS,
                   (0.0, -QUARTER_PI, 0.0, -3.0 * QUARTER_PI, 0.0, HALF_PI, QUARTER_PI),
                   '7-DOF Panda-class arm (modified DH)'),
        BundledArm('planar_2link', 'planar_2link.urdf', 'base_link', 'tool0', (0, 1),
                   (0.0, HALF_PI), 'planar 2-link arm, L1 = 2.0 m, L2 = 1.5 m'),
        BundledArm('so101', 'so101.urdf', 'base_link', 'gripper_frame_link', POSITION_ROWS,
                   (0.0, -0.4, 0.8, 0.6, 0.0),
                   '5-DOF SO-101-class desktop arm (tracks positions: task_axes x y z)'),
    )
}
DEFAULT_ARM = 'ur5'


def urdf_directory() -> str:
    """Return the folder holding the bundled URDFs (installed ``share/ros_ik`` or source)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # <prefix>/lib/pythonX.Y/site-packages/ros_ik -> <prefix>
    site_packages_prefix = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(package))))
    candidates = [os.path.join(site_packages_prefix, 'share', PACKAGE_NAME, 'urdf'),
                  os.path.join(sys.prefix, 'share', PACKAGE_NAME, 'urdf'),
                  os.path.join(os.path.dirname(package), 'urdf')]
    for candidate in candidates:
        if os.path.isdir(candidate):
            return candidate
    raise FileNotFoundError(f'bundled URDF folder not found; looked in {candidates}')


def bundled_urdf_path(arm_name: str) -> str:
    """Return the path of a bundled arm's URDF file."""
    if arm_name not in BUNDLED_ARMS:
        raise KeyError(f'unknown arm "{arm_name}"; bundled arms: {", ".join(BUNDLED_ARMS)}')
    return os.path.join(urdf_directory(), BUNDLED_ARMS[arm_name].urdf_file)


def load_bundled_chain(arm_name: str) -> Chain:
    """Return the chain of bundled arm ``arm_name`` between its default links."""
    arm = BUNDLED_ARMS[arm_name]
    return load_urdf_file(bundled_urdf_path(arm_name), arm.base_link, arm.tip_link)


def joint_limits_beside(urdf_path: str) -> str:
    """Return ``<name>_joint_limits.yaml`` beside ``<name>.urdf``: a bundled arm's limits."""
    return urdf_path[:-len('.urdf')] + '_joint_limits.yaml'


def srdf_beside(urdf_path: str) -> str:
    """Return ``<name>.srdf`` beside ``<name>.urdf``: a bundled arm's disabled pairs."""
    return urdf_path[:-len('.urdf')] + '.srdf'


def gains_beside(urdf_path: str) -> str:
    """Return ``config/physics_gains_<name>.yaml`` for ``urdf/<name>.urdf`` (physics_arm)."""
    folder, file_name = os.path.split(urdf_path)
    return os.path.join(os.path.dirname(folder), 'config',
                        f'physics_gains_{file_name[:-len(".urdf")]}.yaml')


def bundled_joint_limits_path(arm_name: str) -> str:
    """Return the path of a bundled arm's ``joint_limits.yaml`` (acceleration and jerk)."""
    return joint_limits_beside(bundled_urdf_path(arm_name))
