"""Command-line selection of an arm: a bundled one by name, or a user URDF with its links."""

import argparse
from dataclasses import dataclass
from typing import Tuple

import numpy as np

from ros_ik.bundled_arms import BUNDLED_ARMS, bundled_urdf_path, DEFAULT_ARM, FULL_POSE_ROWS
from ros_ik.chain import Chain
from ros_ik.urdf_loader import load_urdf_file


@dataclass(frozen=True)
class SelectedArm:
    """A loaded chain, its URDF, the task rows it controls and its home pose (rad)."""

    label: str
    urdf_path: str
    chain: Chain
    task_rows: Tuple[int, ...]
    home: np.ndarray


def add_arm_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--arm``, ``--urdf``, ``--base-link`` and ``--tip-link`` to ``parser``."""
    parser.add_argument('--arm', choices=sorted(BUNDLED_ARMS), default=DEFAULT_ARM,
                        help='bundled arm (default: %(default)s)')
    parser.add_argument('--urdf', help='a URDF file to use instead of a bundled arm')
    parser.add_argument('--base-link', help='chain base link (with --urdf)')
    parser.add_argument('--tip-link', help='chain tip link (with --urdf)')


def load_selected_arm(args: argparse.Namespace) -> SelectedArm:
    """Load the arm named by the arguments of :func:`add_arm_arguments`."""
    if args.urdf:
        if not (args.base_link and args.tip_link):
            raise SystemExit('--urdf needs --base-link and --tip-link')
        chain = load_urdf_file(args.urdf, args.base_link, args.tip_link)
        return SelectedArm(args.urdf, args.urdf, chain, FULL_POSE_ROWS,
                           chain.middle_configuration())
    arm = BUNDLED_ARMS[args.arm]
    path = bundled_urdf_path(arm.name)
    return SelectedArm(arm.name, path, load_urdf_file(path, arm.base_link, arm.tip_link),
                       arm.task_rows, np.array(arm.home))
