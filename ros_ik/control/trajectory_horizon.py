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
The horizon a JointTrajectory command carries: the committed commands and the stop after them.

A joint_trajectory_controller (JTC) replaces its trajectory by each new message at its next
update, samples it on its own clock and holds the last point. The commands therefore run
``lead`` seconds ahead of the clock (``trajectory_lead_time``): a cycle at time ``now``
commands the state for ``now + lead``, and its message carries

1. the commands already sent for times in ``[now - KEEP_PERIODS / update_rate, now +
   lead)`` (committed: every message that covers an instant says the same thing there),
2. the new command at ``now + lead``, preceded by states of the step that led to it every
   ``POINT_SPACING`` s (JTC splines between points: dense points keep its quintic on the
   generator's motion where the jerk switches within a cycle),
3. the hardest stop from it, ending at rest (velocity and acceleration exactly 0, as JTC's
   default ``allow_nonzero_velocity_at_trajectory_end: false`` requires), and the rest
   point again ``HOLD`` s later (JTC rejects a trajectory that ends before it arrives).
   The generator's stop is given at its jerk switches only (JTC's quintic between them is
   the stop itself: :meth:`OnlineGenerator.stop_samples`), a Cartesian path's stop along
   the path every ``PATH_TAIL_SPACING`` s.

A message delivered up to ``lead - 1 / update_rate`` late switches JTC between two
trajectories that agree on the segment it is in, so the setpoint stays continuous (JTC's
quintic between points with positions, velocities and accelerations reproduces the
generator's piecewise-cubic motion within a segment without a jerk switch). Later messages,
lost ones, or a node that died leave JTC on the stop: the arm brakes to rest along it. After
a stall of the node the stream resumes from the point of the last message JTC executed
(:meth:`TrajectoryHorizon.resume`), so it never fast-forwards. A stall inside a cycle,
between its clock and its publish, would deliver its message that late: JTC, on the
previous message's stop by then, would jump to the new one (0.011 rad on a UR5 after
0.5 s); such a message is withdrawn unsent (:meth:`TrajectoryHorizon.withdraw`) and the
stream resumes from the previous one. Not covered: a message lost right before a stall
longer than the lead; JTC then follows the previous message's stop and the resumed stream
starts from the lost one's, a step of about one period of motion.
"""

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ros_ik.trajectory.jtc_spline import spline, whole_nanoseconds
from ros_ik.trajectory.online_generator import MotionState

POINT_SPACING = 0.002  # s: at most this between the committed points (a 500 Hz controller)
# s between the points of a Cartesian path's stop after the newest command. JTC executes
# the stop when messages stop coming (a stall); its quintic between points through the
# stop's jerk switches reaches about 1.10x the acceleration limit at 5 ms spacing and 1.04x
# at 2 ms (Panda limits, 300 random states).
PATH_TAIL_SPACING = POINT_SPACING
KEEP_PERIODS = 2.0  # committed commands this many periods before the clock stay in a message
# s: the shortest segment a resumed stream adds inside a sent one (JTC's quintic over a
# segment T s long moves its acceleration by about 5.8 |v| 0.5e-9 / T^2 for a stamp
# rounded by 0.5 ns: 0.01 rad/s^2 at 1 ms and 3 rad/s).
MIN_SEGMENT = 0.5 * POINT_SPACING
# Points closer than this (s) would share a nanosecond stamp: a stop shorter than this is
# stretched to it (it moves less than a_max MIN_POINT_GAP^2, far below a nanometre).
MIN_POINT_GAP = 1e-6
# The rest point ends the horizon again this much later (s): JTC rejects a trajectory that
# ends in the past, and a message at rest delivered up to HOLD late must still be taken.
HOLD = 1.0


# (times (k,), positions, velocities, accelerations (k, n)) of consecutive points
Points = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Horizon:
    """
    The points of one JointTrajectory: times (k,) in s on the controller's clock.

    Positions, velocities and accelerations (k, n) in chain order; times strictly
    increasing; the last point at rest.
    """

    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray


def joined(parts: List[Points]) -> Horizon:
    """Return the horizon of consecutive ``parts`` (each ``Points``), in their order."""
    return Horizon(*(np.concatenate([part[field] for part in parts]) for field in range(4)))


class TrajectoryHorizon:
    """
    The last horizon sent and which of its points is the newest command (the anchor).

    After a stall the next horizon builds on the sent one cut at the point the stream
    resumed from (:meth:`resume`), kept apart: the sent one is still what JTC executes, the
    one a withdrawn message hands back to.
    """

    def __init__(self) -> None:
        """Start with nothing sent."""
        self.sent: Optional[Horizon] = None
        self._anchor = -1
        self._previous: Tuple[Optional[Horizon], int] = (None, -1)  # before the last extend
        self._resumed: Optional[Tuple[Horizon, int]] = None  # the basis after a stall

    def clear(self) -> None:
        """Forget what was sent (a restarted stream starts a new trajectory)."""
        self.sent, self._anchor = None, -1
        self._previous = (None, -1)
        self._resumed = None

    def withdraw(self) -> bool:
        """
        Take back the horizon of the last :meth:`extend` (it is not sent); return whether.

        The one before it is then the last sent, what JTC executes. Only once per extend,
        and not for the first horizon of a trajectory (nothing before it: False).
        """
        previous, anchor = self._previous
        if previous is None:
            return False
        self.sent, self._anchor = previous, anchor
        self._previous = (None, -1)
        self._resumed = None
        return True

    def extend(self, since: float, time: float, state: MotionState, between: Points,
               stop: Points) -> Horizon:
        """
        Return the horizon with the command ``state`` for ``time`` (s); keep it as sent.

        The points of the last horizon up to its anchor and from ``since`` on come first
        (those before the first of ``between`` only), then ``between`` (the step's motion
        from the anchor to ``time``, absolute times), the command, then ``stop`` (times
        relative to ``time``; :meth:`OnlineGenerator.stop_samples`).
        """
        self._previous = (self.sent, self._anchor)
        sent, anchor = self._resumed or (self.sent, self._anchor)
        self._resumed = None
        stop_times, stop_p, stop_v, stop_a = stop
        end = between[0][0] if len(between[0]) else time
        stop_times = np.maximum(stop_times, MIN_POINT_GAP)
        kept = slice(0, 0)
        if sent is not None:
            committed = sent.times[:anchor + 1]
            first = min(int(np.searchsorted(committed, since, side='right')) - 1,
                        len(committed) - 1)
            last = int(np.searchsorted(committed, end, side='left'))
            kept = slice(max(first, 0), last)
        parts = [(sent.times[kept], sent.positions[kept], sent.velocities[kept],
                  sent.accelerations[kept])] if sent is not None else []
        parts.append(between)
        parts.append((np.array([time]), state.position[None, :], state.velocity[None, :],
                      state.acceleration[None, :]))
        self._anchor = sum(len(part[0]) for part in parts) - 1
        parts.append((time + stop_times, stop_p, stop_v, stop_a))
        rest = parts[-1] if len(stop_times) else parts[-2]
        end_time = rest[0][-1]
        parts.append((np.array([end_time + HOLD]), rest[1][-1:], np.zeros_like(rest[2][-1:]),
                      np.zeros_like(rest[3][-1:])))
        horizon = joined(parts)
        self.sent = horizon
        return horizon

    def resume(self, time: float, period: float) -> Optional[Tuple[float, MotionState]]:
        """
        Return the state JTC executes at ``time - period`` along the sent horizon (its time).

        That point becomes the anchor: after a stall the controller continues from what
        JTC executed meanwhile, and the next message keeps the sent points up to it. It is
        the last sent point at or before ``time`` where that is less than ``period`` (or
        ``MIN_SEGMENT``) before it, else JTC's spline between that point and the next one
        at ``time - period`` (added as a point, at a whole nanosecond, at least
        ``MIN_SEGMENT`` from both): the generator's stop has points at its jerk switches
        only, tenths of a second apart, and the next command then follows one period after
        a state JTC passed, as after a cycle in time. A point at rest is held until ``time
        - period`` (a copy of it is added there). The sent horizon itself stays whole: if
        the next message is withdrawn too, JTC goes on along it (its stop), and the stream
        resumes from it again (cut here, a second resume found the cut point, ~0.1 s old,
        and jumped to it: 2295x the acceleration limit in JTC's setpoint).
        """
        sent = self.sent
        if sent is None:
            return None
        index = int(np.searchsorted(sent.times, time, side='right')) - 1
        if index < 0:
            return None
        state = self._point(index)
        point_time = float(sent.times[index])
        kept = slice(0, index + 1)
        parts = [(sent.times[kept], sent.positions[kept], sent.velocities[kept],
                  sent.accelerations[kept])]
        resumed_time = None
        if state.is_at_rest():
            if time - period > point_time + MIN_POINT_GAP:
                resumed_time = time - period  # a hold: any segment length is exact
        elif index + 1 < len(sent.times):  # inside a segment (a horizon ends at rest)
            latest = float(whole_nanoseconds(min(time - period,
                                                 sent.times[index + 1] - MIN_SEGMENT)))
            if latest - point_time >= MIN_SEGMENT:
                resumed_time = latest
                state = self._spline_at(index, latest)
        if resumed_time is not None:
            point_time = resumed_time
            parts.append((np.array([point_time]), state.position[None, :],
                          state.velocity[None, :], state.acceleration[None, :]))
        self._resumed = (joined(parts), sum(len(part[0]) for part in parts) - 1)
        self._previous = (None, -1)
        return point_time, state

    def _point(self, index: int) -> MotionState:
        """Return a copy of the sent point ``index`` as a state."""
        sent = self.sent
        return MotionState(sent.positions[index].copy(), sent.velocities[index].copy(),
                           sent.accelerations[index].copy())

    def _spline_at(self, index: int, time: float) -> MotionState:
        """Return JTC's state at ``time`` (s) between the sent points ``index`` and next."""
        sent, following = self.sent, index + 1
        setpoint = spline(float(sent.times[index]), (sent.positions[index],
                                                     sent.velocities[index],
                                                     sent.accelerations[index]),
                          float(sent.times[following]), (sent.positions[following],
                                                         sent.velocities[following],
                                                         sent.accelerations[following]),
                          time)
        return MotionState(setpoint.position, setpoint.velocity, setpoint.acceleration)
