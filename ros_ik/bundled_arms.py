"""
The arms shipped in ``urdf/``: file, chain ends and task rows of each.

``task_rows`` are the Jacobian rows (0-2 linear x, y, z; 3-5 angular) that the arm can
control and that manipulability is measured on: the planar arm controls x and y only.
"""

from dataclasses import dataclass
import math
import os
import sys
from typing import Dict, Tuple

PACKAGE_NAME = 'ros_ik'
# Name of each task row, as the ``task_axes`` parameter spells it.
TASK_AXES = ('x', 'y', 'z', 'rx', 'ry', 'rz')
FULL_POSE_ROWS = (0, 1, 2, 3, 4, 5)
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
    )
}
DEFAULT_ARM = 'ur5'


def urdf_directory() -> str:
    """Return the folder holding the bundled URDFs (installed share/ or source tree)."""
    candidates = [os.path.join(sys.prefix, 'share', PACKAGE_NAME, 'urdf'),
                  os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               'urdf')]
    try:
        from ament_index_python.packages import get_package_share_directory
        candidates.insert(0, os.path.join(get_package_share_directory(PACKAGE_NAME), 'urdf'))
    except (ImportError, LookupError, OSError, ValueError):
        pass
    for candidate in candidates:
        if os.path.isdir(candidate):
            return candidate
    raise FileNotFoundError(f'bundled URDF folder not found; looked in {candidates}')


def bundled_urdf_path(arm_name: str) -> str:
    """Return the path of a bundled arm's URDF file."""
    if arm_name not in BUNDLED_ARMS:
        raise KeyError(f'unknown arm "{arm_name}"; bundled arms: {", ".join(BUNDLED_ARMS)}')
    return os.path.join(urdf_directory(), BUNDLED_ARMS[arm_name].urdf_file)


def task_axes_text(rows: Tuple[int, ...]) -> str:
    """Return the ``task_axes`` parameter value for task ``rows``, e.g. ``'x y'``."""
    return ' '.join(TASK_AXES[row] for row in rows)
