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
Manipulability measures of a Jacobian (pure numpy).

For a task Jacobian ``J`` (m x n, m task rows, e.g. 6 for a full pose, 3 for position):

* singular values ``sigma_1 >= ... >= sigma_k``, ``k = min(m, n)``;
* the manipulability ``w = prod(sigma_i)``: Yoshikawa's ``sqrt(det(J J^T))`` when
  ``m <= n``, and ``sqrt(det(J^T J))`` when the chain has fewer joints than task rows
  (a 5-joint arm on a full pose). Yoshikawa's measure is identically 0 there, since
  ``J J^T`` has rank n < m; ``sqrt(det(J^T J))`` is the volume of the n-dimensional
  velocity ellipsoid the joints do span, and is 0 exactly when they lose a direction;
* ``sigma_min = sigma_k`` and the condition number ``sigma_max / sigma_min`` (inf at a
  singularity), over the same k directions.

``w`` has units of the task rows (m^3 for three position rows); it is 0 exactly at a
singularity.
"""

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ros_ik.kinematics.task_space import POSITION_ROWS


@dataclass(frozen=True)
class Manipulability:
    """Manipulability of one Jacobian; ``singular_values`` descending."""

    yoshikawa: float
    singular_values: np.ndarray
    sigma_min: float
    condition_number: float


def task_jacobian(J: np.ndarray, rows: Sequence[int]) -> np.ndarray:
    """Return the task rows of ``J`` (6 x n), e.g. ``(0, 1)`` for planar x, y."""
    return J[..., list(rows), :]


def manipulability(J: np.ndarray) -> Manipulability:
    """Return ``w = prod(sigma_i)``, singular values, ``sigma_min``, condition of ``J``."""
    singular_values = np.linalg.svd(J, compute_uv=False)
    sigma_max = float(singular_values[0]) if singular_values.size else 0.0
    sigma_min = float(singular_values[-1]) if singular_values.size else 0.0
    condition = sigma_max / sigma_min if sigma_min > 0.0 else np.inf
    return Manipulability(yoshikawa=float(np.prod(singular_values)),
                          singular_values=singular_values, sigma_min=sigma_min,
                          condition_number=condition)


def translational_manipulability(J: np.ndarray) -> Manipulability:
    """Return the measures of the translational part ``J_v`` (3 x n, rows x, y, z)."""
    return manipulability(task_jacobian(J, POSITION_ROWS))


def velocity_ellipsoid(J: np.ndarray):
    """
    Return ``(semi_axes, R_base_ellipsoid)`` of the translational velocity ellipsoid.

    The set ``{J_v dq : |dq| <= 1}`` is an ellipsoid with semi-axes ``sigma_i`` (m/s per
    rad/s) along the left singular vectors ``u_i`` of ``J_v`` (columns of the rotation).
    """
    U, singular_values, _ = np.linalg.svd(task_jacobian(J, POSITION_ROWS))
    semi_axes = np.zeros(3)
    semi_axes[:singular_values.size] = singular_values
    if np.linalg.det(U) < 0.0:
        U[:, 2] = -U[:, 2]
    return semi_axes, U
