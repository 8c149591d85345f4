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
The velocity damper: joint velocities that slow down near obstacles and stop short of them.

For a pair at clearance ``d`` with witness points ``p_a`` (on body a) and ``p_b`` (on body
b) and unit normal ``n`` (a toward b), the clearance changes at
``d' = n^T (J_b(p_b) - J_a(p_a)) qdot`` (point Jacobians, zero for the base). Within the
slow-down distance ``d_i`` the damper of Faverjon and Tournassoud (ICRA 1987) requires

    d' >= -xi (d - d_s) / (d_i - d_s),

so the approach speed falls linearly from ``xi`` (m/s) at ``d_i`` to 0 at the stop
distance ``d_s``. Between ``d_s`` and the padding the bound is 0 (no closer, and no push
back, which would make a lagging arm oscillate); a pair closer than the padding (in
collision) must move apart at ``xi (padding - d) / (d_i - d_s)``. These
rows ``A qdot >= b`` are added to the damped least squares: of the velocities meeting them,
the one closest to the unconstrained ``qdot_0 = (J^T J + lam^2 I)^-1 J^T v`` in the metric
``H = J^T J + lam^2 I`` (which is the damped least-squares cost itself), found by an active
set on the few rows. The tool then slides along the obstacle instead of halting.
"""

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numba
import numpy as np
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.contact import Contact
from ros_ik.kinematics.damped_least_squares import cholesky_into, cholesky_solve_in_place

ACTIVE_SET_REGULARISATION = 1e-12
FEASIBILITY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class DamperRule:
    """The damper's distances (m) and approach speed ``xi`` (m/s); see the module docstring."""

    stop_distance: float
    slowdown_distance: float
    approach_speed: float
    padding: float

    def bound(self, distance: np.ndarray) -> np.ndarray:
        """Return ``b`` (k,): the least clearance rates (m/s) allowed at ``distance`` (k,, m)."""
        return _bounds(np.ascontiguousarray(distance, dtype=float), self.stop_distance,
                       self.slowdown_distance, self.approach_speed, self.padding)


@numba.njit(cache=True, nogil=True)
def _bounds(distance: np.ndarray, stop_distance: float, slowdown_distance: float,
            approach_speed: float, padding: float) -> np.ndarray:
    """
    Return :meth:`DamperRule.bound` of the distances (k,).

    ``b = xi (padding - d) / span`` in collision (``d < padding``: move apart), else
    ``b = -xi max(d - d_s, 0) / span``; ``span = d_i - d_s`` (at least 1 nm).
    """
    span = max(slowdown_distance - stop_distance, 1e-9)
    b = np.empty(distance.shape[0])
    for i in range(distance.shape[0]):
        d = distance[i]
        if d < padding:
            b[i] = approach_speed * (padding - d) / span
        else:
            excess = d - stop_distance
            if excess < 0.0:  # NaN stays NaN
                excess = 0.0
            b[i] = -approach_speed * excess / span
    return b


def damper_rows(checker: CollisionChecker, q: np.ndarray, contacts: Sequence[Contact],
                rule: DamperRule) -> Tuple[np.ndarray, np.ndarray]:
    """
    Return ``A`` (k, n) and ``b`` (k,) of the damper constraints ``A qdot >= b``.

    ``A``: the contacts' clearance rates (:meth:`CollisionChecker.clearance_rates`, kept
    for an arm at rest), ``b``: :meth:`DamperRule.bound` of their distances.
    """
    return (checker.clearance_rates(q, contacts),
            rule.bound([contact.distance for contact in contacts]))


def damped_velocity(checker: CollisionChecker, q: np.ndarray, qdot: np.ndarray,
                    H: np.ndarray, rule: DamperRule,
                    certain_above: float) -> Tuple[np.ndarray, List[Contact]]:
    """
    Return the velocity closest to ``qdot`` in ``H`` meeting every row; the pairs measured.

    Rows are built only where they may bind. Pair p's clearance changes at most at
    ``|x| . W_p`` (``CollisionModel.pair_weights``, m/s); with ``d_low`` a lower bound of
    its clearance (``CollisionChecker.clearance_bounds``: the proxy's or what coal's last
    measure still guarantees; then coal's exact one), a pair with
    ``d_low > certain_above`` (out of collision and of the stop tolerance) and
    ``|x| . W_p <= -b(d_low)`` meets its row at ``x`` whatever its witnesses. The others
    are measured (coal) and, if the exact clearance does not prove it either, get their
    row; the constrained velocity is solved again, until the solution meets every pair
    without a row by that bound: it then solves the problem with all rows (optimal for a
    subset of the constraints, feasible for all). Near rest only the proxies and coal's
    distances of close pairs are computed. The contacts returned are every pair measured
    closer than the slow-down distance (each pair closer than ``certain_above`` is one).
    """
    within = rule.slowdown_distance
    lower = checker.clearance_bounds(q, within)
    candidates = np.flatnonzero(lower < within)
    lower = lower[candidates]
    weights = checker.model.pair_weights[candidates]
    measured: List[Optional[Contact]] = [None] * len(candidates)
    settled = np.zeros(len(candidates), dtype=bool)  # has its row, or is out of reach
    A, b = np.zeros((0, len(q))), np.zeros(0)
    qdot = np.ascontiguousarray(qdot, dtype=float)  # one compiled signature
    H = np.ascontiguousarray(H, dtype=float)
    x = qdot.copy()
    allowed_rate = -rule.bound(lower)  # m/s each pair may close at without its row

    while True:
        unmeasured = [i for i in _unproven(settled, lower, certain_above, weights, x,
                                           allowed_rate) if measured[i] is None]
        if unmeasured:
            for i, contact in zip(unmeasured, checker.exact_many(q, candidates[unmeasured])):
                measured[i], lower[i] = contact, contact.distance
                settled[i] = contact.distance >= within  # beyond the slow-down distance
            allowed_rate = -rule.bound(lower)
        need_row = _unproven(settled, lower, certain_above, weights, x, allowed_rate)
        if not len(need_row):
            break
        rows, bounds = damper_rows(checker, q, [measured[i] for i in need_row], rule)
        settled[need_row] = True
        A, b = np.vstack([A, rows]), np.concatenate([b, bounds])
        x = constrained_velocity(qdot, H, A, b)
    return x, [contact for contact in measured if contact is not None
               and contact.distance < within]


@numba.njit(cache=True, nogil=True)
def _unproven(settled: np.ndarray, lower: np.ndarray, certain_above: float,
              weights: np.ndarray, x: np.ndarray, allowed_rate: np.ndarray) -> np.ndarray:
    """
    Return the pairs (indices) without a row that their bound does not prove at ``x``.

    Pair i is proven when ``lower_i > certain_above`` and ``|x| . W_i <= allowed_rate_i``
    (:func:`damped_velocity`); ``settled`` marks pairs with a row or out of reach.
    """
    found = np.empty(lower.shape[0], dtype=np.int64)
    count = 0
    for i in range(lower.shape[0]):
        if settled[i]:
            continue
        rate = 0.0
        for j in range(x.shape[0]):
            rate += weights[i, j] * abs(x[j])
        if not (lower[i] > certain_above and rate <= allowed_rate[i]):
            found[count] = i
            count += 1
    return found[:count]


@numba.njit(cache=True, nogil=True)
def constrained_velocity(qdot: np.ndarray, H: np.ndarray, A: np.ndarray,
                         b: np.ndarray) -> np.ndarray:
    """
    Return ``argmin (x - qdot)^T H (x - qdot)`` subject to ``A x >= b`` (active set).

    Adds the most violated row, solves the equality-constrained problem
    ``x = qdot + H^-1 A_S^T mu`` with ``(A_S H^-1 A_S^T) mu = b_S - A_S qdot``, drops rows
    with a negative multiplier, until no row is violated (at most 2k rounds). ``H``
    (n, n) symmetric positive definite; both systems by Cholesky. A row that is a
    combination of the active ones (its system not definite, as more rows than joints
    can make it) ends the search; rows still violated then are met by scaling ``x``
    toward zero, ``x <- s x`` with ``s = min_r b_r / (A_r x)`` over them: every row
    with ``b_r <= 0`` (a pair not in collision: zero velocity meets it) then holds, as on
    the segment from zero to ``x`` each row's ``A_r x`` is linear. Feasible, though no
    longer the closest velocity (about 0.6 % of random problems with more rows than
    joints).
    """
    x = _active_set_velocity(qdot, H, A, b)
    scale = 1.0
    for r in range(b.shape[0]):
        rate = _dot(A[r], x)
        if b[r] <= 0.0 and rate < b[r] - FEASIBILITY_TOLERANCE:
            scale = min(scale, b[r] / rate)
    return x * scale


@numba.njit(cache=True, nogil=True)
def _active_set_velocity(qdot: np.ndarray, H: np.ndarray, A: np.ndarray,
                         b: np.ndarray) -> np.ndarray:
    """
    Return the active set's velocity (:func:`constrained_velocity`), rows maybe violated.

    The search ends early, with rows violated, at a row that is a combination of the
    active ones (its system not definite).
    """
    n, k = qdot.shape[0], b.shape[0]
    x = qdot.copy()
    if k == 0:
        return x
    L = np.empty((n, n))
    if not cholesky_into(H, n, 0.0, L):
        return x
    H_inverse_At = np.empty((k, n))  # row r: H^-1 A_r
    for r in range(k):
        H_inverse_At[r] = A[r]
        cholesky_solve_in_place(L, n, H_inverse_At[r])
    active = np.empty(k, dtype=np.int64)
    count = 0
    M = np.empty((k, k))
    M_factor = np.empty((k, k))
    mu = np.empty(k)
    slack = np.empty(k)
    for _ in range(2 * k + 1):
        for r in range(k):
            slack[r] = _dot(A[r], x) - b[r]
        for a in range(count):
            slack[active[a]] = np.inf
        most_violated = int(np.argmin(slack))
        if slack[most_violated] >= -FEASIBILITY_TOLERANCE:
            break
        active[count] = most_violated
        count += 1
        while count > 0:
            for i in range(count):
                mu[i] = b[active[i]] - _dot(A[active[i]], qdot)
                for c in range(count):
                    M[i, c] = _dot(A[active[i]], H_inverse_At[active[c]])
                M[i, i] += ACTIVE_SET_REGULARISATION
            if not cholesky_into(M, count, 0.0, M_factor):
                return x
            cholesky_solve_in_place(M_factor, count, mu)
            weakest = int(np.argmin(mu[:count]))
            if mu[weakest] >= 0.0:
                x[:] = qdot
                for i in range(count):
                    x += mu[i] * H_inverse_At[active[i]]
                break
            active[weakest:count - 1] = active[weakest + 1:count]
            count -= 1
        if count == 0:
            x[:] = qdot
    return x


@numba.njit(cache=True, nogil=True)
def _dot(u: np.ndarray, v: np.ndarray) -> float:
    """Return ``u . v`` (no BLAS)."""
    total = 0.0
    for i in range(u.shape[0]):
        total += u[i] * v[i]
    return total
