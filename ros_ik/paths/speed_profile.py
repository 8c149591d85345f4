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
One-dimensional jerk-limited motion of the path length ``s(t)``: S-curves and profiles.

A profile is a sequence of phases of constant jerk ``j`` (m/s^3 of path); within a phase
of duration ``T`` from ``(s, v, a)``: ``s + v t + a t^2 / 2 + j t^3 / 6``. Velocity changes
are time-optimal S-curves (:func:`velocity_change`): from ``(v0, a0)`` to ``(v1, 0)`` the
acceleration ramps at ``+-j_max`` toward a peak ``+-a_p`` (at most ``a_max``), holds, and
ramps back to zero; with ``a0 = 0`` the distance is ``(v0 + v1) / 2 * T``, ``T = |dv| / a_max
+ a_max / j_max`` (or ``2 sqrt(|dv| / j_max)`` when the peak stays below ``a_max``).
"""

from typing import List, Tuple

import numpy as np

Phase = Tuple[float, float]  # (duration s, jerk m/s^3)
BISECTION_STEPS = 60


def velocity_change(v0: float, a0: float, v1: float, a_max: float, j_max: float
                    ) -> List[Phase]:
    """
    Return the phases of the fastest change from ``(v0, a0)`` to speed ``v1`` at rest in a.

    ``|a0| <= a_max``. The acceleration ramps (``j_max``) toward ``+-a_p``, holds, and ramps
    back to 0; ``a_p`` solves ``(a_p^2 - b0^2) / (2 j) + a_p T2 + a_p^2 / (2 j) = D`` with
    ``D`` the speed change and ``b0`` the start acceleration, both in its direction.
    """
    settle = v0 + a0 * abs(a0) / (2.0 * j_max)  # the speed once a0 is ramped to 0
    sign = 1.0 if v1 >= settle else -1.0
    change = sign * (v1 - v0)
    b0 = sign * a0
    peak = np.sqrt(max(0.5 * (2.0 * j_max * change + b0 * b0), 0.0))
    hold = 0.0
    if peak > a_max:
        peak = a_max
        hold = max((change - (2.0 * a_max * a_max - b0 * b0) / (2.0 * j_max)) / a_max, 0.0)
    peak = max(peak, b0)
    return [phase for phase in (((peak - b0) / j_max, sign * j_max), (hold, 0.0),
                                (peak / j_max, -sign * j_max)) if phase[0] > 0.0]


def advance(state: Tuple[float, float, float], phases: List[Phase]
            ) -> Tuple[float, float, float]:
    """Return ``(s, v, a)`` after ``phases`` from ``state``."""
    s, v, a = state
    for duration, jerk in phases:
        t = duration
        s += v * t + a * t * t / 2.0 + jerk * t ** 3 / 6.0
        v += a * t + jerk * t * t / 2.0
        a += jerk * t
    return s, v, a


def rest_change_time(v0: float, v1: float, a_max: float, j_max: float) -> float:
    """Return the duration (s) of the S-curve from ``(v0, 0)`` to ``(v1, 0)`` (module doc)."""
    change = abs(v1 - v0)
    return (change / a_max + a_max / j_max if change >= a_max * a_max / j_max
            else 2.0 * np.sqrt(change / j_max))


def rest_change_distance(v0: float, v1: float, a_max: float, j_max: float) -> float:
    """Return the distance of the S-curve from ``(v0, 0)`` to ``(v1, 0)``: ``(v0+v1)/2 T``."""
    return 0.5 * (v0 + v1) * rest_change_time(v0, v1, a_max, j_max)


def reachable_speed(v0: float, length: float, a_max: float, j_max: float) -> float:
    """Return the largest ``v1 >= v0`` reached from ``(v0, 0)`` at rest in a within ``length``."""
    high = v0 + 1.0
    while rest_change_distance(v0, high, a_max, j_max) < length:
        high = v0 + 2.0 * (high - v0)
    low = v0
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (low + high)
        if rest_change_distance(v0, middle, a_max, j_max) <= length:
            low = middle
        else:
            high = middle
    return low


class Profile:
    """
    ``s(t)`` as phases of constant jerk from ``(s0, v0, a0)`` at ``t = 0``; rest after them.

    :meth:`state` samples ``(s, v, a, j)`` at any times (arrays), clamped to the end.
    """

    def __init__(self, start: Tuple[float, float, float], phases: List[Phase]) -> None:
        """Integrate the phases once (their start times and states)."""
        durations = np.array([phase[0] for phase in phases], dtype=float)
        self.jerks = np.array([phase[1] for phase in phases], dtype=float)
        self.t0 = np.concatenate([[0.0], np.cumsum(durations)])
        states = [start]
        for phase in phases:
            states.append(advance(states[-1], [phase]))
        self.states = np.array(states)  # (k + 1, 3): at each phase start, the end last
        self.duration = float(self.t0[-1])

    @property
    def end(self) -> Tuple[float, float, float]:
        """Return ``(s, v, a)`` at the end."""
        return tuple(self.states[-1])

    def state(self, t: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return ``s, v, a, j`` at times ``t`` (s from the start; after the end: the end)."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        count = len(self.jerks)
        if count == 0:
            s, v, a = self.states[0]
            return (np.full(t.shape, s), np.full(t.shape, v), np.full(t.shape, a),
                    np.zeros(t.shape))
        t = np.clip(t, 0.0, self.duration)
        k = np.clip(np.searchsorted(self.t0, t, side='right') - 1, 0, count - 1)
        tau = t - self.t0[k]
        s0, v0, a0 = self.states[k, 0], self.states[k, 1], self.states[k, 2]
        jerk = self.jerks[k]
        at_end = t >= self.duration
        jerk_out = np.where(at_end, 0.0, jerk)
        return (s0 + tau * (v0 + tau * (a0 / 2.0 + tau * jerk / 6.0)),
                v0 + tau * (a0 + tau * jerk / 2.0), a0 + tau * jerk, jerk_out)
