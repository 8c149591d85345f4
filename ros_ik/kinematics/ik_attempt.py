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

1. ``dq = J_w^T (J_w J_w^T + s lam^2 I)^-1 W e`` (:func:`fast_damped_step_into`; the
   n x n form ``(J_w^T J_w + s lam^2 I)^-1 J_w^T W e`` when fewer joints than rows) with the
   singularity damping ``lam^2(sigma_min)`` scaled by ``s = min(1, |W e|^2 / e_ref^2)``
   (Levenberg-Marquardt style, like Sugihara's ``lam^2 ~ E``: large errors near a
   singularity stay damped, while the damping vanishes faster than the error, so a target
   at or next to a singularity is still reached instead of crawling), plus
   ``c |W e|^2`` everywhere (``error_damping``, Chan & Lawrence); joints at a bound that
   push outward are held and the step re-solved without them;
2. trust region: ``dq`` scaled so ``max |dq_j| <= radius`` (rad or m);
3. scaled to the joint limits keeping its direction, full-turn joints wrapped
   (:func:`apply_step_into`);
4. accepted if ``|W e|^2`` decreased (radius doubles, up to ``max_step``), else rejected
   (radius / 4).

The attempt ends converged (both tolerances met), stalled (no 1 % decrease for
``stall_iterations`` iterations) or at ``max_iterations``. :func:`search` runs a chunk of
attempts (the seed, then random restarts) in one call, in a workspace allocated once per
solve: nothing is allocated per iteration, and the solver pays one dispatch per chunk.
"""

from typing import NamedTuple, Tuple

import numba
import numpy as np

from ros_ik.kinematics.chain_kinematics import tip_pose_and_jacobian_into
from ros_ik.kinematics.damped_least_squares import (DlsWorkspace, fast_damped_step_into,
                                                    make_workspace)
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
    error_damping: float


# What the compiled search takes, as plain tuples and arrays (a numba call unpacks those
# several times faster than named tuples):
#   chain  = (A, prismatic, G_tip, lower, upper, wraps, sample_lower, sample_upper), per solver
#   target = (T_base_target, rows, weights), per solve
#   settings: np.array(AttemptSettings), per options
#   chunk  = (first, max_attempts, max_iterations, stop_at_first, random_seed), see search()


@numba.njit(cache=True, nogil=True)
def _problem_of(chain, target) -> AttemptProblem:
    """Return the named problem of the ``chain`` and ``target`` tuples."""
    return AttemptProblem(chain[0], chain[1], chain[2], chain[3], chain[4], chain[5],
                          target[0], target[1], target[2])


@numba.njit(cache=True, nogil=True)
def _settings_of(values: np.ndarray) -> AttemptSettings:
    """Return the named settings of their array ``np.array(AttemptSettings)``."""
    return AttemptSettings(values[0], values[1], values[2], values[3], values[4], values[5],
                           int(values[6]), int(values[7]), int(values[8]), values[9])


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


class AttemptWorkspace(NamedTuple):
    """Scratch of a search, allocated once per solve: poses, Jacobians, errors, steps."""

    G: np.ndarray
    T_base_tip: np.ndarray
    J: np.ndarray
    R_error: np.ndarray
    full_error: np.ndarray
    q: np.ndarray
    q_trial: np.ndarray
    error: np.ndarray
    trial_error: np.ndarray
    J_task: np.ndarray
    trial_J: np.ndarray
    dq: np.ndarray
    all_active: np.ndarray
    held: np.ndarray
    free: np.ndarray
    dls: DlsWorkspace


@numba.njit(cache=True, nogil=True)
def make_attempt_workspace(n: int, m: int) -> AttemptWorkspace:
    """Return the scratch of a search on ``n`` joints and ``m`` task rows."""
    return AttemptWorkspace(np.empty((n, 3, 4)), np.empty((4, 4)), np.empty((6, n)),
                            np.empty((3, 3)), np.empty(6), np.empty(n), np.empty(n),
                            np.empty(m), np.empty(m), np.empty((m, n)), np.empty((m, n)),
                            np.empty(n), np.ones(n, dtype=np.bool_),
                            np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_),
                            make_workspace(n))


@numba.njit(cache=True, nogil=True)
def _task_error_at(q: np.ndarray, problem: AttemptProblem, work: AttemptWorkspace,
                   error: np.ndarray, J_task: np.ndarray) -> float:
    """Write ``W e`` and ``W J`` at ``q`` into ``error``, ``J_task``; return ``|W e|^2``."""
    return task_error_and_jacobian_into(q, problem, work.G, work.T_base_tip, work.J,
                                        work.R_error, work.full_error, error, J_task)


@numba.njit(cache=True, nogil=True)
def run_attempt(q_start: np.ndarray, problem: AttemptProblem, settings: AttemptSettings,
                work: AttemptWorkspace
                ) -> Tuple[np.ndarray, np.ndarray, float, int, bool, float]:
    """
    Iterate from ``q_start`` (n,); return ``(q, W e, |W e|^2, iterations, converged, lam)``.

    ``W e`` (m,) is the weighted error at ``q`` and ``lam`` the damping of the last step
    (0 if none was taken). ``q`` and ``W e`` are workspace arrays: copy them before the
    next attempt.
    """
    n = q_start.shape[0]
    q, q_trial = work.q, work.q_trial
    error, trial_error = work.error, work.trial_error
    J_task, trial_J = work.J_task, work.trial_J
    dq, held, free = work.dq, work.held, work.free
    for j in range(n):
        q[j] = min(max(q_start[j], problem.lower[j]), problem.upper[j])
    cost = _task_error_at(q, problem, work, error, J_task)
    radius = settings.max_step
    stalled_for = 0
    iterations = 0
    damping = 0.0
    while True:
        if _converged(error, settings):
            return q, error, cost, iterations, True, damping
        if stalled_for >= settings.stall_iterations or iterations >= settings.max_iterations:
            return q, error, cost, iterations, False, damping
        damping_scale = _damping_scale(cost, settings)
        damping = fast_damped_step_into(J_task, error, work.all_active,
                                        settings.singular_value_threshold,
                                        settings.max_damping, damping_scale, dq, work.dls,
                                        settings.error_damping * cost)
        if held_at_bound_into(q, dq, problem.lower, problem.upper, problem.wraps, held):
            for j in range(n):
                free[j] = not held[j]
            damping = fast_damped_step_into(J_task, error, free,
                                            settings.singular_value_threshold,
                                            settings.max_damping, damping_scale, dq,
                                            work.dls, settings.error_damping * cost)
        largest = 0.0
        for j in range(n):
            largest = max(largest, abs(dq[j]))
        if largest > radius:
            dq *= radius / largest
        apply_step_into(q, dq, problem.lower, problem.upper, problem.wraps, q_trial)
        trial_cost = _task_error_at(q_trial, problem, work, trial_error, trial_J)
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


# Columns of a search outcome row after the n joint values.
COST, POSITION_ERROR, ORIENTATION_ERROR, DAMPING = 0, 1, 2, 3
OUTCOME_COLUMNS = 4


@numba.njit(cache=True, nogil=True)
def _record_into(row: np.ndarray, q: np.ndarray, error: np.ndarray, cost: float,
                 damping: float, problem: AttemptProblem, settings: AttemptSettings) -> None:
    """
    Write ``[q, |W e|^2, |e_p|, |e_o|, lam]`` into ``row`` (n + 4,).

    ``|e_p|`` (m) and ``|e_o|`` (rad) are the unweighted error norms over the selected
    position and rotation rows (rotation rows carry the weight ``k``).
    """
    n = q.shape[0]
    row[:n] = q
    position_squared = orientation_squared = 0.0
    for i in range(error.shape[0]):
        if i < settings.n_position_rows:
            position_squared += error[i] * error[i]
        else:
            value = error[i] / problem.weights[i]
            orientation_squared += value * value
    row[n + COST] = cost
    row[n + POSITION_ERROR] = np.sqrt(position_squared)
    row[n + ORIENTATION_ERROR] = np.sqrt(orientation_squared)
    row[n + DAMPING] = damping


@numba.njit(cache=True, nogil=True)
def search(q_seed: np.ndarray, chain, target, settings_values: np.ndarray, chunk,
           solutions: np.ndarray, best: np.ndarray) -> Tuple[int, int, int]:
    """
    Run a chunk of attempts from ``q_seed`` (n,); return ``(attempts, iterations, found)``.

    ``chunk = (first, max_attempts, max_iterations, stop_at_first, random_seed)``: attempt
    0 starts at the seed (clipped into the limits), attempt ``a > 0`` at a configuration
    drawn uniformly in ``[sample_lower, sample_upper]`` by a generator seeded with
    ``(random_seed, first)``; the call stops after ``max_attempts`` attempts, once
    ``max_iterations`` iterations are used, or (``stop_at_first``) at the first converged
    attempt. Each converged attempt's outcome (:func:`_record_into`) goes to a row of
    ``solutions[:found]``; ``best`` (n + 4,) keeps the lowest-cost unconverged outcome
    (compared with, and updated from, the cost it holds on entry).
    """
    problem, settings = _problem_of(chain, target), _settings_of(settings_values)
    first, max_attempts, max_iterations, stop_at_first, random_seed = chunk
    sample_lower, sample_upper = chain[6], chain[7]
    n = q_seed.shape[0]
    work = make_attempt_workspace(n, problem.rows.shape[0])
    start = np.empty(n)
    attempts = iterations = found = 0
    seeded = False
    while attempts < max_attempts and iterations < max_iterations:
        attempt = first + attempts
        if attempt == 0:
            start[:] = q_seed
        else:
            if not seeded:
                np.random.seed((random_seed * 1000003 + first) % 4294967296)
                seeded = True
            for j in range(n):
                start[j] = np.random.uniform(sample_lower[j], sample_upper[j])
        q, error, cost, used, converged, damping = run_attempt(start, problem, settings, work)
        attempts += 1
        iterations += used
        if converged:
            _record_into(solutions[found], q, error, cost, damping, problem, settings)
            found += 1
            if stop_at_first:
                break
        elif cost < best[n + COST]:
            _record_into(best, q, error, cost, damping, problem, settings)
    return attempts, iterations, found


@numba.njit(cache=True, nogil=True)
def search_first_of_each(q_seed: np.ndarray, chain, T_base_targets: np.ndarray,
                         rows: np.ndarray, weights: np.ndarray, settings_values: np.ndarray,
                         chunk, outcomes: np.ndarray, solved: np.ndarray) -> None:
    """
    Run one chunk of attempts per target of ``T_base_targets`` (k, 4, 4), to the first.

    ``chunk = (max_attempts, max_iterations, random_seed)`` per target (see :func:`search`:
    the seed first, then restarts). Writes each target's outcome, the converged one or the
    lowest-cost one, to ``outcomes[i]`` (n + 4,) and whether it converged to ``solved[i]``:
    a batch in one compiled call, the GIL released throughout.
    """
    max_attempts, max_iterations, random_seed = chunk
    n = q_seed.shape[0]
    found_outcome = np.empty((1, n + OUTCOME_COLUMNS))
    for i in range(T_base_targets.shape[0]):
        outcomes[i, :] = np.inf
        _, _, found = search(q_seed, chain, (T_base_targets[i], rows, weights),
                             settings_values, (0, max_attempts, max_iterations, 1,
                                               random_seed), found_outcome, outcomes[i])
        solved[i] = found > 0
        if found:
            outcomes[i, :] = found_outcome[0]
