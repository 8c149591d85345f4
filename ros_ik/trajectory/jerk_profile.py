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
Time-optimal jerk-limited motion of one joint to rest at a target (numba kernels).

A joint at position ``p0``, velocity ``v0`` and acceleration ``a0`` moves to rest
(``v = a = 0``) at ``pf`` under ``|v| <= V``, ``|a| <= A``, ``|j| <= J``. Jerk is piecewise
constant over seven segments (the double-S profile of Biagiotti and Melchiorri, ch. 3.4;
from a moving state as in Haschke, Weitnauer and Ritter, IROS 2008):

* phase 1 (3 segments): change the velocity from ``(v0, a0)`` to a peak ``vp`` with
  ``a = 0``: jerk ``s J`` until ``a = s ap``, constant ``a``, jerk ``-s J`` until
  ``a = 0``, where ``s`` is the sign of the change still needed once ``a0`` is ramped out
  (``a0 |a0| / 2J``) and the peak acceleration ``ap = sqrt(J s dv + a0^2 / 2)``, capped at
  ``A`` (then the middle segment lasts ``(s dv - (2 A^2 - a0^2) / 2J) / A``);
* phase 2 (1 segment): cruise at ``vp`` for ``tc >= 0``;
* phase 3 (3 segments): the same velocity change from ``(vp, 0)`` to ``(0, 0)``.

With ``F(vp)`` the distance covered by phases 1 and 3, the fastest motion cruises at
``vp = +-V`` when ``F(+-V)`` leaves room (``tc = (d - F) / vp``), and otherwise has no
cruise and the ``vp`` in ``(-V, V)`` with ``F(vp) = d`` (a bracketed root on a branch where
``F`` increases, see :func:`fastest_profile`). A target closer than the stopping distance
gives ``vp`` of the other sign: the joint stops past the target and comes back. Rest to
rest this is the time-optimal double-S profile.

To arrive later, at a common time ``T``, a joint lowers ``|vp|`` between the fastest peak
and 0 (a longer cruise), a bracketed root of the duration; when no such ``vp`` exists (the
target is the stopping point), the joint keeps its fastest profile and waits at rest.

A profile is a row of 7 jerks (units/s^3) and 7 durations (s).

Every root is found by :func:`bracketed_root`: false position with the Illinois correction
(Dowell and Jarratt 1971), which keeps a bracket like bisection but on these piecewise smooth
functions converges superlinearly (10 evaluations on average and 17 at most over 2,658
roots of a moving servo loop, instead of 64 halvings).
"""

import numba
import numpy as np

SEGMENTS = 7
BISECTION_STEPS = 64
# A root search halves its bracket when this many steps in a row did not; it ends after
# ROOT_STEPS evaluations at most, time for at least BISECTION_STEPS halvings.
STEPS_TO_HALVE = 4
ROOT_STEPS = (STEPS_TO_HALVE + 1) * BISECTION_STEPS
# A root's residual this small ends its search (m or rad for distances, s for durations).
ROOT_TOLERANCE = 1e-13
# Distances this close (m or rad) count as equal when choosing a branch of F.
DISTANCE_TOLERANCE = 1e-9
# What bracketed_root solves for (see _root_objective).
STOP_DISTANCE, PEAK_DISTANCE, PEAK_DURATION = 0, 1, 2
EPSILON = float(np.finfo(np.float64).eps)


@numba.njit(cache=True, nogil=True)
def advance(p: float, v: float, a: float, jerk: float, t: float):
    """Return ``(p, v, a)`` after ``t`` s at constant ``jerk`` (exact cubic)."""
    return (p + t * (v + t * (0.5 * a + t * jerk / 6.0)), v + t * (a + 0.5 * t * jerk),
            a + t * jerk)


@numba.njit(cache=True, nogil=True)
def velocity_change(v0: float, a0: float, v1: float, a_max: float, j_max: float,
                    jerks: np.ndarray, durations: np.ndarray, first: int):
    """
    Write the fastest change from ``(v0, a0)`` to ``(v1, 0)`` with ``|a| <= a_max``.

    Three segments at ``first``: jerk toward the peak ``s ap`` (down toward it when
    ``s a0 > ap``, i.e. ``a_max`` below the current acceleration), hold, jerk back to 0.
    Return ``(duration, distance)`` of the change.
    """
    dv = v1 - v0
    s = 1.0 if dv >= a0 * abs(a0) / (2.0 * j_max) else -1.0
    peak = np.sqrt(max(j_max * s * dv + 0.5 * a0 * a0, 0.0))
    hold = 0.0
    if peak > a_max:
        peak = a_max
        # s dv = (gain while a goes from a0 to s peak) + peak hold + peak^2 / 2J
        first_gain = (s * a0 + peak) * abs(peak - s * a0) / (2.0 * j_max)
        hold = max((s * dv - first_gain - peak * peak / (2.0 * j_max)) / peak, 0.0)
    jerks[first] = s * j_max if peak >= s * a0 else -s * j_max
    jerks[first + 1], jerks[first + 2] = 0.0, -s * j_max
    durations[first] = abs(peak - s * a0) / j_max
    durations[first + 1] = hold
    durations[first + 2] = peak / j_max
    p, v, a = 0.0, v0, a0
    for k in range(first, first + 3):
        p, v, a = advance(p, v, a, jerks[k], durations[k])
    return durations[first] + hold + durations[first + 2], p


@numba.njit(cache=True, nogil=True)
def _gentler_stop(distance: float, v0: float, a0: float, a_max: float, j_max: float,
                  jerks: np.ndarray, durations: np.ndarray) -> float:
    """
    Write a stop covering ``distance``, a little beyond the hardest stop; return its time.

    The stop's peak deceleration ``a_cap`` in ``(0, a_max]`` is a root of the distance it
    covers: a lower peak brakes over a longer distance (the distance grows without bound as
    ``a_cap -> 0``). The cap returned covers no more than ``distance``.
    """
    for k in range(SEGMENTS):
        jerks[k], durations[k] = 0.0, 0.0
    hardest = velocity_change(v0, a0, 0.0, a_max, j_max, jerks, durations, 0)[1]
    direction = 1.0 if distance > hardest else -1.0
    hard = bracketed_root(STOP_DISTANCE, direction, distance, 0.0, v0, a0, a_max, j_max, a_max,
                          direction * (hardest - distance), 0.0, np.inf, jerks, durations)[0]
    return velocity_change(v0, a0, 0.0, hard, j_max, jerks, durations, 0)[0]


@numba.njit(cache=True, nogil=True)
def _peak_profile(v0: float, a0: float, peak: float, distance: float, cruise_free: bool,
                  a_max: float, j_max: float, jerks: np.ndarray, durations: np.ndarray):
    """
    Write the profile through velocity ``peak`` covering ``distance``; return its duration.

    With ``cruise_free`` the cruise is set to 0 (the peak was solved for the distance).
    """
    time_up, distance_up = velocity_change(v0, a0, peak, a_max, j_max, jerks, durations, 0)
    time_down, distance_down = velocity_change(peak, 0.0, 0.0, a_max, j_max, jerks,
                                               durations, 4)
    jerks[3] = 0.0
    cruise = 0.0
    if not cruise_free and peak != 0.0:
        cruise = max((distance - distance_up - distance_down) / peak, 0.0)
    durations[3] = cruise
    return time_up + cruise + time_down


@numba.njit(cache=True, nogil=True)
def peak_distance(v0: float, a0: float, peak: float, a_max: float, j_max: float,
                  jerks: np.ndarray, durations: np.ndarray) -> float:
    """Return ``F(peak)``: the distance of phases 1 and 3 without cruise."""
    distance_up = velocity_change(v0, a0, peak, a_max, j_max, jerks, durations, 0)[1]
    return distance_up + velocity_change(peak, 0.0, 0.0, a_max, j_max, jerks, durations, 4)[1]


@numba.njit(cache=True, nogil=True)
def _root_objective(kind: int, x: float, distance: float, duration: float, v0: float,
                    a0: float, a_max: float, j_max: float, jerks: np.ndarray,
                    durations: np.ndarray) -> float:
    """
    Return the residual whose root :func:`bracketed_root` finds, at ``x``.

    ``STOP_DISTANCE``: the distance of the stop with peak deceleration ``x`` (in place of
    ``a_max``) minus ``distance``; ``PEAK_DISTANCE``: ``F(x) - distance``;
    ``PEAK_DURATION``: the duration of the profile through peak ``x`` (cruising to cover
    ``distance``) minus ``duration``.
    """
    if kind == STOP_DISTANCE:
        return velocity_change(v0, a0, 0.0, x, j_max, jerks, durations, 0)[1] - distance
    if kind == PEAK_DISTANCE:
        return peak_distance(v0, a0, x, a_max, j_max, jerks, durations) - distance
    return _peak_profile(v0, a0, x, distance, False, a_max, j_max, jerks, durations) - duration


@numba.njit(cache=True, nogil=True)
def bracketed_root(kind: int, sign: float, distance: float, duration: float, v0: float,
                   a0: float, a_max: float, j_max: float, x_neg: float, g_neg: float,
                   x_pos: float, g_pos: float, jerks: np.ndarray, durations: np.ndarray):
    """
    Return a bracket ``(x_neg, g_neg, x_pos, g_pos)`` of a root of ``g = sign * objective``.

    ``g`` is :func:`_root_objective` times ``sign`` (+-1); the bracket given has
    ``g(x_neg) = g_neg <= 0 < g_pos = g(x_pos)`` (``g_pos`` may be ``inf``: an end where the
    objective grows without bound). A caller's end within its own tolerance of the root may
    break that: ``g_pos <= 0`` returns ``x_pos`` as both ends, ``g_neg > 0`` the bracket as
    given. Each step evaluates ``g`` at the false-position point of the bracket and
    replaces the end of the same sign; an end kept twice in a row has its weight in the
    interpolation halved (Illinois), and a step halves the bracket instead when the point
    is not strictly inside or ``STEPS_TO_HALVE`` steps did not halve it. Ends when
    ``|g_neg| <= ROOT_TOLERANCE max(1, |goal|)`` (goal: ``duration`` for ``PEAK_DURATION``,
    else ``distance``), when the bracket is a few ulps wide or after ``ROOT_STEPS``
    evaluations. The ends keep their signs, so ``x_neg`` is on the side the caller needs.
    ``jerks``, ``durations`` (7,) are scratch.
    """
    if g_pos <= 0.0:
        return x_pos, g_pos, x_pos, g_pos
    goal = duration if kind == PEAK_DURATION else distance
    tolerance = ROOT_TOLERANCE * max(1.0, abs(goal))
    weight_neg, weight_pos = g_neg, g_pos
    kept = 0
    width = abs(x_pos - x_neg)
    halved_from, steps_since_halved = width, 0
    for _ in range(ROOT_STEPS):
        if g_neg >= -tolerance or width <= 4.0 * EPSILON * max(abs(x_neg), abs(x_pos)):
            break
        x = x_neg - weight_neg * (x_pos - x_neg) / (weight_pos - weight_neg)
        if (not (min(x_neg, x_pos) < x < max(x_neg, x_pos))
                or steps_since_halved >= STEPS_TO_HALVE):
            x = 0.5 * (x_neg + x_pos)
        g = sign * _root_objective(kind, x, distance, duration, v0, a0, a_max, j_max, jerks,
                                   durations)
        if g <= 0.0:
            x_neg, g_neg, weight_neg = x, g, g
            weight_pos = 0.5 * weight_pos if kept == -1 else weight_pos
            kept = -1
        else:
            x_pos, g_pos, weight_pos = x, g, g
            weight_neg = 0.5 * weight_neg if kept == 1 else weight_neg
            kept = 1
        width = abs(x_pos - x_neg)
        if width <= 0.5 * halved_from:
            halved_from, steps_since_halved = width, 0
        else:
            steps_since_halved += 1
    return x_neg, g_neg, x_pos, g_pos


@numba.njit(cache=True, nogil=True)
def fastest_profile(distance: float, v0: float, a0: float, v_max: float, a_max: float,
                    j_max: float, jerks: np.ndarray, durations: np.ndarray):
    """
    Write the fastest profile covering ``distance`` to rest; return ``(duration, peak)``.

    ``F`` increases on ``[-V, min(0, r)]`` and ``[max(0, r), V]``, where
    ``r = v0 + a0 |a0| / 2J`` is the velocity at which ``a0`` ramps out (``F(0)`` is the
    hardest stop). Between them (a decelerating joint asked to go a little further than
    its hardest stop) ``F`` is not monotone and the joint stops more gently instead
    (:func:`_gentler_stop`; peak 0: it is not stretched for synchronisation). A
    distance within ``DISTANCE_TOLERANCE`` of a split takes the monotone branch, so a joint
    already on its final brake keeps that brake despite round-off.
    """
    highest = peak_distance(v0, a0, v_max, a_max, j_max, jerks, durations)
    if highest <= distance:
        return _peak_profile(v0, a0, v_max, distance, False, a_max, j_max, jerks,
                             durations), v_max
    lowest = peak_distance(v0, a0, -v_max, a_max, j_max, jerks, durations)
    if lowest >= distance:
        return _peak_profile(v0, a0, -v_max, distance, False, a_max, j_max, jerks,
                             durations), -v_max
    ramp_out = min(max(v0 + a0 * abs(a0) / (2.0 * j_max), -v_max), v_max)
    low_split, high_split = min(0.0, ramp_out), max(0.0, ramp_out)
    at_low_split = peak_distance(v0, a0, low_split, a_max, j_max, jerks, durations)
    if distance <= at_low_split + DISTANCE_TOLERANCE:
        low, at_low, high, at_high = -v_max, lowest, low_split, at_low_split
    else:
        at_high_split = peak_distance(v0, a0, high_split, a_max, j_max, jerks, durations)
        if distance < at_high_split - DISTANCE_TOLERANCE:
            return _gentler_stop(distance, v0, a0, a_max, j_max, jerks, durations), 0.0
        low, at_low, high, at_high = high_split, at_high_split, v_max, highest
    low, below, high, above = bracketed_root(PEAK_DISTANCE, 1.0, distance, 0.0, v0, a0, a_max,
                                             j_max, low, at_low - distance, high,
                                             at_high - distance, jerks, durations)
    peak = low if -below <= above else high
    return _peak_profile(v0, a0, peak, distance, True, a_max, j_max, jerks, durations), peak


@numba.njit(cache=True, nogil=True)
def profile_in_time(distance: float, v0: float, a0: float, fastest_peak: float,
                    fastest_time: float, duration: float, a_max: float, j_max: float,
                    jerks: np.ndarray, durations: np.ndarray) -> bool:
    """
    Write a profile covering ``distance`` to rest in ``duration`` s; return success.

    Finds the peak between ``fastest_peak`` (taking ``fastest_time``, no longer than
    ``duration``) and almost 0 (slowest) with :func:`bracketed_root`, on the side no slower
    than ``duration``; fails if the profile found does not end at ``distance`` (where ``F``
    is not monotone, a slower peak may leave no room to cruise). On failure ``jerks`` and
    ``durations`` hold an unspecified profile.
    """
    if fastest_peak == 0.0:
        return False
    slowest = fastest_peak * 2.0 ** -BISECTION_STEPS
    slowest_time = _peak_profile(v0, a0, slowest, distance, False, a_max, j_max, jerks,
                                 durations)
    if slowest_time < duration:
        return False
    fast = bracketed_root(PEAK_DURATION, 1.0, distance, duration, v0, a0, a_max, j_max,
                          fastest_peak, fastest_time - duration, slowest,
                          slowest_time - duration, jerks, durations)[0]
    _peak_profile(v0, a0, fast, distance, False, a_max, j_max, jerks, durations)
    p, v, a = 0.0, v0, a0
    for k in range(SEGMENTS):
        p, v, a = advance(p, v, a, jerks[k], durations[k])
    return abs(p - distance) <= DISTANCE_TOLERANCE


@numba.njit(cache=True, nogil=True)
def sample_profile(p0: float, v0: float, a0: float, target: float, jerks: np.ndarray,
                   durations: np.ndarray, t: float):
    """Return ``(p, v, a)`` ``t`` s into the profile; at its end, exactly ``(target, 0, 0)``."""
    p, v, a = p0, v0, a0
    remaining = t
    for k in range(SEGMENTS):
        if remaining <= durations[k]:
            return advance(p, v, a, jerks[k], remaining)
        p, v, a = advance(p, v, a, jerks[k], durations[k])
        remaining -= durations[k]
    return target, 0.0, 0.0
