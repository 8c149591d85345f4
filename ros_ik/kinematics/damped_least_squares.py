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

    dq = J^T (J J^T + lam^2 I)^-1 e = (J^T J + lam^2 I)^-1 J^T e
       = sum_i  sigma_i / (sigma_i^2 + lam^2) (u_i . e) v_i,

identical in exact arithmetic. The kernels use the right-sized normal matrix, ``k = min(m,
n_active)``: the row form ``J J^T`` (m x m) when the active joints are at least as many as
the task rows (6-joint arms, redundant arms), the column form ``J^T J`` (n x n) when they
are fewer (a 5-joint arm on a full pose, where ``J J^T`` is always singular). Either way
the k x k matrix is positive definite away from a singularity and its eigenvalues are the
squares of the k singular values. It is never inverted explicitly.

The damping follows the smallest of those singular values, ``sigma_min``
(Maciejewski & Klein / Chiaverini):

    lam^2 = (1 - (sigma_min / eps)^2) lam_max^2   if sigma_min < eps,   else 0,

so steps are exact Gauss-Newton steps away from singularities, and near one the gain
``sigma / (sigma^2 + lam^2)`` is at most ``1 / (2 lam)`` as ``sigma -> 0``. ``eps`` and
``lam_max`` carry the units of ``J`` (m/rad for position rows).

Columns of joints that are held (``active`` False) are removed from ``J`` and get
``dq = 0``. :func:`damped_step_into` always takes the eigen-decomposition
(:mod:`ros_ik.kinematics.symmetric_eigen`) and reports ``sigma_min``; the IK solver's
inner loop uses :func:`fast_damped_step_into`: the same step, but it first tests
``sigma_min > eps`` with a Cholesky factorisation and, when so (``lam = 0``), solves with
it instead. Both write into a :class:`DlsWorkspace`, so a step allocates nothing.
"""

from dataclasses import dataclass
from typing import NamedTuple, Optional, Tuple

import numba
import numpy as np

from ros_ik.kinematics.symmetric_eigen import symmetric_eigen_into

# Eigenvalues of the normal matrix below this fraction of the largest are structural zeros.
STRUCTURAL_ZERO = 1e-12
# Task rows of a pose (3 position, 3 rotation): the largest normal matrix is 6 x 6.
MAX_TASK_ROWS = 6


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


class DlsWorkspace(NamedTuple):
    """Scratch of one step: the k x k normal matrix, its factor, eigenvalues, right side."""

    normal: np.ndarray
    factor: np.ndarray
    eigenvalues: np.ndarray
    rhs: np.ndarray
    columns: np.ndarray


@numba.njit(cache=True, nogil=True)
def make_workspace(n: int) -> DlsWorkspace:
    """Return the scratch for steps of a chain with ``n`` joints (up to 6 task rows)."""
    return DlsWorkspace(np.empty((MAX_TASK_ROWS, MAX_TASK_ROWS)),
                        np.empty((MAX_TASK_ROWS, MAX_TASK_ROWS)), np.empty(MAX_TASK_ROWS),
                        np.empty(MAX_TASK_ROWS), np.empty(n, dtype=np.int64))


@numba.njit(cache=True, nogil=True)
def _normal_equations_into(J: np.ndarray, error: np.ndarray, active: np.ndarray,
                           work: DlsWorkspace) -> Tuple[int, int, bool]:
    """
    Write the k x k normal matrix and right side; return ``(k, n_active, column_form)``.

    Row form (``n_active >= m``): ``J_a J_a^T`` and ``e``; column form: ``J_a^T J_a`` and
    ``J_a^T e`` over the active columns, listed in ``work.columns``.
    """
    m, n = J.shape
    columns, normal, rhs = work.columns, work.normal, work.rhs
    n_active = 0
    for j in range(n):
        if active[j]:
            columns[n_active] = j
            n_active += 1
    if n_active < m:
        for a in range(n_active):
            ca = columns[a]
            total = 0.0
            for i in range(m):
                total += J[i, ca] * error[i]
            rhs[a] = total
            for b in range(a, n_active):
                cb = columns[b]
                total = 0.0
                for i in range(m):
                    total += J[i, ca] * J[i, cb]
                normal[a, b] = total
                normal[b, a] = total
        return n_active, n_active, True
    for i in range(m):
        rhs[i] = error[i]
        for r in range(i, m):
            total = 0.0
            for a in range(n_active):
                total += J[i, columns[a]] * J[r, columns[a]]
            normal[i, r] = total
            normal[r, i] = total
    return m, n_active, False


@numba.njit(cache=True, nogil=True)
def _step_from_solution(J: np.ndarray, work: DlsWorkspace, n_active: int, column_form: bool,
                        dq: np.ndarray) -> None:
    """Write ``dq`` from the normal equations' solution in ``work.rhs`` (0 for held joints)."""
    m = J.shape[0]
    columns, solution = work.columns, work.rhs
    dq[:] = 0.0
    for a in range(n_active):
        j = columns[a]
        if column_form:
            dq[j] = solution[a]
        else:
            total = 0.0
            for i in range(m):
                total += J[i, j] * solution[i]
            dq[j] = total


@numba.njit(cache=True, nogil=True)
def cholesky_into(M: np.ndarray, k: int, shift: float, L: np.ndarray) -> bool:
    """Factor the leading ``M - shift I = L L^T`` (k x k); return False if not definite."""
    for i in range(k):
        for c in range(i + 1):
            total = M[i, c] - (shift if i == c else 0.0)
            for p in range(c):
                total -= L[i, p] * L[c, p]
            if i == c:
                if total <= 0.0:
                    return False
                L[i, i] = np.sqrt(total)
            else:
                L[i, c] = total / L[c, c]
    return True


@numba.njit(cache=True, nogil=True)
def cholesky_solve_in_place(L: np.ndarray, k: int, b: np.ndarray) -> None:
    """Overwrite ``b`` (leading k) with ``(L L^T)^-1 b``: forward, then back substitution."""
    for i in range(k):
        total = b[i]
        for c in range(i):
            total -= L[i, c] * b[c]
        b[i] = total / L[i, i]
    for i in range(k - 1, -1, -1):
        total = b[i]
        for c in range(i + 1, k):
            total -= L[c, i] * b[c]
        b[i] = total / L[i, i]


@numba.njit(cache=True, nogil=True)
def spectral_solve_in_place(V: np.ndarray, sigma_squared: np.ndarray, cutoff: float,
                            damping_squared: float, rhs: np.ndarray,
                            scratch: np.ndarray) -> None:
    """
    Overwrite ``rhs`` (leading k) with ``sum_i v_i (v_i . rhs) / (sigma_i^2 + lam^2)``.

    ``V`` (k, k) holds the eigenvectors ``v_i`` of ``N = V diag(sigma^2) V^T`` in its
    columns, ``sigma_squared`` (k,) the eigenvalues; directions with ``sigma_i^2 <= cutoff``
    are left out (no gain). ``lam^2 = 0`` with ``cutoff = rcond^2 sigma_max^2`` gives the
    pseudo-inverse ``N^+ rhs``. ``scratch`` (k,) is overwritten.
    """
    k = sigma_squared.shape[0]
    for i in range(k):
        projected = 0.0
        if sigma_squared[i] > cutoff:
            for r in range(k):
                projected += V[r, i] * rhs[r]
            projected /= sigma_squared[i] + damping_squared
        scratch[i] = projected
    for r in range(k):
        total = 0.0
        for i in range(k):
            total += V[r, i] * scratch[i]
        rhs[r] = total


@numba.njit(cache=True, nogil=True)
def _eigen_solve_in_place(work: DlsWorkspace, k: int, singular_value_threshold: float,
                          max_damping: float, damping_scale: float,
                          error_damping_squared: float) -> Tuple[float, float]:
    """
    Overwrite ``work.rhs`` with ``(N + lam^2 I)^-1 rhs``; return ``(sigma_min, lam)``.

    With ``N = V diag(sigma^2) V^T`` (ascending), ``sigma_min = sigma_1`` and
    ``lam^2(sigma_min) * damping_scale``; directions with ``sigma^2`` structurally zero
    (below ``1e-12 sigma_max^2``) get no gain: the right side has no part along them.
    """
    normal, V, sigma_squared, rhs = (work.normal[:k, :k], work.factor[:k, :k],
                                     work.eigenvalues[:k], work.rhs)
    symmetric_eigen_into(normal, sigma_squared, V)
    sigma_min = np.sqrt(max(sigma_squared[0], 0.0))
    ratio = min(sigma_min / singular_value_threshold, 1.0)
    damping_squared = ((1.0 - ratio * ratio) * max_damping * max_damping * damping_scale
                       + error_damping_squared)
    # the decomposed matrix is no longer needed: its first row is the scratch
    spectral_solve_in_place(V, sigma_squared, STRUCTURAL_ZERO * sigma_squared[k - 1],
                            damping_squared, rhs, work.normal[0, :k])
    return sigma_min, np.sqrt(damping_squared)


@numba.njit(cache=True, nogil=True)
def damped_step_into(J: np.ndarray, error: np.ndarray, active: np.ndarray,
                     singular_value_threshold: float, max_damping: float,
                     damping_scale: float, dq: np.ndarray,
                     work: DlsWorkspace) -> Tuple[float, float]:
    """
    Write the damped step for ``J dq = error`` into ``dq`` (n,); return ``(sigma_min, lam)``.

    ``J`` (m, n), m <= 6, ``error`` (m,), ``active`` (n,) bool: held joints (False) are
    left out of ``J`` and get ``dq = 0``; ``damping_scale`` in [0, 1] multiplies ``lam^2``
    (the IK solver shrinks it with the error). No active joint: ``dq = 0``, ``sigma_min =
    0``.
    """
    k, n_active, column_form = _normal_equations_into(J, error, active, work)
    if k == 0:
        dq[:] = 0.0
        return 0.0, max_damping * np.sqrt(damping_scale)
    sigma_min, damping = _eigen_solve_in_place(work, k, singular_value_threshold,
                                               max_damping, damping_scale, 0.0)
    _step_from_solution(J, work, n_active, column_form, dq)
    return sigma_min, damping


@numba.njit(cache=True, nogil=True)
def fast_damped_step_into(J: np.ndarray, error: np.ndarray, active: np.ndarray,
                          singular_value_threshold: float, max_damping: float,
                          damping_scale: float, dq: np.ndarray, work: DlsWorkspace,
                          error_damping_squared: float = 0.0) -> float:
    """
    Write the same step as :func:`damped_step_into`; return ``lam`` (not ``sigma_min``).

    ``error_damping_squared`` is added to ``lam^2`` whatever ``sigma_min`` (the IK
    solver's Levenberg-Marquardt term).

    ``sigma_min > eps`` exactly when ``N - eps^2 I`` has a Cholesky factor (N the k x k
    normal matrix); then ``lam = 0`` and the step is two triangular solves with the factor
    of ``N`` (~20x cheaper than the eigen-decomposition, which runs only near a
    singularity).
    """
    k, n_active, column_form = _normal_equations_into(J, error, active, work)
    threshold_squared = singular_value_threshold * singular_value_threshold
    if k == 0:
        dq[:] = 0.0
        return max_damping * np.sqrt(damping_scale)
    damping = np.sqrt(error_damping_squared)
    # sigma_min > eps: the singularity damping is 0; factor N + error_damping_squared I.
    if (cholesky_into(work.normal, k, threshold_squared, work.factor)
            and cholesky_into(work.normal, k, -error_damping_squared, work.factor)):
        cholesky_solve_in_place(work.factor, k, work.rhs)
    else:
        damping = _eigen_solve_in_place(work, k, singular_value_threshold, max_damping,
                                        damping_scale, error_damping_squared)[1]
    _step_from_solution(J, work, n_active, column_form, dq)
    return damping


def damped_step(J: np.ndarray, error: np.ndarray, schedule: DampingSchedule,
                active: Optional[np.ndarray] = None, damping_scale: float = 1.0) -> DlsStep:
    """
    Return the singularity-damped least-squares step for ``J dq = error``.

    ``J``: (m, n), m <= 6; ``error``: (m,); ``active``: optional boolean (n,) mask of the
    joints that may move (all by default); ``damping_scale``: factor in [0, 1] on ``lam^2``.
    """
    J = np.ascontiguousarray(J, dtype=float)
    active = np.ones(J.shape[1], dtype=bool) if active is None else np.asarray(active, bool)
    dq = np.empty(J.shape[1])
    sigma_min, damping = damped_step_into(J, np.ascontiguousarray(error, dtype=float), active,
                                          schedule.singular_value_threshold,
                                          schedule.max_damping, damping_scale, dq,
                                          make_workspace(J.shape[1]))
    return DlsStep(dq=dq, sigma_min=sigma_min, damping=damping)
