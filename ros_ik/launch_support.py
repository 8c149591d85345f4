"""
Resolve the launch arguments that choose an arm into a URDF and its chain ends.

Shared by ``launch/ik.launch.py`` and ``launch/demo.launch.py``; plain Python (no launch
imports) so it is testable without a ROS install.
"""

from dataclasses import dataclass
import os

from ros_ik.bundled_arms import BUNDLED_ARMS, FULL_POSE_ROWS, task_axes_text


@dataclass(frozen=True)
class ArmSetup:
    """A URDF (path and text) with the chain ends and task axes to use."""

    urdf_path: str
    urdf_text: str
    base_link: str
    tip_link: str
    task_axes: str
    home: tuple


def resolve_arm(share_directory: str, arm: str, urdf_file: str, base_link: str,
                tip_link: str) -> ArmSetup:
    """
    Return the URDF, chain ends and task axes chosen by the launch arguments.

    ``urdf_file`` if given (then base and tip links are required), else the bundled
    ``arm`` from ``share_directory/urdf`` with its default links.

    Raises ``ValueError`` naming the problem (unknown arm, missing file or links).
    """
    if urdf_file:
        if not (base_link and tip_link):
            raise ValueError('urdf_file needs base_link and tip_link')
        path, rows, home = urdf_file, FULL_POSE_ROWS, ()
    else:
        if arm not in BUNDLED_ARMS:
            raise ValueError(f'unknown arm "{arm}"; bundled arms: {", ".join(BUNDLED_ARMS)}')
        bundled = BUNDLED_ARMS[arm]
        path = os.path.join(share_directory, 'urdf', bundled.urdf_file)
        base_link, tip_link = base_link or bundled.base_link, tip_link or bundled.tip_link
        rows, home = bundled.task_rows, bundled.home
    if not os.path.isfile(path):
        raise ValueError(f'URDF file "{path}" does not exist')
    with open(path, encoding='utf-8') as urdf:
        text = urdf.read()
    return ArmSetup(urdf_path=path, urdf_text=text, base_link=base_link, tip_link=tip_link,
                    task_axes=task_axes_text(rows), home=tuple(home))
