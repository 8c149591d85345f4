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
Synchronised jerk-limited plans of all joints, compiled: plan, sample, stop (numba kernels).

A plan moves every joint from its state (position, velocity, acceleration; arrays (n,)) to
rest at its target along its fastest jerk-limited (double-S) profile
(:mod:`ros_ik.trajectory.jerk_profile`: jerks and durations of 7 segments per joint), the
faster joints stretched to end with the slowest one (``T = max_j T_j``) when synchronised.
The kernels write into arrays they are given, so a control cycle allocates little; the
:class:`ros_ik.trajectory.online_generator.OnlineGenerator` is their Python face. Units:
the chain's (rad or m), seconds.
"""

import numba
import numpy as np

from ros_ik.trajectory.jerk_profile import (fastest_profile, profile_in_time, sample_profile,
                                            SEGMENTS, velocity_change)

# Joints whose fastest time is within this of the common time are not stretched (s).
SYNC_TOLERANCE = 1e-9


@numba.njit(cache=True, nogil=True)
def synchronized_plan_into(p: np.ndarray, v: np.ndarray, a: np.ndarray, target: np.ndarray,
                           v_max: np.ndarray, a_max: np.ndarray, j_max: np.ndarray,
                           synchronize: bool, jerks: np.ndarray,
                           durations: np.ndarray) -> float:
    """
    Write every joint's profile to rest at ``target`` into ``jerks``, ``durations`` (n, 7).

    All arrays (n,); ``target`` already inside the position bounds. Return the common
    duration ``T = max_j T_j`` (s). Without ``synchronize`` every joint follows its own
    fastest profile; with it the faster joints are stretched to end at ``T``.
    """
    n = p.shape[0]
    fastest_time = np.zeros(n)
    peaks = np.zeros(n)
    common_time = 0.0
    for j in range(n):
        fastest_time[j], peaks[j] = fastest_profile(target[j] - p[j], v[j], a[j], v_max[j],
                                                    a_max[j], j_max[j], jerks[j], durations[j])
        common_time = max(common_time, fastest_time[j])
    scratch_jerks = np.zeros(SEGMENTS)
    scratch_durations = np.zeros(SEGMENTS)
    for j in range(n):
        if synchronize and fastest_time[j] < common_time - SYNC_TOLERANCE and profile_in_time(
                target[j] - p[j], v[j], a[j], peaks[j], fastest_time[j], common_time, a_max[j],
                j_max[j], scratch_jerks, scratch_durations):
            jerks[j, :] = scratch_jerks
            durations[j, :] = scratch_durations
    return common_time


@numba.njit(cache=True, nogil=True)
def sample_plan_into(p: np.ndarray, v: np.ndarray, a: np.ndarray, target: np.ndarray,
                     jerks: np.ndarray, durations: np.ndarray, t: float, out_p: np.ndarray,
                     out_v: np.ndarray, out_a: np.ndarray) -> None:
    """Write the state ``t`` s into the plan of :func:`synchronized_plan_into` into ``out_*``."""
    for j in range(p.shape[0]):
        out_p[j], out_v[j], out_a[j] = sample_profile(p[j], v[j], a[j], target[j], jerks[j],
                                                      durations[j], t)


@numba.njit(cache=True, nogil=True)
def sample_plan_at_into(p: np.ndarray, v: np.ndarray, a: np.ndarray, target: np.ndarray,
                        jerks: np.ndarray, durations: np.ndarray, times: np.ndarray,
                        out_p: np.ndarray, out_v: np.ndarray, out_a: np.ndarray) -> None:
    """Write the states at ``times`` (k,) s into the plan into rows of ``out_*`` (k, n)."""
    for k in range(times.shape[0]):
        sample_plan_into(p, v, a, target, jerks, durations, times[k], out_p[k], out_v[k],
                         out_a[k])


@numba.njit(cache=True, nogil=True)
def synchronized_step_into(p: np.ndarray, v: np.ndarray, a: np.ndarray, target: np.ndarray,
                           v_max: np.ndarray, a_max: np.ndarray, j_max: np.ndarray,
                           dt: float, synchronize: bool, out_p: np.ndarray,
                           out_v: np.ndarray, out_a: np.ndarray) -> float:
    """
    Write the state ``dt`` s along the plan into ``out_*``; return ``T - dt``.

    All arrays (n,); ``target`` already inside the position bounds. Without ``synchronize``
    every joint follows its own fastest profile.
    """
    n = p.shape[0]
    jerks = np.zeros((n, SEGMENTS))
    durations = np.zeros((n, SEGMENTS))
    common_time = synchronized_plan_into(p, v, a, target, v_max, a_max, j_max, synchronize,
                                         jerks, durations)
    sample_plan_into(p, v, a, target, jerks, durations, dt, out_p, out_v, out_a)
    return common_time - dt


@numba.njit(cache=True, nogil=True)
def sample_motion_into(p: np.ndarray, v: np.ndarray, a: np.ndarray, target: np.ndarray,
                       v_max: np.ndarray, a_max: np.ndarray, j_max: np.ndarray,
                       synchronize: bool, weights: np.ndarray, spacing: float,
                       out: np.ndarray, variation: np.ndarray) -> int:
    """
    Write samples of the motion to rest at ``target`` into ``out`` rows; return their count.

    Row 0 is ``p``, the last row the end of the motion. Row ``k`` of ``variation`` bounds
    how far each joint moves between samples k and k + 1: with ``|v_j(t)| <= |v_j(t_k)| +
    a_max_j (t - t_k)``, at most ``|v_j(t_k)| h + a_max_j h^2 / 2`` over a step ``h``. The
    step solves ``sum_j w_j (|v_j| h + a_max_j h^2 / 2) = spacing``, so the weighted path
    length between two rows stays below ``spacing``. Return -1 when ``out`` is too short.
    """
    n = p.shape[0]
    jerks = np.zeros((n, SEGMENTS))
    durations = np.zeros((n, SEGMENTS))
    duration = synchronized_plan_into(p, v, a, target, v_max, a_max, j_max, synchronize,
                                      jerks, durations)
    quadratic = 0.0
    for j in range(n):
        quadratic += 0.5 * weights[j] * a_max[j]
    state_v = v.copy()
    state_a = np.empty(n)
    row = np.empty(n)
    out[0, :] = p
    count = 1
    t = 0.0
    while t < duration:
        linear = 0.0
        for j in range(n):
            linear += weights[j] * abs(state_v[j])
        if quadratic > 0.0:
            h = 2.0 * spacing / (linear + np.sqrt(linear * linear + 4.0 * quadratic * spacing))
        else:
            h = duration - t
        h = min(h, duration - t)
        t += h
        if count >= out.shape[0]:
            return -1
        for j in range(n):
            variation[count - 1, j] = abs(state_v[j]) * h + 0.5 * a_max[j] * h * h
        sample_plan_into(p, v, a, target, jerks, durations, t, row, state_v, state_a)
        out[count, :] = row
        count += 1
    return count


@numba.njit(cache=True, nogil=True)
def stopping_positions_into(p: np.ndarray, v: np.ndarray, a: np.ndarray,
                            a_max: np.ndarray, j_max: np.ndarray, out: np.ndarray) -> None:
    """Write where each joint comes to rest under its hardest braking into ``out`` (n,)."""
    jerks = np.zeros(SEGMENTS)
    durations = np.zeros(SEGMENTS)
    for j in range(p.shape[0]):
        out[j] = p[j] + velocity_change(v[j], a[j], 0.0, a_max[j], j_max[j], jerks,
                                        durations, 0)[1]


@numba.njit(cache=True, nogil=True)
def clipped_stopping_positions_into(p: np.ndarray, v: np.ndarray, a: np.ndarray,
                                    lower: np.ndarray, upper: np.ndarray, a_max: np.ndarray,
                                    j_max: np.ndarray, out: np.ndarray) -> None:
    """Write the hardest stop's rest positions, clipped into ``[lower, upper]``, into ``out``."""
    stopping_positions_into(p, v, a, a_max, j_max, out)
    for j in range(p.shape[0]):
        out[j] = min(max(out[j], lower[j]), upper[j])


@numba.njit(cache=True, nogil=True)
def step_and_stop_samples_into(p0: np.ndarray, v0: np.ndarray, dt: float, p: np.ndarray,
                               v: np.ndarray, a: np.ndarray, lower: np.ndarray,
                               upper: np.ndarray, v_max: np.ndarray, a_max: np.ndarray,
                               j_max: np.ndarray, weights: np.ndarray, spacing: float,
                               out: np.ndarray, variation: np.ndarray) -> int:
    """
    Write samples of a step and of the hardest stop after it into ``out``; return the count.

    Row 0 is ``p0``, where the step of ``dt`` s starts at velocity ``v0``; row 1 is ``p``,
    where it ends with velocity ``v`` and acceleration ``a``; then the hardest stop from there
    to rest at its stopping positions clipped into ``[lower, upper]``, sampled as
    :func:`sample_motion_into` does (velocity limits ``v_max``, synchronised). Row 0 of
    ``variation`` bounds each joint's motion during the step, ``|v0_j| dt + a_max_j dt^2 / 2``.
    -1 when ``out`` is too short.
    """
    n = p.shape[0]
    if out.shape[0] < 2:
        return -1
    target = np.empty(n)
    clipped_stopping_positions_into(p, v, a, lower, upper, a_max, j_max, target)
    for j in range(n):
        out[0, j] = p0[j]
        variation[0, j] = abs(v0[j]) * dt + 0.5 * a_max[j] * dt * dt
    count = sample_motion_into(p, v, a, target, v_max, a_max, j_max, True, weights, spacing,
                               out[1:], variation[1:])
    return -1 if count < 0 else count + 1


@numba.njit(cache=True, nogil=True)
def stop_plan_into(p: np.ndarray, v: np.ndarray, a: np.ndarray, lower: np.ndarray,
                   upper: np.ndarray, v_max: np.ndarray, a_max: np.ndarray,
                   j_max: np.ndarray, target: np.ndarray, jerks: np.ndarray,
                   durations: np.ndarray) -> float:
    """
    Write the hardest stop's plan (the motion :meth:`OnlineGenerator.brake_step` follows).

    ``target`` (n,) receives the stopping positions clipped into ``[lower, upper]``,
    ``jerks``, ``durations`` (n, 7) the synchronised plan to rest there; return its duration.
    """
    clipped_stopping_positions_into(p, v, a, lower, upper, a_max, j_max, target)
    return synchronized_plan_into(p, v, a, target, v_max, a_max, j_max, True, jerks,
                                  durations)
