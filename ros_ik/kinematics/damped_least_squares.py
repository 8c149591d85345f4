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
Singularity-aware damped least squares (numba-compiled).

For a task Jacobian ``J`` (m, n) and task error ``e`` (m,) the step is

    dq = J^T (J J^T + lam^2 I)^-1 e = sum_i  sigma_i / (sigma_i^2 + lam^2) (u_i . e) v_i,

evaluated from the eigen-decomposition of ``J J^T``
(:mod:`ros_ik.kinematics.symmetric_eigen`; never
an explicit inverse). The damping follows the smallest singular value ``sigma_min``
(Maciejewski & Klein / Chiaverini):

    lam^2 = (1 - (sigma_min / eps)^2) lam_max^2   if sigma_min < eps,   else 0,

so steps are exact Gauss-Newton steps away from singularities, and near one the gain
``sigma / (sigma^2 + lam^2)`` is at most ``1 / (2 lam)`` as ``sigma -> 0``. ``eps`` and
``lam_max`` carry the units of ``J`` (m/rad for position rows).

Columns of joints that are held (``active`` False) are removed from ``J``; ``sigma_min`` is
then the smallest of the ``min(m, n_active)`` singular values the reduced problem has.
The IK solver's inner loop uses :func:`fast_damped_step_into`: the same step, but it first
tests ``sigma_min > eps`` with a Cholesky factorisation and, when so (``lam = 0``), solves
with it instead of the eigen-decomposition.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numba
import numpy as np

from ros_ik.kinematics.symmetric_eigen import symmetric_eigen_into

# Eigenvalues of J J^T below this fraction of the largest are structural zeros (rank).
STRUCTURAL_ZERO = 1e-12


@dataclass(frozen=True)
class DampingSchedule:
    """Damping ``lam^2 = (1 - (sigma_min / eps)^2) lam_max^2`` below ``eps``, else 0."""

    singular_value_threshold: float
    max_damping: float


# The two defaults, one home. The IK search damps late (its damping also shrinks with the
# error); streamed commands (servo steps, the node's parameters) damp earlier and harder,
# bounding joint speeds near a singularity by ``|W v| / (2 lam_max)``.
SEARCH_DAMPING = DampingSchedule(singular_value_threshold=0.02, max_damping=0.05)
COMMAND_DAMPING = DampingSchedule(singular_value_threshold=0.04, max_damping=0.08)


@dataclass(frozen=True)
class DlsStep:
    """A damped step ``dq`` (n,) with the ``sigma_min`` and ``lam`` that produced it."""

    dq: np.ndarray
    sigma_min: float
    damping: float


@numba.njit(cache=True, nogil=True)
def _gram_into(J: np.ndarray, active: np.ndarray, JJt: np.ndarray) -> int:
    """Write ``J_a J_a^T`` (m, m) of the active columns into ``JJt``; return ``rank <= m``."""
    m, n = J.shape
    n_active = 0
    for j in range(n):
        if active[j]:
            n_active += 1
    for i in range(m):
        for k in range(i, m):
            total = 0.0
            for j in range(n):
                if active[j]:
                    total += J[i, j] * J[k, j]
            JJt[i, k] = total
            JJt[k, i] = total
    return min(m, n_active)


@numba.njit(cache=True, nogil=True)
def _cholesky_into(M: np.ndarray, shift: float, L: np.ndarray) -> bool:
    """Factor ``M - shift I = L L^T`` (lower ``L``); return False if not positive definite."""
    m = M.shape[0]
    for i in range(m):
        for k in range(i + 1):
            total = M[i, k] - (shift if i == k else 0.0)
            for p in range(k):
                total -= L[i, p] * L[k, p]
            if i == k:
                if total <= 0.0:
                    return False
                L[i, i] = np.sqrt(total)
            else:
                L[i, k] = total / L[k, k]
    return True


@numba.njit(cache=True, nogil=True)
def _transpose_times_into(J: np.ndarray, active: np.ndarray, y: np.ndarray,
                          dq: np.ndarray) -> None:
    """Write ``dq = J_a^T y`` (n,), zero for held joints."""
    for j in range(J.shape[1]):
        total = 0.0
        if active[j]:
            for k in range(J.shape[0]):
                total += J[k, j] * y[k]
        dq[j] = total


@numba.njit(cache=True, nogil=True)
def _eigen_step_into(J: np.ndarray, error: np.ndarray, active: np.ndarray, JJt: np.ndarray,
                     rank: int, singular_value_threshold: float, max_damping: float,
                     damping_scale: float, dq: np.ndarray) -> Tuple[float, float]:
    """Write the :func:`damped_step_into` step, given ``JJt = J_a J_a^T`` (overwritten)."""
    m = J.shape[0]
    sigma_squared = np.empty(m)
    U = np.empty((m, m))
    symmetric_eigen_into(JJt, sigma_squared, U)
    sigma_min = np.sqrt(max(sigma_squared[m - rank], 0.0))
    ratio = min(sigma_min / singular_value_threshold, 1.0)
    damping_squared = (1.0 - ratio * ratio) * max_damping * max_damping * damping_scale
    y = np.zeros(m)
    for i in range(m):
        if sigma_squared[i] <= STRUCTURAL_ZERO * sigma_squared[m - 1]:
            continue
        projected = 0.0
        for k in range(m):
            projected += U[k, i] * error[k]
        projected /= sigma_squared[i] + damping_squared
        for k in range(m):
            y[k] += projected * U[k, i]
    _transpose_times_into(J, active, y, dq)
    return sigma_min, np.sqrt(damping_squared)


@numba.njit(cache=True, nogil=True)
def damped_step_into(J: np.ndarray, error: np.ndarray, active: np.ndarray,
                     singular_value_threshold: float, max_damping: float,
                     damping_scale: float, dq: np.ndarray) -> Tuple[float, float]:
    """
    Write the damped step for ``J dq = error`` into ``dq`` (n,); return ``(sigma_min, lam)``.

    ``J`` (m, n), ``error`` (m,), ``active`` (n,) bool: held joints (False) are left out of
    ``J`` and get ``dq = 0``; ``damping_scale`` in [0, 1] multiplies ``lam^2`` (the IK solver
    shrinks it with the error). With ``J J^T = U diag(sigma^2) U^T`` (ascending),
    ``dq = J^T U diag(g) U^T e`` and ``g = 1 / (sigma^2 + lam^2)``; directions with
    ``sigma^2`` structurally zero (below ``1e-12 sigma_max^2``: rows beyond the rank) get
    ``g = 0`` since ``J^T u = 0`` there.
    """
    JJt = np.empty((J.shape[0], J.shape[0]))
    rank = max(_gram_into(J, active, JJt), 1)
    return _eigen_step_into(J, error, active, JJt, rank, singular_value_threshold,
                            max_damping, damping_scale, dq)


@numba.njit(cache=True, nogil=True)
def fast_damped_step_into(J: np.ndarray, error: np.ndarray, active: np.ndarray,
                          singular_value_threshold: float, max_damping: float,
                          damping_scale: float, dq: np.ndarray) -> None:
    """
    Write the same step as :func:`damped_step_into`, without ``sigma_min`` when it is large.

    ``sigma_min > eps`` exactly when ``J J^T - eps^2 I`` has a Cholesky factor; then
    ``lam = 0`` and ``dq = J^T (J J^T)^-1 e`` is two triangular solves (~20x cheaper than the
    eigen-decomposition, which runs only near a singularity or with fewer joints than rows).
    """
    m = J.shape[0]
    JJt = np.empty((m, m))
    L = np.empty((m, m))
    threshold_squared = singular_value_threshold * singular_value_threshold
    rank = _gram_into(J, active, JJt)
    if (rank < m or not _cholesky_into(JJt, threshold_squared, L)
            or not _cholesky_into(JJt, 0.0, L)):
        _eigen_step_into(J, error, active, JJt, max(rank, 1), singular_value_threshold,
                         max_damping, damping_scale, dq)
        return
    y = np.empty(m)
    for i in range(m):
        total = error[i]
        for k in range(i):
            total -= L[i, k] * y[k]
        y[i] = total / L[i, i]
    for i in range(m - 1, -1, -1):
        total = y[i]
        for k in range(i + 1, m):
            total -= L[k, i] * y[k]
        y[i] = total / L[i, i]
    _transpose_times_into(J, active, y, dq)


def damped_step(J: np.ndarray, error: np.ndarray, schedule: DampingSchedule,
                active: Optional[np.ndarray] = None, damping_scale: float = 1.0) -> DlsStep:
    """
    Return the singularity-damped least-squares step for ``J dq = error``.

    ``J``: (m, n); ``error``: (m,); ``active``: optional boolean (n,) mask of the joints that
    may move (all by default); ``damping_scale``: factor in [0, 1] applied to ``lam^2``.
    """
    J = np.ascontiguousarray(J, dtype=float)
    active = np.ones(J.shape[1], dtype=bool) if active is None else np.asarray(active, bool)
    dq = np.empty(J.shape[1])
    sigma_min, damping = damped_step_into(J, np.ascontiguousarray(error, dtype=float), active,
                                          schedule.singular_value_threshold,
                                          schedule.max_damping, damping_scale, dq)
    return DlsStep(dq=dq, sigma_min=sigma_min, damping=damping)
