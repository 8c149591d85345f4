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
The online trajectory generator: synchronised, jerk-limited joint motion, re-planned each cycle.

Each call plans, from the current commanded state (position, velocity, acceleration per
joint), the fastest jerk-limited motion of every joint to rest at its target
(:mod:`ros_ik.trajectory.jerk_profile`), stretches the faster joints so that all arrive at
the slowest one's time ``T = max_j T_j`` (time synchronisation, as Ruckig and Reflexxes
Type IV do), and returns the state ``dt`` seconds along. Called every control cycle with the
newest target, it preempts the previous plan with position, velocity and acceleration
continuous (the new plan starts from the exact state of the old one).

Limits hold on the whole continuous trajectory, so they also hold for the finite
differences of its samples at any (uneven) times: a divided difference of order k is a
weighted mean of the k-th derivative.

* velocity, acceleration and jerk: by construction of every profile, for any state
  reached under these limits;
* position: targets are clipped into the bounds; a joint never passes the point where its
  hardest braking stops, and every state this generator produces can stop inside the bounds,
  so from such a state the motion stays inside. A joint that starts outside (an encoder
  reading past a limit) moves back in under the same rate limits.

``speed_fraction`` in (0, 1] scales the velocity limits for one call (servo speeds); a
joint faster than that slows down under the acceleration and jerk limits. A state at rest
within ``REST_TOLERANCE`` of its target is returned as it is (the same object, no plan):
the arm holds still, and an arm at rest repeats the same joints bit for bit.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numba
import numpy as np

from ros_ik.trajectory.jerk_profile import SEGMENTS
from ros_ik.trajectory.jtc_spline import NANOSECOND, whole_nanoseconds
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.synchronized_plans import (sample_motion_into, sample_plan_at_into,
                                                  step_and_stop_samples_into, stop_plan_into,
                                                  stopping_positions_into,
                                                  synchronized_plan_into, synchronized_step_into)

SPEED_FRACTION_FLOOR = 1e-3
# A state at rest this close to its target in every joint (rad or m) stays where it is:
# servo goals that differ from the joints by rounding noise do not creep the arm by ulps.
REST_TOLERANCE = 1e-9
# s: jerk switches of a stop closer than this to each other (or to its start) share one
# sample. JTC's quintic over a shorter segment amplifies the rounding of its end states
# (about 5.8 * 1e-15 rad / T^2: 0.06 rad/s^2 at 1 us); a merged switch bends the segment
# by about a tenth of the jerk change times this (Panda limits: 0.17 % of the
# acceleration limit at 10 us, against 4 % for samples every 2 ms).
SWITCH_MERGE = 1e-5
END_MARGIN = 1e-12  # s before a profile's end where it is sampled as integrated


# The checks every control cycle makes of its goal and states, compiled: numpy's reductions
# cost about 3 us per array for 7 joints, a few times each cycle.
@numba.njit(cache=True, nogil=True)
def all_finite(values: np.ndarray) -> bool:
    """Return whether every value of ``values`` (n,) is finite."""
    for j in range(values.shape[0]):
        if not np.isfinite(values[j]):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def at_rest(velocity: np.ndarray, acceleration: np.ndarray, tolerance: float) -> bool:
    """Return whether every ``|velocity|`` and ``|acceleration|`` (n,) is within ``tolerance``."""
    for j in range(velocity.shape[0]):
        if not (abs(velocity[j]) <= tolerance and abs(acceleration[j]) <= tolerance):
            return False
    return True


@dataclass(frozen=True)
class MotionState:
    """Commanded state (n,) per joint: position, velocity, acceleration (chain units)."""

    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray

    @classmethod
    def at_rest(cls, position: np.ndarray) -> 'MotionState':
        """Return the state at rest at ``position`` (n,)."""
        position = np.array(position, dtype=float)
        return cls(position, np.zeros_like(position), np.zeros_like(position))

    def is_finite(self) -> bool:
        """Return whether every value is finite."""
        return (all_finite(self.position) and all_finite(self.velocity)
                and all_finite(self.acceleration))

    def is_at_rest(self, tolerance: float = 1e-9) -> bool:
        """Return whether velocity and acceleration are zero (within ``tolerance``)."""
        return at_rest(self.velocity, self.acceleration, tolerance)


@dataclass(frozen=True)
class MotionPlan:
    """What a step followed: its start state, target and velocity limits (n,), sync flag."""

    start: MotionState
    target: np.ndarray
    velocity_limits: np.ndarray
    synchronize: bool


@dataclass(frozen=True)
class MotionStep:
    """
    One cycle's output: the new state and how long the plan still takes (s).

    ``plan``: the motion the step followed (None for a state set directly), so that
    states between the start and ``state`` can be sampled (:meth:`OnlineGenerator.between`).
    """

    state: MotionState
    remaining: float
    plan: Optional[MotionPlan] = None


def switch_instants(ends: np.ndarray, duration: float) -> np.ndarray:
    """
    Return the instants (s) in ``(0, duration]`` of a plan's segment ``ends``, merged.

    Sorted, in whole nanoseconds (:func:`whole_nanoseconds`: the states sampled there are
    those of the instants a JointTrajectory names). ``duration`` itself is always the last
    one (empty when it is 0: at rest; at least one nanosecond); instants within
    ``SWITCH_MERGE`` of the start, of ``duration`` or of the instant kept before them are
    dropped.
    """
    if duration <= 0.0:
        return np.empty(0)
    end = max(float(whole_nanoseconds(duration)), NANOSECOND)
    kept = []
    for instant in whole_nanoseconds(np.sort(ends)):
        if (SWITCH_MERGE <= instant <= end - SWITCH_MERGE
                and (not kept or instant - kept[-1] >= SWITCH_MERGE)):
            kept.append(float(instant))
    kept.append(end)
    return np.array(kept)


class OnlineGenerator:
    """Jerk-limited, time-synchronised motion for one chain's joints."""

    def __init__(self, limits: MotionLimits) -> None:
        """Keep the chain's limits."""
        self.limits = limits
        # Rows for samples(), kept between calls: allocating max_samples rows each call
        # (a fresh mapping of a megabyte) cost more than sampling a short motion.
        self._sample_rows = np.empty((0, limits.n_joints))
        self._sample_variation = np.empty((0, limits.n_joints))

    def inside_bounds(self, position: np.ndarray) -> np.ndarray:
        """Return ``position`` (n,) clipped into the position bounds (NaN stays NaN)."""
        # np.minimum(np.maximum()) is np.clip without its Python dispatch (~3x faster)
        return np.minimum(np.maximum(position, self.limits.lower), self.limits.upper)

    def stopping_positions(self, state: MotionState) -> np.ndarray:
        """Return where each joint (n,) comes to rest braking as hard as the limits allow."""
        out = np.empty_like(state.position)
        stopping_positions_into(state.position, state.velocity, state.acceleration,
                                self.limits.acceleration, self.limits.jerk, out)
        return out

    def step(self, state: MotionState, target: np.ndarray, dt: float,
             speed_fraction: float = 1.0,
             velocity_caps: Optional[np.ndarray] = None) -> MotionStep:
        """
        Return the state ``dt`` s (>= 0) along the synchronised motion to rest at ``target``.

        ``target`` (n,) is clipped into the bounds first. ``velocity_caps`` (n,), if given,
        lowers each joint's velocity limit for this call (a jog's per-joint speeds; never
        above the limits, never below ``SPEED_FRACTION_FLOOR`` of them) and each joint then
        follows its own fastest profile: a joint whose target was clipped at a bound gets
        there without holding the others back.
        """
        limits = self.limits
        n = limits.n_joints
        target = self.inside_bounds(np.asarray(target, dtype=float))
        if (state.is_at_rest()
                and np.abs(target - state.position).max(initial=0.0) <= REST_TOLERANCE):
            return MotionStep(state, 0.0)
        out_p, out_v, out_a = np.empty(n), np.empty(n), np.empty(n)
        plan = MotionPlan(state, target, self._velocity_limits(speed_fraction, velocity_caps),
                          velocity_caps is None)
        remaining = synchronized_step_into(
            state.position, state.velocity, state.acceleration, plan.target,
            plan.velocity_limits, limits.acceleration, limits.jerk, max(float(dt), 0.0),
            plan.synchronize, out_p, out_v, out_a)
        return MotionStep(MotionState(out_p, out_v, out_a), max(remaining, 0.0), plan)

    def between(self, plan: MotionPlan, times: np.ndarray
                ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return positions, velocities, accelerations (k, n) at ``times`` (k,) s into ``plan``."""
        limits = self.limits
        n = limits.n_joints
        start = plan.start
        jerks, durations = np.zeros((n, SEGMENTS)), np.zeros((n, SEGMENTS))
        synchronized_plan_into(start.position, start.velocity, start.acceleration, plan.target,
                               plan.velocity_limits, limits.acceleration, limits.jerk,
                               plan.synchronize, jerks, durations)
        out = tuple(np.empty((len(times), n)) for _ in range(3))
        sample_plan_at_into(start.position, start.velocity, start.acceleration, plan.target,
                            jerks, durations, np.asarray(times, dtype=float), *out)
        return out

    def _velocity_limits(self, speed_fraction: float,
                         velocity_caps: Optional[np.ndarray]) -> np.ndarray:
        """Return the velocity limits (n,) of one call (see :meth:`step`)."""
        limits = self.limits
        fraction = min(max(float(speed_fraction), SPEED_FRACTION_FLOOR), 1.0)
        velocity = limits.velocity * fraction
        if velocity_caps is not None:
            velocity = np.clip(np.abs(velocity_caps), SPEED_FRACTION_FLOOR * limits.velocity,
                               velocity)
        return velocity

    def samples(self, state: MotionState, target: np.ndarray, weights: np.ndarray,
                spacing: float, max_samples: int, speed_fraction: float = 1.0,
                velocity_caps: Optional[np.ndarray] = None
                ) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """
        Return positions (k, n) along the motion :meth:`step` follows to ``target``.

        From ``state.position`` to the end at rest, with ``variation`` (k - 1, n): how far
        each joint may move between consecutive rows; the weighted path length
        ``sum_j weights_j |dq_j|`` between rows stays below ``spacing`` (see
        :func:`sample_motion_into`). None when it needs more than ``max_samples`` rows.
        """
        limits = self.limits
        out, variation = self._rows(max_samples)
        count = sample_motion_into(
            state.position, state.velocity, state.acceleration,
            self.inside_bounds(np.asarray(target, dtype=float)),
            self._velocity_limits(speed_fraction, velocity_caps), limits.acceleration,
            limits.jerk, velocity_caps is None, np.asarray(weights, dtype=float),
            float(spacing), out, variation)
        return self._taken(count)

    def step_and_stop_samples(self, state: MotionState, following: MotionState, dt: float,
                              weights: np.ndarray, spacing: float, max_samples: int
                              ) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """
        Return positions (k, n) of the step from ``state`` to ``following`` and the stop after.

        Row 0 is ``state.position``, row 1 ``following.position`` (``dt`` s later), then
        the hardest stop from ``following`` (the motion :meth:`brake_step` follows),
        sampled as :meth:`samples` does; ``variation`` (k - 1, n) first bounds the step
        (``|v_j| dt + a_max_j dt^2 / 2``, ``v`` of ``state``), then the stop's intervals.
        None when it needs more than ``max_samples`` rows.
        """
        limits = self.limits
        out, variation = self._rows(max_samples)
        count = step_and_stop_samples_into(
            state.position, state.velocity, float(dt), following.position,
            following.velocity, following.acceleration, limits.lower, limits.upper,
            limits.velocity, limits.acceleration, limits.jerk,
            np.asarray(weights, dtype=float), float(spacing), out, variation)
        return self._taken(count)

    def _rows(self, max_samples: int) -> Tuple[np.ndarray, np.ndarray]:
        """Return the kept sample rows and variations, ``max_samples`` (reallocated if not)."""
        if len(self._sample_rows) != max_samples:
            self._sample_rows = np.empty((max_samples, self.limits.n_joints))
            self._sample_variation = np.empty((max_samples, self.limits.n_joints))
        return self._sample_rows, self._sample_variation

    def _taken(self, count: int) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """Return copies of the first ``count`` kept rows and their variations (None: <= 0)."""
        if count <= 0:
            return None
        return self._sample_rows[:count].copy(), self._sample_variation[:count - 1].copy()

    def duration(self, state: MotionState, target: np.ndarray) -> float:
        """Return how long (s) the synchronised motion from ``state`` to ``target`` takes."""
        return self.step(state, target, 0.0).remaining

    def stop_samples(self, state: MotionState
                     ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """
        Return the hardest stop from ``state`` at the instants where a joint's jerk switches.

        ``(times (k,), positions, velocities, accelerations (k, n))``, times in s after
        ``state``; the last row is the end of the stop, exactly at rest (where the integrated
        profiles end, within 1e-9 of :meth:`stopping_positions`). Empty (k = 0) when
        ``state`` is at rest. The motion is the one :meth:`brake_step` follows. Between
        consecutive rows every joint's jerk is constant, so its motion there is the cubic
        that the rows' states fix, and joint_trajectory_controller's quintic through them
        is that cubic (:mod:`ros_ik.trajectory.jtc_spline`): at most ``7 n`` rows describe
        the stop. Against samples every 2 ms (400 random moving states per arm, stamps
        rounded as a message rounds them, the spline sampled at 5 kHz): UR5 limits 18 rows
        instead of 197 (median), peak acceleration 1.0000 instead of 1.0007 of the limit,
        jerk 1.002 instead of 1.442; Panda limits 22 instead of 34, 1.0018 instead of
        1.0396, jerk 1.009 instead of 1.556. Instants closer than ``SWITCH_MERGE`` share a
        row. The times are whole nanoseconds: from a command at a whole nanosecond
        (:meth:`CommandStream.advance_clock`) a message names the very instants the rows
        describe.
        """
        limits = self.limits
        n = limits.n_joints
        target, jerks, durations = np.empty(n), np.empty((n, SEGMENTS)), np.empty((n, SEGMENTS))
        duration = stop_plan_into(state.position, state.velocity, state.acceleration,
                                  limits.lower, limits.upper, limits.velocity,
                                  limits.acceleration, limits.jerk, target, jerks, durations)
        times = switch_instants(np.cumsum(durations, axis=1).ravel(), duration)
        count = len(times)
        positions, velocities, accelerations = (np.empty((count, n)) for _ in range(3))
        sample_plan_at_into(state.position, state.velocity, state.acceleration, target, jerks,
                            durations, times, positions, velocities, accelerations)
        # Each joint rests where its integrated profile ends (sampled a picosecond before,
        # where the plan still integrates): the plan's jump from there to ``target``, up to
        # 1e-9 rad, would bend JTC's quintic over a short segment (2.9x the jerk limit
        # over 0.2 ms in a 0.5 ms segment, UR5 limits). Rows within a nanosecond of a
        # joint's end rest.
        ends = durations.sum(axis=1)
        end_positions = np.empty((n, n))
        sample_plan_at_into(state.position, state.velocity, state.acceleration, target, jerks,
                            durations, np.maximum(ends - END_MARGIN, 0.0), end_positions,
                            np.empty((n, n)), np.empty((n, n)))
        rest = np.clip(np.diag(end_positions), limits.lower, limits.upper)
        ended = times[:, None] >= ends[None, :] - NANOSECOND
        positions[:] = np.where(ended, rest, positions)
        velocities[ended] = 0.0
        accelerations[ended] = 0.0
        if count:
            positions[-1], velocities[-1], accelerations[-1] = rest, 0.0, 0.0
        return times, positions, velocities, accelerations

    def brake_step(self, state: MotionState, dt: float) -> MotionStep:
        """Return the state ``dt`` s along the hardest stop (the stop points kept in bounds)."""
        return self.step(state, self.stopping_positions(state), dt)
