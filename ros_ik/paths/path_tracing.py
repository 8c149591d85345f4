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
Joint positions along a Cartesian path by continuation: never a jump, never a branch flip.

From joints ``q`` on the path at path length ``s`` (tool pose ``X(s)``, base frame), the next
sample at ``s + h`` is predicted along the path's tangent and corrected by Newton steps:

* predictor ``q_pred = q + h q'``, ``q' = J^+ X'(s) + (I - J^+ J) z`` (``X' = [dp/ds; w]``,
  the task rows of the mask, rotation rows weighted; ``z`` pushes a redundant arm's joints
  away from their limits: ``z_j = -k (q_j - mid_j) / range_j^2``, no effect on the tool);
* corrector ``q <- q + J^+ e`` with ``e = [p(s+h) - p; log(R(s+h) R^T)]`` (task rows) until
  ``|e|`` is below ``NEWTON_TOLERANCE`` in metres and radians.

``J^+`` is the damped least-squares inverse (:func:`damped_step_into`) with a damping that
only acts within ``TRACE_DAMPING`` of a singularity. A step is kept when Newton converged,
the correction is at most ``PREDICTION_RATIO`` of the step (the joints' path is smooth on
the scale of ``h``) and no joint moved more than ``MAX_JOINT_STEP``; otherwise ``h`` is
halved. The step grows again by ``GROWTH`` up to ``max_step``. A correction that small
cannot reach another IK branch, so the joints follow one branch continuously.

It stops (status) where the path ends (``REACHED``), where a bounded joint reaches its limit
(``JOINT_LIMIT``: the crossing found to ``1e-9`` m of path by bisection, its sample exactly
there), or where ``h`` falls below ``min_step`` (``BLOCKED``: the branch cannot go on, a
singular configuration the path crosses or the edge of the reachable poses; the caller tells
which). Compiled with numba: a 0.4 m line takes a few hundred microseconds.
"""

import numba
import numpy as np

from ros_ik.kinematics.chain_kinematics import tip_pose_and_jacobian_into
from ros_ik.kinematics.damped_least_squares import damped_step_into, make_workspace
from ros_ik.kinematics.transforms import pose_error_into
from ros_ik.paths.path_geometry import path_pose_into, path_tangent_into

REACHED, JOINT_LIMIT, BLOCKED, FULL = 0, 1, 2, 3
NEWTON_TOLERANCE = 1e-10  # m and rad: a sample's tool pose is on the path to this
NEWTON_ITERATIONS = 8
PREDICTION_RATIO = 0.1  # the largest correction, relative to the step
MAX_JOINT_STEP = 0.05  # rad or m per step
GROWTH = 1.5
# Damped least squares for the tracing: exact unless sigma_min < 1e-6 (m/rad)
TRACE_DAMPING = (1e-6, 1e-6)
LIMIT_AVOIDANCE_GAIN = 0.5  # k of the null-space pull toward mid-range (redundant arms)
BISECTION_STEPS = 40
END_TOLERANCE = 1e-12  # m of path: the end is reached


@numba.njit(cache=True, nogil=True)
def _task_error(T_target: np.ndarray, T: np.ndarray, rows: np.ndarray, weights: np.ndarray,
                error6: np.ndarray, out: np.ndarray) -> float:
    """Write the weighted task rows of the pose error into ``out``; return its max norm."""
    pose_error_into(T_target, T, error6)
    largest = 0.0
    for r in range(rows.shape[0]):
        out[r] = error6[rows[r]] * weights[r]
        largest = max(largest, abs(error6[rows[r]]))
    return largest


@numba.njit(cache=True, nogil=True)
def _tip_and_task_rows(q, A, prismatic, G_tip, rows, weights, T, J_rows) -> None:
    """Write the tip pose ``T`` (4, 4) and the weighted task rows ``J_rows`` (m, n) at ``q``."""
    n = q.shape[0]
    J = np.empty((6, n))
    tip_pose_and_jacobian_into(q, A, prismatic, G_tip, np.empty((n, 3, 4)), T, J)
    for r in range(rows.shape[0]):
        for j in range(n):
            J_rows[r, j] = J[rows[r], j] * weights[r]


@numba.njit(cache=True, nogil=True)
def solve_on_path(starts, P, H, R_ref, s, q, A, prismatic, G_tip, rows, weights,
                  iterations) -> bool:
    """
    Move ``q`` (n,) in place by Newton steps onto the path's pose at ``s``; return converged.

    Converged: every task row of the pose error below ``NEWTON_TOLERANCE``.
    """
    n = q.shape[0]
    m = rows.shape[0]
    T_target = np.empty((4, 4))
    path_pose_into(starts, P, H, R_ref, s, T_target)
    T = np.empty((4, 4))
    J_rows = np.empty((m, n))
    error6 = np.empty(6)
    error = np.empty(m)
    dq = np.empty(n)
    active = np.ones(n, dtype=np.bool_)
    work = make_workspace(n)
    for _ in range(iterations + 1):
        _tip_and_task_rows(q, A, prismatic, G_tip, rows, weights, T, J_rows)
        if _task_error(T_target, T, rows, weights, error6, error) < NEWTON_TOLERANCE:
            return True
        damped_step_into(J_rows, error, active, TRACE_DAMPING[0], TRACE_DAMPING[1], 1.0, dq,
                         work)
        for j in range(n):
            q[j] += dq[j]
    return False


@numba.njit(cache=True, nogil=True)
def joint_rate(starts, P, H, R_ref, s, q, A, prismatic, G_tip, rows, weights, lower, upper,
               redundant, out, from_below=False) -> float:
    """
    Write ``q'(s)`` (n,): rad (or m) per m of path at ``q`` on the path; return ``sigma_min``.

    ``q' = J^+ X'(s) + (I - J^+ J) z`` (module docstring; ``z`` only when ``redundant``);
    ``from_below``: the path's rate arriving at ``s`` (at a rest point, a stretch's end).
    """
    n = q.shape[0]
    m = rows.shape[0]
    J_rows = np.empty((m, n))
    tangent = np.empty(6)
    rhs = np.empty(m)
    active = np.ones(n, dtype=np.bool_)
    work = make_workspace(n)
    _tip_and_task_rows(q, A, prismatic, G_tip, rows, weights, np.empty((4, 4)), J_rows)
    path_tangent_into(starts, P, H, R_ref, s, tangent, from_below)
    for r in range(m):
        rhs[r] = tangent[rows[r]] * weights[r]
    sigma_min, _ = damped_step_into(J_rows, rhs, active, TRACE_DAMPING[0], TRACE_DAMPING[1],
                                    1.0, out, work)
    if redundant:
        z = np.zeros(n)
        for j in range(n):
            span = upper[j] - lower[j]
            if np.isfinite(span) and span > 0.0:
                z[j] = -LIMIT_AVOIDANCE_GAIN * (q[j] - 0.5 * (lower[j] + upper[j])) / (
                    span * span)
        Jz = np.zeros(m)
        for r in range(m):
            for j in range(n):
                Jz[r] += J_rows[r, j] * z[j]
        projected = np.empty(n)
        damped_step_into(J_rows, Jz, active, TRACE_DAMPING[0], TRACE_DAMPING[1], 1.0,
                         projected, work)
        for j in range(n):
            out[j] += z[j] - projected[j]
    return sigma_min


@numba.njit(cache=True, nogil=True)
def _outside(q: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> int:
    """Return the first joint of ``q`` outside its bounds, or -1."""
    for j in range(q.shape[0]):
        if q[j] < lower[j] or q[j] > upper[j]:
            return j
    return -1


@numba.njit(cache=True, nogil=True)
def _limit_crossing(starts, P, H, R_ref, s, q, h, q_next, joint, A, prismatic, G_tip, rows,
                    weights, lower, upper, out_q) -> float:
    """
    Return where joint ``joint`` reaches its bound between ``s`` and ``s + h``.

    Bisection on the path length with samples solved on the path (Newton from the linear
    interpolation of ``q`` and ``q_next``); ``out_q`` receives the joints there, the joint
    clipped exactly onto its bound.
    """
    bound = upper[joint] if q_next[joint] > upper[joint] else lower[joint]
    low, high = 0.0, 1.0
    trial = np.empty(q.shape[0])
    out_q[:] = q
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (low + high)
        for j in range(q.shape[0]):
            trial[j] = q[j] + middle * (q_next[j] - q[j])
        if not solve_on_path(starts, P, H, R_ref, s + middle * h, trial, A, prismatic, G_tip,
                             rows, weights, NEWTON_ITERATIONS):
            high = middle
            continue
        if (trial[joint] - bound) * (q[joint] - bound) > 0.0:  # still inside
            low = middle
            out_q[:] = trial
        else:
            high = middle
    out_q[joint] = min(max(out_q[joint], lower[joint]), upper[joint])
    return s + low * h


@numba.njit(cache=True, nogil=True)
def trace_joints(starts, P, H, R_ref, s_start, s_end, q_start, A, prismatic, G_tip, rows,
                 weights, lower, upper, redundant, first_step, max_step, min_step,
                 out_s, out_q):
    """
    Trace joints from ``q_start`` (on the path at ``s_start``) toward ``s_end``.

    Writes samples into ``out_s`` (k,) and ``out_q`` (k, n), row 0 the start. Returns
    ``(count, status, s_stop, joint, sigma_min, step)``: the samples written, why it
    stopped (``REACHED``, ``JOINT_LIMIT``, ``BLOCKED`` or ``FULL``: the buffers are full,
    go on from the last sample), where (the last sample's path length), the joint at its
    limit (-1 otherwise), the smallest singular value of the weighted task Jacobian met and
    the step size to go on with.
    """
    n = q_start.shape[0]
    capacity = out_s.shape[0]
    q = q_start.copy()
    rate = np.empty(n)
    trial = np.empty(n)
    at_limit = np.empty(n)
    s = s_start
    out_s[0] = s
    out_q[0, :] = q
    count = 1
    h = first_step
    sigma_min = joint_rate(starts, P, H, R_ref, s, q, A, prismatic, G_tip, rows, weights,
                           lower, upper, redundant, rate)
    while s_end - s > END_TOLERANCE:
        if count >= capacity:
            return count, FULL, s, -1, sigma_min, h
        last = h >= s_end - s
        h = min(h, s_end - s)
        for j in range(n):
            trial[j] = q[j] + h * rate[j]
        converged = solve_on_path(starts, P, H, R_ref, s + h, trial, A, prismatic, G_tip, rows,
                                  weights, NEWTON_ITERATIONS)
        moved, corrected = 0.0, 0.0
        for j in range(n):
            moved = max(moved, abs(trial[j] - q[j]))
            corrected = max(corrected, abs(trial[j] - q[j] - h * rate[j]))
        if not converged or moved > MAX_JOINT_STEP or corrected > PREDICTION_RATIO * max(
                moved, 1e-9):
            h *= 0.5
            if h < min_step:
                return count, BLOCKED, s, -1, sigma_min, h
            continue
        joint = _outside(trial, lower, upper)
        if joint >= 0:
            s_limit = _limit_crossing(starts, P, H, R_ref, s, q, h, trial, joint, A, prismatic,
                                      G_tip, rows, weights, lower, upper, at_limit)
            if s_limit > s:
                out_s[count] = s_limit
                out_q[count, :] = at_limit
                count += 1
            return count, JOINT_LIMIT, max(s_limit, s), joint, sigma_min, h
        s = s_end if last else s + h
        q[:] = trial
        out_s[count] = s
        out_q[count, :] = q
        count += 1
        sigma_min = min(sigma_min, joint_rate(starts, P, H, R_ref, s, q, A, prismatic, G_tip,
                                              rows, weights, lower, upper, redundant, rate))
        h = min(h * GROWTH, max_step)
    return count, REACHED, s, -1, sigma_min, h
