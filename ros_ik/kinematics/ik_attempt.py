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
One IK attempt from one start configuration: the compiled inner loop of the solver.

Task error ``e = W [p_target - p_tip; log(R_target R_tip^T)]`` (m; rad) restricted to the
selected rows, with weights ``W`` (1 for position rows, ``k`` m/rad for rotation rows), and
the matching rows of ``W J``. Each iteration:

1. ``dq = J_w^T (J_w J_w^T + s lam^2 I)^-1 W e`` (:func:`fast_damped_step_into`) with the
   singularity damping ``lam^2(sigma_min)`` scaled by ``s = min(1, |W e|^2 / e_ref^2)``
   (Levenberg-Marquardt style, like Sugihara's ``lam^2 ~ E``: large errors near a
   singularity stay damped, while the damping vanishes faster than the error, so a target
   at or next to a singularity is still reached instead of crawling); joints at a bound
   that push outward are held and the step re-solved without them;
2. trust region: ``dq`` scaled so ``max |dq_j| <= radius`` (rad or m);
3. scaled to the joint limits keeping its direction, full-turn joints wrapped
   (:func:`apply_step_into`);
4. accepted if ``|W e|^2`` decreased (radius doubles, up to ``max_step``), else rejected
   (radius / 4).

The attempt ends converged (both tolerances met), stalled (no 1 % decrease for
``stall_iterations`` iterations) or at ``max_iterations``.
"""

from typing import NamedTuple, Tuple

import numba
import numpy as np

from ros_ik.kinematics.chain_kinematics import tip_pose_and_jacobian_into
from ros_ik.kinematics.damped_least_squares import damped_step_into, fast_damped_step_into
from ros_ik.kinematics.joint_limits import apply_step_into, held_at_bound_into
from ros_ik.kinematics.transforms import rotation_vector_into

# A step that lowers the cost by less than this fraction does not count as progress.
PROGRESS_FACTOR = 0.99


class AttemptProblem(NamedTuple):
    """Arrays of one IK problem: the chain (see ChainKinematics), its limits and the goal."""

    A: np.ndarray
    prismatic: np.ndarray
    G_tip: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    wraps: np.ndarray
    T_base_target: np.ndarray
    rows: np.ndarray
    weights: np.ndarray


class AttemptSettings(NamedTuple):
    """Scalar settings of an attempt; tolerances squared on the weighted errors."""

    singular_value_threshold: float
    max_damping: float
    damping_error_scale: float
    max_step: float
    position_tolerance_squared: float
    orientation_tolerance_squared: float
    n_position_rows: int
    max_iterations: int
    stall_iterations: int


@numba.njit(cache=True, nogil=True)
def task_error_and_jacobian_into(q: np.ndarray, problem: AttemptProblem, G: np.ndarray,
                                 T_base_tip: np.ndarray, J: np.ndarray, R_error: np.ndarray,
                                 full_error: np.ndarray, error: np.ndarray,
                                 J_task: np.ndarray) -> float:
    """
    Write ``W e`` (m,) and ``W J`` (m, n) of the selected rows at ``q``; return ``|W e|^2``.

    ``G``, ``T_base_tip``, ``J``, ``R_error`` (3, 3) and ``full_error`` (6,) are scratch.
    """
    tip_pose_and_jacobian_into(q, problem.A, problem.prismatic, problem.G_tip, G,
                               T_base_tip, J)
    T_target = problem.T_base_target
    for r in range(3):
        full_error[r] = T_target[r, 3] - T_base_tip[r, 3]
        for k in range(3):
            R_error[r, k] = (T_target[r, 0] * T_base_tip[k, 0] + T_target[r, 1]
                             * T_base_tip[k, 1] + T_target[r, 2] * T_base_tip[k, 2])
    rotation_vector_into(R_error, full_error[3:])
    cost = 0.0
    for i in range(problem.rows.shape[0]):
        weight = problem.weights[i]
        error[i] = full_error[problem.rows[i]] * weight
        cost += error[i] * error[i]
        for j in range(q.shape[0]):
            J_task[i, j] = J[problem.rows[i], j] * weight
    return cost


@numba.njit(cache=True, nogil=True)
def _converged(error: np.ndarray, settings: AttemptSettings) -> bool:
    """Return whether the weighted position and orientation rows meet both tolerances."""
    position_squared = 0.0
    orientation_squared = 0.0
    for i in range(error.shape[0]):
        if i < settings.n_position_rows:
            position_squared += error[i] * error[i]
        else:
            orientation_squared += error[i] * error[i]
    return (position_squared <= settings.position_tolerance_squared
            and orientation_squared <= settings.orientation_tolerance_squared)


@numba.njit(cache=True, nogil=True)
def _damping_scale(cost: float, settings: AttemptSettings) -> float:
    """Return ``s = min(1, |W e|^2 / e_ref^2)``, the factor on the singularity damping."""
    return min(1.0, cost / settings.damping_error_scale ** 2)


@numba.njit(cache=True, nogil=True)
def run_attempt(q_start: np.ndarray, problem: AttemptProblem, settings: AttemptSettings
                ) -> Tuple[np.ndarray, float, int, bool]:
    """Iterate from ``q_start`` (n,); return ``(q, |W e|^2, iterations, converged)``."""
    n = q_start.shape[0]
    m = problem.rows.shape[0]
    G = np.empty((n, 3, 4))
    T_base_tip = np.empty((4, 4))
    J = np.empty((6, n))
    R_error = np.empty((3, 3))
    full_error = np.empty(6)
    q, q_trial = q_start.copy(), np.empty(n)
    error, trial_error = np.empty(m), np.empty(m)
    J_task, trial_J = np.empty((m, n)), np.empty((m, n))
    dq = np.empty(n)
    all_active = np.ones(n, dtype=np.bool_)
    held = np.empty(n, dtype=np.bool_)
    cost = task_error_and_jacobian_into(q, problem, G, T_base_tip, J, R_error, full_error,
                                        error, J_task)
    radius = settings.max_step
    stalled_for = 0
    iterations = 0
    while True:
        if _converged(error, settings):
            return q, cost, iterations, True
        if stalled_for >= settings.stall_iterations or iterations >= settings.max_iterations:
            return q, cost, iterations, False
        damping_scale = _damping_scale(cost, settings)
        fast_damped_step_into(J_task, error, all_active, settings.singular_value_threshold,
                              settings.max_damping, damping_scale, dq)
        if held_at_bound_into(q, dq, problem.lower, problem.upper, problem.wraps, held):
            fast_damped_step_into(J_task, error, ~held, settings.singular_value_threshold,
                                  settings.max_damping, damping_scale, dq)
        largest = np.abs(dq).max()
        if largest > radius:
            dq *= radius / largest
        apply_step_into(q, dq, problem.lower, problem.upper, problem.wraps, q_trial)
        trial_cost = task_error_and_jacobian_into(q_trial, problem, G, T_base_tip, J,
                                                  R_error, full_error, trial_error, trial_J)
        iterations += 1
        if trial_cost < cost:
            stalled_for = 0 if trial_cost < PROGRESS_FACTOR * cost else stalled_for + 1
            q, q_trial = q_trial, q
            error, trial_error = trial_error, error
            J_task, trial_J = trial_J, J_task
            cost = trial_cost
            radius = min(2.0 * radius, settings.max_step)
        else:
            stalled_for += 1
            radius *= 0.25


@numba.njit(cache=True, nogil=True)
def errors_and_damping_at(q: np.ndarray, problem: AttemptProblem, settings: AttemptSettings
                          ) -> Tuple[float, float, float, float]:
    """
    Return the final report at ``q`` (n,): errors and the damping the solver would use.

    ``(|e_p|, |e_o|, sigma_min, lam)``: unweighted position (m) and orientation (rad) error
    norms over the selected rows, and ``sigma_min``, ``lam`` of the damped step at ``q``.
    """
    n, m = q.shape[0], problem.rows.shape[0]
    error, J_task, full_error = np.empty(m), np.empty((m, n)), np.empty(6)
    cost = task_error_and_jacobian_into(q, problem, np.empty((n, 3, 4)), np.empty((4, 4)),
                                        np.empty((6, n)), np.empty((3, 3)), full_error,
                                        error, J_task)
    position_squared = 0.0
    orientation_squared = 0.0
    for i in range(m):
        row = problem.rows[i]
        if row < 3:
            position_squared += full_error[row] * full_error[row]
        else:
            orientation_squared += full_error[row] * full_error[row]
    sigma_min, damping = damped_step_into(
        J_task, error, np.ones(n, dtype=np.bool_), settings.singular_value_threshold,
        settings.max_damping, _damping_scale(cost, settings), np.empty(n))
    return np.sqrt(position_squared), np.sqrt(orientation_squared), sigma_min, damping
