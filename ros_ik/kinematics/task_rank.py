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
How many independent task directions a chain can move its tip in: the generic rank.

The task Jacobian ``J_rows(q)`` (rows of the geometric Jacobian, base frame) has rank at
most ``min(len(rows), n)``; its largest rank over configurations is the dimension of the
set of tip poses the chain reaches on those rows. A chain whose generic rank is below the
number of task rows (a 5-joint arm on a full pose, a planar arm on z) cannot reach
arbitrary targets on them: a target off the reachable set has a closest pose (least
squares), not a solution. The rank is the largest numerical rank (singular values above
``RANK_TOLERANCE`` times the largest) over random configurations within the limits; a
configuration of full generic rank is met with probability one, a few samples suffice.
"""

from typing import Sequence, Tuple

import numpy as np

from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.task_space import POSITION_ROWS

RANK_TOLERANCE = 1e-9
RANK_SAMPLES = 16


def generic_rank(kinematics: ChainKinematics, rows: Sequence[int],
                 samples: int = RANK_SAMPLES) -> int:
    """Return the largest rank of ``J[rows]`` over ``samples`` random configurations."""
    chain = kinematics.chain
    if chain.n_joints == 0 or not rows:
        return 0
    lower, upper = chain.sampling_bounds()
    configurations = np.random.default_rng(0).uniform(
        lower, upper, size=(samples, chain.n_joints))
    best = 0
    for q in configurations:
        singular_values = np.linalg.svd(kinematics.jacobian(q)[list(rows)], compute_uv=False)
        best = max(best, int(np.count_nonzero(
            singular_values > RANK_TOLERANCE * max(singular_values[0], RANK_TOLERANCE))))
    return best


def exact_tracking_axes(kinematics: ChainKinematics, rows: Sequence[int]) -> Tuple[int, ...]:
    """
    Return task rows of ``rows`` the chain can track exactly, preferring position rows.

    Rows are taken in order, each kept when it raises the generic rank: first the position
    rows of ``rows`` (``(0, 1, 2)`` for a spatial arm, ``(0, 1)`` for an arm in the x-y
    plane), or, when ``rows`` has none the chain moves in, its rotation rows.
    """
    def independent(candidates: Sequence[int]) -> Tuple[int, ...]:
        kept: Tuple[int, ...] = ()
        for row in candidates:
            if generic_rank(kinematics, kept + (row,)) == len(kept) + 1:
                kept += (row,)
        return kept
    return (independent([row for row in rows if row in POSITION_ROWS])
            or independent([row for row in rows if row not in POSITION_ROWS]))
