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
The joint velocity of a tool twist (numba-compiled): steps 3-6 of a servo step.

Base frame, metres, radians, seconds. For the weighted task Jacobian ``J`` (m, n), the
weighted twist ``v`` (m,) and the joints ``q`` (n,):

3. ``qdot = J_a^T (J_a J_a^T + s lam^2 I)^-1 v`` over the free joints ``a``
   (:func:`ros_ik.kinematics.damped_least_squares.damped_step_into`: the singularity
   schedule ``lam(sigma_min)``, ``s`` the caller's damping scale);
4. joints at a bound whose velocity points outward are held and the step solved again
   without them, until no free joint pushes outward (at most n rounds);
5. with more free joints than rows, a secondary velocity ``qdot_0`` (each joint within
   ``LIMIT_MARGIN`` of its range from a bound pushed back toward the middle at up to
   ``LIMIT_AVOIDANCE_SPEED`` rad/s, by depth in the margin) added through the null-space
   projector ``(I - J_a^+ J_a) qdot_0``, which leaves the tool's twist unchanged. With
   ``J_a J_a^T = U diag(sigma^2) U^T``, ``J_a^+ y = J_a^T sum_i u_i (u_i . y) / sigma_i^2``
   over the ``sigma_i > PSEUDO_INVERSE_RCOND sigma_max`` (smaller directions count as
   null, as ``numpy.linalg.pinv`` with that ``rcond`` treats them);
6. ``qdot`` scaled by one factor (direction kept) so every ``|qdot_j| <= vmax_j``.

One call allocates only its (n,) scratch. :func:`task_twist_motion` first takes the task
rows of the geometric Jacobian and the twist and weights them, so a jog is one compiled
call; the servo step's kernel (:func:`ros_ik.kinematics.servo_step.servo_motion`) calls it
after building the twist.
"""

from typing import Tuple

import numba
import numpy as np

from ros_ik.kinematics.damped_least_squares import (damped_step_into, DlsWorkspace,
                                                    spectral_solve_in_place)
from ros_ik.kinematics.joint_limits import held_at_bound_into
from ros_ik.kinematics.symmetric_eigen import symmetric_eigen_into

LIMIT_MARGIN = 0.1  # fraction of a joint's range next to each bound
LIMIT_AVOIDANCE_SPEED = 0.3  # rad/s (m/s) of the secondary velocity at a bound
PSEUDO_INVERSE_RCOND = 1e-6


@numba.njit(cache=True, nogil=True)
def _limit_avoidance_into(q: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                          avoids_limits: np.ndarray, active: np.ndarray,
                          preferred: np.ndarray) -> bool:
    """
    Write the secondary velocity ``qdot_0`` (n,) on the free joints; return whether any.

    ``qdot_0_j = LIMIT_AVOIDANCE_SPEED (below_j - above_j)``: ``below_j`` in [0, 1] is how
    deep ``q_j`` lies in the margin next to its lower bound, ``above_j`` next to its upper.
    """
    any_preferred = False
    for j in range(q.shape[0]):
        preferred[j] = 0.0
        if not (avoids_limits[j] and active[j]):
            continue
        margin = LIMIT_MARGIN * (upper[j] - lower[j])
        below = min(max((lower[j] + margin - q[j]) / margin, 0.0), 1.0)
        above = min(max((q[j] - (upper[j] - margin)) / margin, 0.0), 1.0)
        preferred[j] = LIMIT_AVOIDANCE_SPEED * (below - above)
        any_preferred = any_preferred or preferred[j] != 0.0
    return any_preferred


@numba.njit(cache=True, nogil=True)
def _add_null_space_velocity(J: np.ndarray, active: np.ndarray, preferred: np.ndarray,
                             velocity: np.ndarray, work: DlsWorkspace) -> None:
    """
    Add ``(I - J_a^+ J_a) preferred`` to ``velocity`` on the free joints (row form only).

    ``work.normal``, ``work.factor`` and ``work.eigenvalues`` are overwritten.
    """
    m, n = J.shape
    normal, U, sigma_squared, y = (work.normal[:m, :m], work.factor[:m, :m],
                                   work.eigenvalues[:m], work.rhs)
    for i in range(m):
        total = 0.0
        for j in range(n):
            if active[j]:
                total += J[i, j] * preferred[j]
        y[i] = total
        for r in range(i, m):
            total = 0.0
            for j in range(n):
                if active[j]:
                    total += J[i, j] * J[r, j]
            normal[i, r] = total
            normal[r, i] = total
    symmetric_eigen_into(normal, sigma_squared, U)
    # (J_a J_a^T)^+ y; the decomposed matrix is no longer needed: its first row is scratch
    spectral_solve_in_place(U, sigma_squared,
                            PSEUDO_INVERSE_RCOND * PSEUDO_INVERSE_RCOND * sigma_squared[m - 1],
                            0.0, y, work.normal[0, :m])
    for j in range(n):
        if active[j]:
            total = 0.0
            for i in range(m):
                total += J[i, j] * y[i]
            velocity[j] += preferred[j] - total


@numba.njit(cache=True, nogil=True)
def twist_motion_into(J: np.ndarray, twist: np.ndarray, q: np.ndarray, lower: np.ndarray,
                      upper: np.ndarray, wraps: np.ndarray, avoids_limits: np.ndarray,
                      velocity_limits: np.ndarray, singular_value_threshold: float,
                      max_damping: float, damping_scale: float, velocity: np.ndarray,
                      work: DlsWorkspace) -> Tuple[float, float, float, bool]:
    """
    Write the joint velocity (n,) of steps 3-6; return ``(sigma_min, lam, scaling, held)``.

    ``J`` (m, n) and ``twist`` (m,) weighted and masked; ``wraps``: joints without bounds to
    hold at; ``avoids_limits``: joints the secondary velocity keeps from their bounds;
    ``scaling`` the factor of step 6; ``held`` whether a joint was held at a bound.
    """
    m, n = J.shape
    active = np.ones(n, dtype=np.bool_)
    outward = np.empty(n, dtype=np.bool_)
    preferred = np.empty(n)
    sigma_min, damping = 0.0, 0.0
    for _ in range(max(n, 1)):
        sigma_min, damping = damped_step_into(J, twist, active, singular_value_threshold,
                                              max_damping, damping_scale, velocity, work)
        n_active = 0
        for j in range(n):
            n_active += 1 if active[j] else 0
        if n_active > m and _limit_avoidance_into(q, lower, upper, avoids_limits, active,
                                                  preferred):
            _add_null_space_velocity(J, active, preferred, velocity, work)
        held_at_bound_into(q, velocity, lower, upper, wraps, outward)
        pushes_out = False
        for j in range(n):
            if outward[j] and active[j]:
                pushes_out = True
                active[j] = False
        if not pushes_out:
            break
    scaling = 1.0
    held = False
    for j in range(n):
        if not active[j]:
            velocity[j] = 0.0
            held = True
        speed = abs(velocity[j])
        if speed > velocity_limits[j]:
            scaling = min(scaling, velocity_limits[j] / speed)
    for j in range(n):
        velocity[j] *= scaling
    return sigma_min, damping, scaling, held


@numba.njit(cache=True, nogil=True)
def task_twist_motion(J: np.ndarray, twist: np.ndarray, rows: np.ndarray, weights: np.ndarray,
                      q: np.ndarray, lower: np.ndarray, upper: np.ndarray, wraps: np.ndarray,
                      avoids_limits: np.ndarray, velocity_limits: np.ndarray,
                      singular_value_threshold: float, max_damping: float,
                      damping_scale: float, work: DlsWorkspace
                      ) -> Tuple[np.ndarray, np.ndarray, float, float, float, bool]:
    """
    Return ``(qdot, J_task, sigma_min, lam, scaling, held)`` for a tool twist (6,).

    ``J`` (6, n): the geometric Jacobian at ``q`` (base frame); ``twist`` ``[v; w]`` (m/s,
    rad/s); ``rows`` (m,) the task rows kept, ``weights`` (6,) the rows' weights. The task
    is ``J_task = W J[rows]`` (m, n) and ``v_task = W twist[rows]`` (``W`` the kept rows'
    weights); ``qdot`` (n,) and the rest as :func:`twist_motion_into` returns them.
    """
    m, n = rows.shape[0], J.shape[1]
    J_task = np.empty((m, n))
    task_twist = np.empty(m)
    for i in range(m):
        weight = weights[rows[i]]
        task_twist[i] = weight * twist[rows[i]]
        for j in range(n):
            J_task[i, j] = weight * J[rows[i], j]
    velocity = np.empty(n)
    sigma_min, damping, scaling, held = twist_motion_into(
        J_task, task_twist, q, lower, upper, wraps, avoids_limits, velocity_limits,
        singular_value_threshold, max_damping, damping_scale, velocity, work)
    return velocity, J_task, sigma_min, damping, scaling, held
