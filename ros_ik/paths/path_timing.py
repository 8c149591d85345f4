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
The timing ``s(t)`` of a stretch: jerk-limited, within every joint's limits and the tool caps.

With the joint path ``q(s)`` (:class:`ros_ik.paths.joint_path.JointPath`) and ``v = ds/dt``,
``a``, ``j`` its derivatives, each joint moves with

    qdot = q' v,   qddot = q'' v^2 + q' a,   qdddot = q''' v^3 + 3 q'' v a + q' j.

On a stretch of the path with bounds ``Q1, Q2, Q3`` of ``|q'|, |q''|, |q'''|`` (exact per
spline interval) and a speed cap ``u``, the limits ``V, A, Jk`` hold whenever

    v <= u,  |a| <= a_z = min (A - Q2 u^2) / Q1,  |j| <= j_z = min (Jk - Q3 u^3 - 3 Q2 u a_z) / Q1

(triangle inequality, minima over joints and intervals). The speed cap of each interval is
the largest with ``Q1 u <= V``, ``Q2 u^2 <= CENTRIPETAL_SHARE A``, ``Q3 u^3 <= THIRD_SHARE Jk``
and the tool caps (``|dp/ds| u <= max_linear_speed``, ``|w| u <= max_angular_speed``), so
``a_z`` and ``j_z`` stay positive. Intervals are merged into *zones* (caps within
``MERGE_RATIO`` of each other) with one ``(u, a_z, j_z)`` each. The profile crosses every
zone boundary at zero acceleration: in each zone an S-curve up from the entry speed to a
peak ``<= u``, a cruise, an S-curve down to the exit speed (:mod:`ros_ik.paths.speed_profile`);
entry and exit speeds are found by a forward and a backward scan (each boundary at most
both zones' caps, each zone long enough for its speed changes), the peaks by bisection.
Every part of the motion therefore stays within the bounds of the zone it is in.

**Braking along the path** (:meth:`StretchTiming.brake`) from any state of the profile:
the fastest S-curve to rest inside the current zone, or, where the zone is too short, to the
exit speed that fills it and on through the next zones the same way. From a state of the
profile it is never faster than the profile at any ``s`` (same bounds, braking earlier), so it
stops no later than the stretch's end, inside the zone bounds.
"""

from dataclasses import dataclass, field, replace
from typing import List, Tuple

import numpy as np

from ros_ik.paths.joint_path import JointPath
from ros_ik.paths.speed_profile import (advance, BISECTION_STEPS, Phase, Profile,
                                        reachable_speed, rest_change_distance,
                                        rest_change_time, velocity_change)
from ros_ik.trajectory.motion_limits import MotionLimits

CENTRIPETAL_SHARE = 0.8  # of each joint's acceleration limit left to q'' v^2
THIRD_SHARE = 0.6  # of each joint's jerk limit left to q''' v^3
MERGE_RATIO = 0.85  # intervals whose caps are within this ratio share a zone
MIN_SPEED = 1e-9  # m/s of path: a zone slower than this does not move
# Candidate shares of the largest tangential acceleration: the rest of each joint's jerk
# budget after 3 q'' v a goes to q' j; the share with the fastest S-curve is taken.
ACCELERATION_SHARES = np.array([1.0, 0.7, 0.5, 0.35, 0.25, 0.15, 0.08, 0.03])
PEAK_GRID = 33  # speeds tried per pass of the peak search (two passes)

Bounds = Tuple[np.ndarray, np.ndarray, np.ndarray]  # Q1, Q2, Q3 (k, n) of a zone's intervals


@dataclass(frozen=True)
class Caps:
    """Tool speed caps: linear (m/s) and angular (rad/s)."""

    linear: float
    angular: float


@dataclass(frozen=True)
class Zone:
    """
    A stretch of path ``[start, end)`` (m) with its speed cap and tangential bounds.

    ``acceleration`` and ``jerk`` (m/s^2, m/s^3 of path) hold for every speed up to
    ``peak`` (m/s of path), the fastest the profile goes in the zone (at most ``cap``).
    """

    start: float
    end: float
    cap: float
    peak: float
    acceleration: float
    jerk: float
    bounds: Bounds = field(repr=False, compare=False)


def _interval_caps(Q1: np.ndarray, Q2: np.ndarray, Q3: np.ndarray, tool_rates: np.ndarray,
                   limits: MotionLimits, caps: Caps) -> np.ndarray:
    """Return the speed cap (m/s of path) of each interval (module docstring)."""
    with np.errstate(divide='ignore'):
        velocity = np.min(limits.velocity / Q1, axis=1)
        centripetal = np.min(np.sqrt(CENTRIPETAL_SHARE * limits.acceleration / Q2), axis=1)
        third = np.min(np.cbrt(THIRD_SHARE * limits.jerk / Q3), axis=1)
        linear = caps.linear / tool_rates[:, 0]
        angular = caps.angular / tool_rates[:, 1]
    return np.minimum.reduce([velocity, centripetal, third, linear, angular])


def tangential_bounds(bounds: Bounds, speeds: np.ndarray, limits: MotionLimits
                      ) -> Tuple[np.ndarray, np.ndarray]:
    """
    Return ``(a_z, j_z)`` (m,) that hold for every speed up to each of ``speeds`` (m,).

    ``a_z = share * min (A - Q2 v^2) / Q1`` and ``j_z = min (Jk - Q3 v^3 - 3 Q2 v a_z) / Q1``
    (over the zone's intervals and joints), the share among ``ACCELERATION_SHARES`` (and
    the one leaving half of each joint's jerk room to ``q' j``, so some share always has
    ``j_z > 0``) whose S-curve from rest to ``v`` is the fastest (``v / a + a / j``).
    """
    k, n = bounds[0].shape
    Q1, Q2, Q3 = (bound.reshape(1, k * n) for bound in bounds)
    A = np.tile(limits.acceleration, k)[None, :]
    Jk = np.tile(limits.jerk, k)[None, :]
    moving = Q1 > 0.0
    v = np.asarray(speeds, dtype=float)[:, None]
    with np.errstate(divide='ignore', invalid='ignore'):
        largest = np.where(moving, (A - Q2 * v * v) / Q1, np.inf).min(axis=1)
        room = Jk - Q3 * v ** 3  # (m, kn)
        # a share that always leaves half the jerk room to q' j: j_z >= room / (2 Q1) > 0
        safe = np.where(Q2 * v > 0.0, 0.5 * room / (3.0 * Q2 * v), np.inf).min(axis=1)
        candidates = np.concatenate([largest[:, None] * ACCELERATION_SHARES[None, :],
                                     np.minimum(largest, safe)[:, None]], axis=1)  # (m, f)
        jerks = np.where(moving[:, None, :], (room[:, None, :] - 3.0 * Q2[:, None, :]
                                              * v[:, :, None] * candidates[:, :, None])
                         / Q1[:, None, :], np.inf).min(axis=2)  # (m, f)
        seconds = np.where(jerks > 0.0, v / candidates + candidates / jerks, np.inf)
    best = np.argmin(seconds, axis=1)
    rows = np.arange(len(best))
    return candidates[rows, best], jerks[rows, best]


def plan_zones(joint_path: JointPath, tool_rates: np.ndarray, s_start: float, s_end: float,
               limits: MotionLimits, caps: Caps) -> List[Zone]:
    """
    Return the zones of ``[s_start, s_end]`` of ``joint_path``, bounds at their caps.

    ``tool_rates`` (N, 2): per spline interval the largest ``|dp/ds|`` and ``|w|``.
    """
    Q1, Q2, Q3 = joint_path.interval_bounds()
    first = int(joint_path.interval_of(np.array([s_start]))[0])
    last = int(joint_path.interval_of(np.array([s_end]))[0])
    if last > first and joint_path.s[last] >= s_end:
        last -= 1
    indices = np.arange(first, last + 1)
    interval_caps = _interval_caps(Q1[indices], Q2[indices], Q3[indices],
                                   tool_rates[indices], limits, caps)
    groups: List[List[int]] = []
    best = 0.0
    for position in range(len(indices)):
        cap = interval_caps[position]
        if groups and MERGE_RATIO * best <= cap <= best / MERGE_RATIO:
            groups[-1].append(position)
            best = max(best, cap)
        else:
            groups.append([position])
            best = cap
    zones = []
    for group in groups:
        members = indices[group]
        cap = float(interval_caps[group].min())
        bounds = (Q1[members], Q2[members], Q3[members])
        acceleration, jerk = tangential_bounds(bounds, np.array([cap]), limits)
        zones.append(Zone(max(float(joint_path.s[members[0]]), s_start),
                          min(float(joint_path.s[members[-1] + 1]), s_end), cap, cap,
                          float(acceleration[0]), float(jerk[0]), bounds))
    return zones


def _boundary_speeds(zones: List[Zone], start_speed: float) -> np.ndarray:
    """Return the speed at each zone boundary (k + 1,): forward, then backward scan."""
    speeds = np.array([start_speed] + [min(before.cap, after.cap) for before, after
                                       in zip(zones[:-1], zones[1:])] + [0.0])
    for k, zone in enumerate(zones):
        speeds[k + 1] = min(speeds[k + 1], reachable_speed(
            speeds[k], zone.end - zone.start, zone.acceleration, zone.jerk))
    for k in range(len(zones) - 1, -1, -1):
        zone = zones[k]
        speeds[k] = min(speeds[k], reachable_speed(
            speeds[k + 1], zone.end - zone.start, zone.acceleration, zone.jerk))
    return speeds


def _with_peak(zone: Zone, entry: float, exit_speed: float, limits: MotionLimits) -> Zone:
    """
    Return ``zone`` with the peak that crosses it fastest, and the bounds at that peak.

    Lower peaks allow more tangential acceleration (less of it goes to ``q'' v^2``), so the
    highest peak that fits is not always the fastest: the crossing time (S-curve up, cruise,
    S-curve down) is minimised over a grid of ``PEAK_GRID`` speeds between the end speeds
    and the cap, then over a finer grid around the best. The zone's bounds at its cap (what
    the scans assumed) always fit.
    """
    length = zone.end - zone.start
    low, high = max(entry, exit_speed), zone.cap
    chosen = (low, zone.acceleration, zone.jerk)
    fastest = np.inf
    for _ in range(2):
        if high <= low:
            break
        peaks = np.linspace(low, high, PEAK_GRID)
        accelerations, jerks = tangential_bounds(zone.bounds, peaks, limits)
        times = np.array([_crossing_time(entry, p, exit_speed, a, j, length)
                          for p, a, j in zip(peaks, accelerations, jerks)])
        best = int(np.argmin(times))
        if not np.isfinite(times[best]):
            break  # not even the lowest peak fits: the bounds at the cap stay
        if times[best] < fastest:
            fastest = float(times[best])
            chosen = (float(peaks[best]), float(accelerations[best]), float(jerks[best]))
        low, high = peaks[max(best - 1, 0)], peaks[min(best + 1, PEAK_GRID - 1)]
    if not np.isfinite(fastest):
        chosen = _short_zone_peak(zone, entry, exit_speed, limits)
    peak, acceleration, jerk = chosen
    return replace(zone, peak=max(peak, MIN_SPEED), acceleration=acceleration, jerk=jerk)


def _short_zone_peak(zone: Zone, entry: float, exit_speed: float, limits: MotionLimits
                     ) -> Tuple[float, float, float]:
    """
    Return (peak, a, j) of a zone too short for every peak of the grid: the highest that fits.

    Bisection between the end speeds and the cap on whether the S-curves up to the peak and
    down to the exit fit the zone's length (a few micrometres left of a stretch after a
    brake: without it the zone would be crossed at ``MIN_SPEED``, for hours).
    """
    length = zone.end - zone.start
    low, high = max(entry, exit_speed), zone.cap
    bounds = tangential_bounds(zone.bounds, np.array([low]), limits)
    chosen = (low, float(bounds[0][0]), float(bounds[1][0]))
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (low + high)
        accelerations, jerks = tangential_bounds(zone.bounds, np.array([middle]), limits)
        if np.isfinite(_crossing_time(entry, middle, exit_speed, float(accelerations[0]),
                                      float(jerks[0]), length)):
            low, chosen = middle, (middle, float(accelerations[0]), float(jerks[0]))
        else:
            high = middle
    return chosen


def _crossing_time(entry: float, peak: float, exit_speed: float, a: float, j: float,
                   length: float) -> float:
    """Return the time (s) across ``length`` (m) via ``peak``; inf where it does not fit."""
    if a <= 0.0 or j <= 0.0 or peak <= 0.0:
        return np.inf
    cruise = (length - rest_change_distance(entry, peak, a, j)
              - rest_change_distance(peak, exit_speed, a, j))
    if cruise < 0.0:
        return np.inf
    return (rest_change_time(entry, peak, a, j) + rest_change_time(peak, exit_speed, a, j)
            + cruise / peak)


def _zone_phases(zone: Zone, entry: float, exit_speed: float) -> List[Phase]:
    """Return the phases across ``zone``: S-curve up to its peak, cruise, S-curve down."""
    a, j, peak = zone.acceleration, zone.jerk, zone.peak
    cruise = (zone.end - zone.start - rest_change_distance(entry, peak, a, j)
              - rest_change_distance(peak, exit_speed, a, j)) / peak
    return (velocity_change(entry, 0.0, peak, a, j) + [(max(cruise, 0.0), 0.0)]
            + velocity_change(peak, 0.0, exit_speed, a, j))


class StretchTiming:
    """
    The timing of ``[s_start, s_end]`` of a joint path from rest (or an entry speed) to rest.

    ``profile``: ``s(t)`` (:class:`ros_ik.paths.speed_profile.Profile`); ``zones``: the
    bounds it keeps.
    """

    def __init__(self, zones: List[Zone], profile: Profile) -> None:
        """Keep the zones and the profile."""
        self.zones = zones
        self.profile = profile
        self._zone_starts = np.array([zone.start for zone in zones])

    @classmethod
    def plan(cls, joint_path: JointPath, tool_rates: np.ndarray, s_start: float,
             s_end: float, limits: MotionLimits, caps: Caps) -> 'StretchTiming':
        """Return the timing of ``[s_start, s_end]``, from rest to rest."""
        zones = plan_zones(joint_path, tool_rates, s_start, s_end, limits, caps)
        speeds = _boundary_speeds(zones, 0.0)
        zones = [_with_peak(zone, speeds[k], speeds[k + 1], limits)
                 for k, zone in enumerate(zones)]
        phases: List[Phase] = []
        for k, zone in enumerate(zones):
            phases.extend(_zone_phases(zone, speeds[k], speeds[k + 1]))
        return cls(zones, Profile((s_start, 0.0, 0.0), phases))

    @property
    def duration(self) -> float:
        """Return how long the stretch takes (s)."""
        return self.profile.duration

    @property
    def s_end(self) -> float:
        """Return where the motion comes to rest (m of path)."""
        return float(self.profile.end[0])

    def zone_at(self, s: float) -> int:
        """Return the index of the zone holding path length ``s``."""
        return int(np.clip(np.searchsorted(self._zone_starts, s, side='right') - 1, 0,
                           len(self.zones) - 1))

    def brake(self, t: float) -> 'StretchTiming':
        """Return the fastest stop along the path from the profile's state at ``t`` (s)."""
        s, v, a, _ = (float(value[0]) for value in self.profile.state(np.array([t])))
        start = (s, v, a)
        phases: List[Phase] = []
        state = start
        k = self.zone_at(s)
        while True:
            zone = self.zones[k]
            room = zone.end - state[0]
            stop = velocity_change(state[1], state[2], 0.0, zone.acceleration, zone.jerk)
            if advance(state, stop)[0] - state[0] <= room or k == len(self.zones) - 1:
                phases.extend(stop)
                break
            exit_speed = self._exit_speed(state, room, zone)
            change = velocity_change(state[1], state[2], exit_speed, zone.acceleration,
                                     zone.jerk)
            phases.extend(change)
            state = advance(state, change)
            state = (zone.end, state[1], 0.0)
            k += 1
        return StretchTiming(self.zones, Profile(start, phases))

    @staticmethod
    def _exit_speed(state: Tuple[float, float, float], room: float, zone: Zone) -> float:
        """Return the lowest speed reached from ``state`` at rest in a within ``room``."""
        low, high = 0.0, max(state[1] + state[2] * abs(state[2]) / (2.0 * zone.jerk), 0.0)
        for _ in range(BISECTION_STEPS):
            middle = 0.5 * (low + high)
            change = velocity_change(state[1], state[2], middle, zone.acceleration, zone.jerk)
            if advance(state, change)[0] - state[0] <= room:
                high = middle
            else:
                low = middle
        return high
