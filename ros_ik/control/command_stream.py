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
The command stream: the commanded state, its time stamps, stalls, JointTrajectory horizons.

The stream is one continuous jerk-limited trajectory. It keeps the commanded state
(position, velocity, acceleration, chain order) and the time of the last command, and each
cycle at time ``now`` (s, the caller's clock) commands the state for ``now + lead``:
``dt = now + lead - t_previous`` (:meth:`CommandStream.advance_clock`). ``lead`` is
``trajectory_lead_time`` for JointTrajectory commands (each carries a horizon,
:mod:`ros_ik.control.trajectory_horizon`), at least ``MIN_LEAD_PERIODS`` periods, and 0
otherwise.

A gap longer than ``MAX_STEP_PERIODS`` periods (JointTrajectory: the lead less a period) is
a stall (the process did not run): the stream never fast-forwards through it but continues
from what the arm's controller executed meanwhile, the last horizon's point at the clock
(JointTrajectory) or, for position streams, the last command held at rest; stamps stay
within a period of the clock (:meth:`CommandStream.resume_after_stall`). A restart
(:meth:`CommandStream.start`) begins at rest at the measured joints, which moves nothing.

Takes the generator's step of each cycle (:meth:`CommandStream.commit`) and returns the
command to publish (:meth:`CommandStream.command`); keeps the recent commands for the arm's
lag (:class:`ros_ik.control.command_history.CommandHistory`).
"""

from typing import Callable, Optional, Tuple

import numpy as np

from ros_ik.control.command_history import CommandHistory
from ros_ik.control.cycle_types import Command, Notice
from ros_ik.control.parameters import Settings
from ros_ik.control.trajectory_horizon import (KEEP_PERIODS, PATH_TAIL_SPACING,
                                               POINT_SPACING, Points, TrajectoryHorizon)
from ros_ik.trajectory.jtc_spline import whole_nanoseconds
from ros_ik.trajectory.online_generator import MotionState, MotionStep, OnlineGenerator

# A gap between cycles longer than this many nominal periods is a stall of the process.
MAX_STEP_PERIODS = 5.0
# JointTrajectory commands lead the clock by at least this many periods.
MIN_LEAD_PERIODS = 3.0


class CommandStream:
    """The commanded state of one arm and the times of its commands (module docstring)."""

    def __init__(self, is_continuous: np.ndarray, joint_trajectory: bool) -> None:
        """Start with no command; ``joint_trajectory``: commands carry horizons."""
        self.state: Optional[MotionState] = None  # None until the first command
        self.last_time = 0.0  # s: the time of the last command
        self.rest_since = 0.0  # s: the command time since which the state is at rest
        self.history = CommandHistory(is_continuous)
        self._horizon = TrajectoryHorizon() if joint_trajectory else None

    def is_at_rest(self) -> bool:
        """Return whether the commanded motion is at rest (or no command was sent yet)."""
        return self.state is None or self.state.is_at_rest()

    def lead(self, settings: Settings) -> float:
        """
        Return how far ahead of the clock commands are (s): JointTrajectory horizons.

        ``trajectory_lead_time``, at least ``MIN_LEAD_PERIODS`` periods (a message must be
        able to arrive a period late and still find JTC on the committed commands).
        """
        if self._horizon is None:
            return 0.0
        return max(settings.trajectory_lead_time, MIN_LEAD_PERIODS / settings.update_rate)

    def stall_gap(self, settings: Settings) -> float:
        """
        Return the gap between cycles (s) past which the loop counts as stalled.

        Position streams: ``MAX_STEP_PERIODS`` periods. JointTrajectory: the lead less one
        period, since a message sent later reaches JTC after (or within a period of) the
        end of the committed commands, when it may already follow the stop.
        """
        period = 1.0 / settings.update_rate
        if self._horizon is None:
            return MAX_STEP_PERIODS * period
        return self.lead(settings) - period

    def start(self, q_measured: np.ndarray, time: float) -> None:
        """Start (or restart) the stream at rest at the measured joints at ``time`` (s)."""
        self.state = MotionState.at_rest(q_measured)
        self.last_time = self.rest_since = time
        self.history.clear()
        if self._horizon is not None:
            self._horizon.clear()

    def has_stalled(self, now: float, settings: Settings) -> bool:
        """Return whether the command for ``now`` comes longer than the stall gap late."""
        return now + self.lead(settings) - self.last_time > self.stall_gap(settings)

    def resume_after_stall(self, now: float, settings: Settings) -> Notice:
        """
        Continue after a stall from what the arm's controller executed meanwhile.

        JointTrajectory: the last horizon's point at or before the command time ``now +
        lead`` (the controller followed the committed commands, then the stop). Position
        streams: the last command, held (the controller held it). A state at rest is taken
        one period before the command time, so the next step is one period long.
        """
        command_time = now + self.lead(settings)
        gap, period = command_time - self.last_time, 1.0 / settings.update_rate
        resumed = (self._horizon.resume(command_time, period) if self._horizon is not None
                   else None)
        time, state = resumed if resumed is not None else (
            command_time - period, MotionState.at_rest(self.state.position))
        self.state, self.last_time = state, time
        return Notice('warn', 'command:stall', f'the control loop stalled for {gap:.3f} s; '
                      'continuing from what the arm executed meanwhile (no fast-forward)')

    def withdraw_if_late(self, now: float, settings: Settings) -> Optional[Notice]:
        """
        Take back this cycle's JointTrajectory command if it is sent too late; return why.

        The cycle ran for the command time ``t_c = now_cycle + lead``; sent at ``now``, its
        message reaches JTC after the committed commands of the previous one end when
        ``now + lead - t_c`` exceeds the stall gap (the process stalled inside the cycle),
        and JTC would then jump from that message's stop to the new horizon. Withdrawn, the
        message is not sent and the next cycle resumes after the stall from the previous
        message's points (:meth:`resume_after_stall`). None: send it (position streams, a
        cycle in time, or the first horizon of a trajectory).
        """
        if (self._horizon is None or not self.has_stalled(now, settings)
                or not self._horizon.withdraw()):
            return None
        took = now + self.lead(settings) - self.last_time
        return Notice('warn', 'command:late', f'the control cycle took {took:.3f} s (the '
                      'process stalled inside it): its JointTrajectory would reach the '
                      "controller after it began the previous one's stop; not sent, "
                      'continuing from what the controller executes')

    def advance_clock(self, now: float, settings: Settings) -> float:
        """
        Move the command time to ``now + lead``; return the step ``dt`` (s, never < 0).

        The command time is a whole nanosecond (:func:`whole_nanoseconds`), as a
        JointTrajectory names it: the stop a horizon carries after the command has its
        rows at whole nanoseconds after it, so the message names the instants they describe.
        """
        time = max(float(whole_nanoseconds(now + self.lead(settings))), self.last_time)
        dt = time - self.last_time
        self.last_time = time
        return dt

    def commit(self, step: MotionStep, settings: Settings) -> None:
        """Take the generator's step as the new commanded state (sent at ``last_time``)."""
        if not step.state.is_at_rest():
            self.rest_since = self.last_time
        self.state = step.state
        self.history.add(self.last_time, step.state.position, settings.joint_state_timeout)

    def command(self, step: MotionStep, dt: float, now: float, generator: OnlineGenerator,
                settings: Settings, path=None) -> Command:
        """
        Return the command of the committed ``step`` (``dt`` s long) at cycle time ``now``.

        JointTrajectory: its horizon keeps the commands since ``now - KEEP_PERIODS`` periods,
        adds the step's states between the commands and the hardest stop after it; for a
        path step (``path``: its :class:`StretchMotion`) both are the path's own, so the
        horizon stays on the path.
        """
        state = step.state
        horizon = None
        if self._horizon is not None:
            if path is not None:
                between = self._points_between(path.samples, dt)
                stop = path.stop_samples(self.last_time, PATH_TAIL_SPACING)
            else:
                start = self.last_time - dt
                between = self._points_between(
                    None if step.plan is None else
                    lambda times: generator.between(step.plan, times - start), dt)
                stop = generator.stop_samples(state)
            horizon = self._horizon.extend(now - KEEP_PERIODS / settings.update_rate,
                                           self.last_time, state, between, stop)
        return Command(state.position, state.velocity, state.acceleration, dt, self.last_time,
                       horizon)

    def _points_between(self, sample: Optional[Callable[[np.ndarray], Tuple]],
                        dt: float) -> Points:
        """
        Return states of the motion strictly inside the last ``dt`` s, absolute times.

        At most ``POINT_SPACING`` apart; ``sample(times)`` gives positions, velocities and
        accelerations at absolute times (None: a state set directly, no points).
        """
        count = int(np.ceil(dt / POINT_SPACING - 1e-9)) - 1
        n = len(self.state.position)
        if count <= 0 or sample is None:
            return np.empty(0), np.empty((0, n)), np.empty((0, n)), np.empty((0, n))
        times = self.last_time - dt + dt * np.arange(1, count + 1) / (count + 1)
        return (times,) + tuple(sample(times))
