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
Which arm? One answer for the command-line tools and the launch files.

A bundled arm by name (``urdf/``, with its chain ends, task axes, home pose and
``<arm>_joint_limits.yaml``), or a user's URDF file with its base and tip links (all six
task axes, no home pose: tools start from the middle of each joint range; optionally a
joint_limits.yaml). Plain Python: launch files import it too.
"""

import argparse
from dataclasses import dataclass
import os
from typing import Optional, Tuple

import numpy as np
from ros_ik.control.motion_limit_sources import LimitDefaults, resolve_motion_limits
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, DEFAULT_ARM, joint_limits_beside,
                                            srdf_beside, urdf_directory)
from ros_ik.kinematics.chain import Chain
from ros_ik.kinematics.task_space import axes_text, FULL_POSE_ROWS
from ros_ik.kinematics.urdf_loader import load_urdf_string, read_robot_description
from ros_ik.trajectory.motion_limits import MotionLimits


@dataclass(frozen=True)
class ArmChoice:
    """A URDF file with the chain ends, task rows and home pose (rad; may be empty) to use."""

    label: str
    urdf_path: str
    base_link: str
    tip_link: str
    task_rows: Tuple[int, ...]
    home: Tuple[float, ...]
    joint_limits_file: str = ''
    xacro_args: str = ''
    srdf_file: str = ''

    @property
    def task_axes(self) -> str:
        """Return the ``task_axes`` parameter value of the task rows."""
        return axes_text(self.task_rows)

    def urdf_text(self) -> str:
        """Return the URDF XML (a .xacro file expanded with ``xacro_args``)."""
        return read_robot_description(self.urdf_path, self.xacro_args)


@dataclass(frozen=True)
class SelectedArm:
    """A chosen arm: its chain, home configuration (n,) in rad or m, and motion limits."""

    choice: ArmChoice
    chain: Chain
    home: np.ndarray
    limits: MotionLimits

    @property
    def label(self) -> str:
        """Return the arm's name (or the URDF path)."""
        return self.choice.label

    @property
    def task_rows(self) -> Tuple[int, ...]:
        """Return the controlled task rows."""
        return self.choice.task_rows


def choose_arm(arm: str, urdf_file: str = '', base_link: str = '', tip_link: str = '',
               urdf_folder: Optional[str] = None, joint_limits_file: str = '',
               xacro_args: str = '', srdf_file: str = '') -> ArmChoice:
    """
    Return the arm chosen by a bundled name or a URDF file with its links.

    ``urdf_file`` if given (then ``base_link`` and ``tip_link`` are required), else the
    bundled ``arm`` from ``urdf_folder`` (default: the installed ``urdf/``), whose links can
    be overridden. ``joint_limits_file`` and ``srdf_file`` override a bundled arm's limits
    and SRDF files; ``xacro_args`` are for a ``.xacro`` ``urdf_file``. Raises
    ``ValueError`` naming the problem.
    """
    limits, srdf = joint_limits_file, srdf_file
    if urdf_file:
        if not (base_link and tip_link):
            raise ValueError('urdf_file needs base_link and tip_link')
        label = os.path.splitext(os.path.basename(urdf_file))[0]
        path, rows, home = urdf_file, FULL_POSE_ROWS, ()
    else:
        if arm not in BUNDLED_ARMS:
            raise ValueError(f'unknown arm "{arm}"; bundled arms: {", ".join(BUNDLED_ARMS)}')
        bundled = BUNDLED_ARMS[arm]
        path = os.path.join(urdf_folder or urdf_directory(), bundled.urdf_file)
        base_link, tip_link = base_link or bundled.base_link, tip_link or bundled.tip_link
        label, rows, home = arm, bundled.task_rows, bundled.home
        limits = limits or joint_limits_beside(path)
        srdf = srdf or srdf_beside(path)
    for kind, file_path in (('URDF', path), ('joint limits', limits), ('SRDF', srdf)):
        if file_path and not os.path.isfile(file_path):
            raise ValueError(f'{kind} file "{file_path}" does not exist')
    return ArmChoice(label=label, urdf_path=path, base_link=base_link, tip_link=tip_link,
                     task_rows=rows, home=tuple(home), joint_limits_file=limits,
                     xacro_args=xacro_args, srdf_file=srdf)


def add_arm_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--arm``, ``--urdf``, ``--base-link`` and ``--tip-link`` to ``parser``."""
    parser.add_argument('--arm', choices=sorted(BUNDLED_ARMS), default=DEFAULT_ARM,
                        help='bundled arm (default: %(default)s)')
    parser.add_argument('--urdf', help='a URDF (or .xacro) file to use instead of a bundled '
                        'arm')
    parser.add_argument('--xacro-args', default='', help='arguments of a .xacro file, '
                        '"name:=value ..."')
    parser.add_argument('--base-link', help='chain base link (with --urdf)')
    parser.add_argument('--tip-link', help='chain tip link (with --urdf)')
    parser.add_argument('--joint-limits', help='a MoveIt-style joint_limits.yaml (default: '
                        "the bundled arm's; none for --urdf)")


def load_selected_arm(args: argparse.Namespace) -> SelectedArm:
    """Load the arm named by the arguments of :func:`add_arm_arguments` (UrdfError, ValueError)."""
    choice = choose_arm(args.arm, args.urdf or '', args.base_link or '', args.tip_link or '',
                        joint_limits_file=args.joint_limits or '',
                        xacro_args=args.xacro_args)
    chain = load_urdf_string(choice.urdf_text(), choice.base_link, choice.tip_link)
    home = np.array(choice.home) if choice.home else chain.middle_configuration()
    limits = resolve_motion_limits(chain, choice.joint_limits_file,
                                   LimitDefaults.of(Settings()), {}).limits
    return SelectedArm(choice, chain, home, limits)
