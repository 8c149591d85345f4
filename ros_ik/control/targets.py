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
Validation of incoming IK targets and the frames they may be given in.

A target arrives as position ``(x, y, z)`` (m) and, for poses, quaternion ``(x, y, z, w)``
in frame ``frame_id``. Frames ros_ik resolves with its own FK: the chain's base (also an
empty ``frame_id``) and every link of the chain, links fixed inside it included:
``T_base_target = T_base_frame(q) T_frame_target`` at the current joints ``q``
(:meth:`ChainKinematics.frame_pose`). Any other frame is rejected (no tf2 here).

A subnormal value (``0 < |v| < 2.2e-308``, no coordinate or quaternion component of a real
target) is rejected: rclpy's generated messages, with their field checks off (the default
unless ``ROS_PYTHON_CHECK_FIELDS=1``), take a Python ``int`` in a float64 field and
serialize the int object's bits, so ``position.z = 1`` arrives as 5e-324 m and
``orientation.w = 1`` as a zero quaternion. The message says to write ``1.0``.
"""

from dataclasses import dataclass
import math
import sys
from typing import List, Optional, Sequence

import numpy as np

from ros_ik.kinematics.chain import Chain
from ros_ik.kinematics.transforms import pose_matrix

# Quaternions whose norm is off by more than this are normalised with a warning.
QUATERNION_NORM_TOLERANCE = 1e-3
ZERO_QUATERNION_NORM = 1e-6
# No arm reaches this far (m): a larger coordinate is a unit or frame mistake, and squaring
# it in an error norm would overflow.
MAX_TARGET_COORDINATE = 1e4
SMALLEST_NORMAL = sys.float_info.min  # 2.2e-308: smaller non-zero magnitudes are subnormal
# What a subnormal value in a float64 field means, for the refusal of a target or a jog.
INT_BITS_HINT = ('the bits of Python ints written into float64 fields (rclpy sends them '
                 'unchecked); write 1.0, not 1')


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

    NaN or inf anywhere, a coordinate beyond ``MAX_TARGET_COORDINATE``, a subnormal value
    (the bits of a Python int, see the module docstring) and a zero-norm quaternion are
    rejected; a quaternion whose norm
    differs from 1 by more than 1e-3 is normalised and reported in ``warning``.
    """
    position = [float(value) for value in position]  # 3 numbers: floats beat numpy here
    if not all(map(math.isfinite, position)):
        return TargetCheck(None, error=f'target position is not finite: {position}',
                           problem='position')
    if max(map(abs, position)) > MAX_TARGET_COORDINATE:
        return TargetCheck(None, error=f'target position {position} is beyond '
                                       f'{MAX_TARGET_COORDINATE:g} m from the frame origin',
                           problem='position_range')
    if has_subnormal(position):
        return _int_bits_refusal('position', position)
    if quaternion_xyzw is None:
        return TargetCheck(pose_matrix(position, (0.0, 0.0, 0.0, 1.0)))
    quaternion = [float(value) for value in quaternion_xyzw]
    if not all(map(math.isfinite, quaternion)):
        return TargetCheck(None, error=f'target orientation is not finite: {quaternion}',
                           problem='orientation')
    if has_subnormal(quaternion):
        return _int_bits_refusal('orientation', quaternion)
    norm = math.hypot(*quaternion)
    if norm < ZERO_QUATERNION_NORM:
        return TargetCheck(None, error='target orientation is a zero quaternion; '
                                       'set w = 1 for no rotation', problem='zero_quaternion')
    warning = ''
    if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
        warning = f'target quaternion has norm {norm:.6g}; normalised'
    return TargetCheck(pose_matrix(position, [value / norm for value in quaternion]),
                       warning=warning)


def has_subnormal(values: Sequence[float]) -> bool:
    """Return whether any of ``values`` is subnormal: ``0 < |v| < SMALLEST_NORMAL``."""
    return any(0.0 < abs(value) < SMALLEST_NORMAL for value in values)


def _int_bits_refusal(part: str, values: List[float]) -> TargetCheck:
    """Return the refusal of a target whose ``part`` has subnormal ``values``."""
    return TargetCheck(None, error=f'target {part} has subnormal values {values}: '
                                   f'{INT_BITS_HINT}', problem='int_bits')


def is_known_frame(chain: Chain, frame_id: str) -> bool:
    """Return whether targets in ``frame_id`` can be resolved (``''`` or any chain link)."""
    return frame_id == '' or frame_id in chain.frame_names


def known_frames(chain: Chain) -> str:
    """Return the frames targets may use, for error messages."""
    return ', '.join(chain.frame_names)
