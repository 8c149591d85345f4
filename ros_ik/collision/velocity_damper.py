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

from typing import Sequence, Tuple

import numpy as np
from ros_ik.collision.collision_checker import CollisionChecker, Contact

ACTIVE_SET_REGULARISATION = 1e-12
FEASIBILITY_TOLERANCE = 1e-9


def damper_rows(checker: CollisionChecker, q: np.ndarray, contacts: Sequence[Contact],
                stop_distance: float, slowdown_distance: float,
                approach_speed: float) -> Tuple[np.ndarray, np.ndarray]:
    """Return ``A`` (k, n) and ``b`` (k,) of the damper constraints ``A qdot >= b``."""
    model = checker.model
    padding = checker.padding
    n = model.kinematics.n_joints
    A = np.zeros((len(contacts), n))
    b = np.zeros(len(contacts))
    span = max(slowdown_distance - stop_distance, 1e-9)
    for row, contact in enumerate(contacts):
        element_a, element_b = (model.elements[index] for index in model.pairs[contact.pair])
        relative = (checker.point_jacobian(q, element_b.body, contact.p_b)
                    - checker.point_jacobian(q, element_a.body, contact.p_a))
        A[row] = contact.normal @ relative
        b[row] = -approach_speed * max(contact.distance - stop_distance, 0.0) / span
        if contact.distance < padding:  # in collision: move apart
            b[row] = approach_speed * (padding - contact.distance) / span
    return A, b


def constrained_velocity(qdot: np.ndarray, H: np.ndarray, A: np.ndarray,
                         b: np.ndarray) -> np.ndarray:
    """
    Return ``argmin (x - qdot)^T H (x - qdot)`` subject to ``A x >= b`` (active set).

    Adds the most violated row, solves the equality-constrained problem
    ``x = qdot + H^-1 A_S^T mu`` with ``(A_S H^-1 A_S^T) mu = b_S - A_S qdot``, drops rows
    with a negative multiplier, until no row is violated (at most 2k rounds).
    """
    x = np.asarray(qdot, dtype=float).copy()
    if not len(b):
        return x
    H_inverse_At = np.linalg.solve(H, A.T)
    active: list = []
    for _ in range(2 * len(b) + 1):
        slack = A @ x - b
        candidates = [row for row in np.argsort(slack)
                      if slack[row] < -FEASIBILITY_TOLERANCE and row not in active]
        if not candidates:
            break
        active.append(int(candidates[0]))
        while active:
            rows = np.array(active)
            M = A[rows] @ H_inverse_At[:, rows] + ACTIVE_SET_REGULARISATION * np.eye(len(rows))
            mu = np.linalg.solve(M, b[rows] - A[rows] @ qdot)
            if np.all(mu >= 0.0):
                x = qdot + H_inverse_At[:, rows] @ mu
                break
            active.remove(int(rows[int(np.argmin(mu))]))
        else:
            x = np.asarray(qdot, dtype=float).copy()
    return x
