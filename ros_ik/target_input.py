"""
Validation of incoming IK targets and resolution of their frames (core: no ROS imports).

A target arrives as position ``(x, y, z)`` (m) and, for poses, quaternion ``(x, y, z, w)``
in frame ``frame_id``. Frames ros_ik resolves with its own FK: the chain's base (also an
empty ``frame_id``) and every link of the chain: ``T_base_target = T_base_frame(q)
T_frame_target`` at the current joints ``q``. Any other frame is rejected (no tf2 here).
"""

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ros_ik.kinematics import ChainKinematics
from ros_ik.transforms import quaternion_to_matrix, transform

# Quaternions whose norm is off by more than this are normalised with a warning.
QUATERNION_NORM_TOLERANCE = 1e-3
ZERO_QUATERNION_NORM = 1e-6


@dataclass(frozen=True)
class TargetCheck:
    """A validated target in its own frame, or why it was rejected (``problem`` names the kind)."""

    T_frame_target: Optional[np.ndarray]
    error: str = ''
    warning: str = ''
    problem: str = ''


def check_pose(position: Sequence[float], quaternion_xyzw: Optional[Sequence[float]]
               ) -> TargetCheck:
    """
    Validate a target pose; ``quaternion_xyzw`` None means a position-only target.

    NaN or inf anywhere and a zero-norm quaternion are rejected; a quaternion whose norm
    differs from 1 by more than 1e-3 is normalised and reported in ``warning``.
    """
    position = np.asarray(position, dtype=float)
    if not np.all(np.isfinite(position)):
        return TargetCheck(None, error=f'target position is not finite: {position.tolist()}',
                           problem='position')
    if quaternion_xyzw is None:
        return TargetCheck(transform(np.eye(3), position))
    quaternion = np.asarray(quaternion_xyzw, dtype=float)
    if not np.all(np.isfinite(quaternion)):
        return TargetCheck(None,
                           error=f'target orientation is not finite: {quaternion.tolist()}',
                           problem='orientation')
    norm = float(np.linalg.norm(quaternion))
    if norm < ZERO_QUATERNION_NORM:
        return TargetCheck(None, error='target orientation is a zero quaternion; '
                                       'set w = 1 for no rotation', problem='zero_quaternion')
    warning = ''
    if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
        warning = f'target quaternion has norm {norm:.6g}; normalised'
    return TargetCheck(transform(quaternion_to_matrix(quaternion / norm), position),
                       warning=warning)


def is_known_frame(kinematics: ChainKinematics, frame_id: str) -> bool:
    """Return whether targets in ``frame_id`` can be resolved (base, '' or a chain link)."""
    chain = kinematics.chain
    return frame_id in ('', chain.tip_link) or frame_id in chain.link_names


def frame_pose(kinematics: ChainKinematics, q: np.ndarray, frame_id: str
               ) -> Optional[np.ndarray]:
    """Return ``T_base_frame`` (4x4) for the base, a chain link or the tip; None if unknown."""
    chain = kinematics.chain
    if frame_id in ('', chain.base_link):
        return np.eye(4)
    if frame_id == chain.tip_link:
        return kinematics.tip_pose(q)
    if frame_id in chain.link_names:
        return kinematics.link_poses(q)[chain.link_names.index(frame_id)]
    return None


def known_frames(kinematics: ChainKinematics) -> str:
    """Return the frames targets may use, for error messages."""
    chain = kinematics.chain
    names = dict.fromkeys(chain.link_names + (chain.tip_link,))
    return ', '.join(names)
