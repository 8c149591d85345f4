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
The six task-space rows and how a subset of them is chosen and weighted.

Row order is the twist order of geometry_msgs and Pinocchio, linear part first:
``0-2`` = x, y, z (m), ``3-5`` = rotation about x, y, z (rad). A task *mask* is a 6-tuple
of booleans (True: the row is controlled); the ``task_axes`` parameter spells the same
choice as names (``'x y'`` for a planar arm). Weighted rows are ``W e`` with
``W = diag(1, 1, 1, k, k, k)`` restricted to the mask, ``k = orientation_weight`` (m/rad),
so position and rotation errors are compared in metres.
"""

from typing import Iterable, Tuple

import numpy as np

# Name of each task row, as the ``task_axes`` parameter spells it.
TASK_AXES = ('x', 'y', 'z', 'rx', 'ry', 'rz')
FULL_POSE = (True, True, True, True, True, True)
POSITION_ONLY = (True, True, True, False, False, False)
FULL_POSE_ROWS = (0, 1, 2, 3, 4, 5)
POSITION_ROWS = (0, 1, 2)


def rows_of_axes(axes: Iterable[str]) -> Tuple[int, ...]:
    """Return the sorted task rows named by ``axes`` (e.g. ``['y', 'x']`` -> ``(0, 1)``)."""
    return tuple(sorted({TASK_AXES.index(axis) for axis in axes}))


def axes_text(rows: Iterable[int]) -> str:
    """Return the ``task_axes`` parameter value for task ``rows``, e.g. ``'x y'``."""
    return ' '.join(TASK_AXES[row] for row in rows)


def invalid_axes(text: str) -> bool:
    """Return whether ``text`` is not a non-empty, space-separated subset of the axes."""
    axes = text.split()
    return not axes or any(axis not in TASK_AXES for axis in axes)


def mask_of_rows(rows: Iterable[int], position_only: bool = False) -> Tuple[bool, ...]:
    """Return the 6-row mask of ``rows`` (rotation rows dropped if ``position_only``)."""
    selected = set(rows)
    return tuple(row in selected and not (position_only and row >= 3) for row in range(6))


def row_weights(mask: Tuple[bool, ...], orientation_weight: float) -> np.ndarray:
    """Return the weights ``(1, 1, 1, k, k, k)`` of the rows selected by ``mask``."""
    weights = np.array([1.0, 1.0, 1.0] + [orientation_weight] * 3)
    return weights[np.array(mask, dtype=bool)]
