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
Following one Cartesian path: its stretches in turn, brakes along it, what was achieved.

The path (:class:`ros_ik.paths.path_geometry.CartesianPath`, base frame) is followed stretch
by stretch (rest point to rest point): each is planned (:func:`plan_stretch`) from the
joints where the one before came to rest, the next one while the current one runs (one plan
per cycle), and started at the instant the one before comes to rest, so the commanded motion
is one continuous jerk-limited stream (:class:`StretchMotion`) that momentarily rests at each
rest point. A brake (:meth:`PathFollower.brake`: a cancel, a lagging arm, stale joint states,
a stall, a new collision scene) replaces the motion by the fastest stop along the path;
unless the path is over, the rest of the stretch is planned again from where it stopped.

The follower measures every command it returns: the tool pose of the commanded joints
against the path's pose at the commanded path length (position and orientation deviation on
the task rows), so the result's ``max_deviation`` is what was commanded, not a prediction.
"""

from typing import Dict, Optional, Tuple

import numpy as np

from ros_ik.control.path_motion import StretchMotion
from ros_ik.paths.path_geometry import CartesianPath
from ros_ik.paths.stretch_planner import (deviation, PathStop, PathTask, plan_stretch,
                                          PlannedStretch)
from ros_ik.trajectory.online_generator import MotionState

FINAL_BRAKES = ('cancel', 'replace')  # brakes after which the path is over
# m of path: a brake (a stall, a lagging arm) that comes to rest this close to the end of its
# stretch has arrived there (nothing is left to plan: the next stretch or the end follows).
AT_STRETCH_END = 1e-6
# How a stretch-ending ``PathStop`` of kind 'start' reads when nothing moved at all.
NOT_ON_PATH = 'the commanded joints are not on the path (it moved under them)'


class PathFollower:
    """The stretches of one path, the motion commanded along them and its measures."""

    def __init__(self, path: CartesianPath, task: PathTask, q_start: np.ndarray,
                 time: float) -> None:
        """Start at rest at ``q_start`` (on the path at 0) at command time ``time`` (s)."""
        self.path = path
        self.task = task
        self.stretch_index = 0
        self.motion: Optional[StretchMotion] = None
        self.previous_motion: Optional[StretchMotion] = None  # the last one that ended
        self.braking = ''  # why the motion is a brake ('' while it follows its plan)
        self.stop: Optional[PathStop] = None  # why the path ends early (once at rest)
        self.deviation = np.zeros(2)  # largest commanded (m, rad)
        self.s_commanded = 0.0
        self._final_q = np.asarray(q_start, dtype=float).copy()  # of the last rest
        self._rest = (0.0, self._final_q, time)  # where to start from next: (s, q, t)
        self._next: Optional[PlannedStretch] = None
        self._last_time = time

    @property
    def stretch_bounds(self) -> Tuple[float, float]:
        """Return the current stretch's rest points (m of path)."""
        return (float(self.path.rest_s[self.stretch_index]),
                float(self.path.rest_s[self.stretch_index + 1]))

    @property
    def last_stretch(self) -> bool:
        """Return whether the current stretch ends at the path's end."""
        return self.stretch_index == len(self.path.rest_s) - 2

    def finished(self) -> bool:
        """Return whether the path is over: at rest at its end, at a stop, or braked."""
        return self.motion is None and self._rest is None

    def step(self, time: float, hold: bool = False) -> MotionState:
        """
        Return the commanded state at command time ``time`` (s); plan what is due.

        At rest at the end of a stretch: the next one starts at that instant (or the rest
        of this one after a brake; not while ``hold``: the arm lags or its joint states are
        stale); at the path's end, at a stop or after a cancel the follower is finished
        (:meth:`finished`) and holds the last state. The stretch after the current one is
        planned from the cycle after the current one starts: the first moving command of a
        path waits for one stretch's planning only.
        """
        if self.motion is not None and time >= self.motion.end_time:
            self._arrive()
        started = self.motion is None and self._rest is not None and not hold
        if started:
            self._start_from_rest()
        motion = self.motion
        if motion is None:
            state = MotionState.at_rest(self._final_q)
        else:
            state = motion.state_at(time)
            self.s_commanded = motion.s_at(time)
            self._measure(state.position)
            if (self._next is None and not started and not self.braking
                    and not self.last_stretch):
                self._plan_next()
        self._last_time = time
        return state

    def checkpoint(self) -> Dict[str, object]:
        """
        Return the follower's state now, for :meth:`restore`.

        Every attribute is replaced, never changed in place, so a shallow copy of them is
        the whole state.
        """
        return dict(vars(self))

    def restore(self, checkpoint: Dict[str, object]) -> None:
        """
        Go back to a :meth:`checkpoint`: a cycle whose command was withdrawn unsent.

        JTC executes the previous command's horizon (its stop along the path from that
        command's time), so the follower continues from that command, as if the withdrawn
        cycle had not run: a brake after the stall starts where that stop started.
        """
        vars(self).update(checkpoint)

    def brake(self, reason: str, time: Optional[float] = None) -> None:
        """
        Replace the motion by the fastest stop along the path from the last command.

        ``reason``: 'cancel' and 'replace' (``FINAL_BRAKES``) end the path once at rest;
        any other reason plans the rest of the stretch again from there.
        """
        if self.braking in FINAL_BRAKES or (self.braking and reason not in FINAL_BRAKES):
            return  # braking already: the brake goes on
        self.braking = reason
        if self.motion is not None and self.motion.timing.profile.duration > 0.0:
            at = self._last_time if time is None else time
            self.motion = self.motion.braked(min(at, self.motion.end_time))
            self._next = None

    def resume(self, time: float, state: MotionState) -> None:
        """
        Continue after a stall from the state the command stream resumed at ``time``.

        A motion none of whose commands moved the arm yet starts at ``time`` as planned; a
        state at rest (a position stream held its last command, or the tail of a
        JointTrajectory stopped) plans the rest of the stretch from there; a moving one (a
        point of the JointTrajectory tail) follows that tail's brake. At rest already, the
        follower starts its next motion no earlier than ``time`` (the stream's time now).
        """
        if self.motion is None:
            self._last_time = max(self._last_time, time)
            return
        if not state.is_at_rest():
            self.brake('stall', self._last_time)
            return
        if self._last_time <= self.motion.t0 and not self.braking:
            # No command of this motion moved the arm yet (the stall was its own planning):
            # the arm rests where it starts, so it starts now as planned (planned again, it
            # stalled the loop again, for ever where planning takes longer than a stall).
            # Not a brake: it starts moving, at a command already sent (its cycle withdrawn,
            # restarted now it jumped from the rest JTC reached to that speed: 5223x).
            self.motion = StretchMotion(self.motion.stretch, self.motion.timing, time)
            return
        # The tail the controller followed: the brake from the last command.
        brake = self.motion.braked(min(self._last_time, self.motion.end_time))
        s = self._s_of(state.position, brake)
        self.previous_motion = brake
        self.motion, self._next = None, None
        if self.braking not in FINAL_BRAKES and s >= self.stretch_bounds[1] - AT_STRETCH_END:
            self._final_q, self.s_commanded = state.position.copy(), s
            self._arrived(state.position.copy(), time)
            return
        self._final_q = state.position.copy()  # held there while a hold lasts
        self._rest = (s, self._final_q, time)
        if not self.braking:
            self.braking = 'stall'

    def _s_of(self, q: np.ndarray, brake: StretchMotion) -> float:
        """Return the path length, among the last commanded and ``brake``'s end, of ``q``."""
        candidates = [self.s_commanded, brake.timing.s_end]
        positions = brake.stretch.joint_path.positions(np.array(candidates))
        return candidates[int(np.argmin(np.abs(positions - q).sum(axis=1)))]

    def _start_from_rest(self) -> None:
        """
        Start the current stretch (or its rest after a brake) from the kept rest state.

        It starts at the instant of the rest, or at the last command's time if the stream
        held the rest past it (a hold: the arm lagged, its joint states were stale): started
        at the rest's instant, its first command would lie that long into the motion, a step
        from the held rest.
        """
        s, q, rest_time = self._rest
        time = max(rest_time, self._last_time)
        s_start, s_end = self.stretch_bounds
        resumed = s > s_start + 1e-12 or self.braking
        stretch = self._next if (self._next is not None and not resumed) else plan_stretch(
            self.path, s, s_end, q, self.task)
        self._next = None
        self.braking = ''
        self._final_q = q
        if stretch.timing is None or stretch.timing.duration <= 0.0:
            self.stop = stretch.stop or PathStop('start', s, NOT_ON_PATH)
            self._rest = None
            return
        previous = self.previous_motion
        self.motion = StretchMotion(stretch, stretch.timing, time, before=previous if (
            previous is not None and previous.end_time == time) else None)
        self._rest = None

    def _arrive(self) -> None:
        """End the path at rest, or keep the rest state for what follows."""
        motion = self.motion
        s = motion.timing.s_end
        q = motion.stretch.joint_path.positions(np.array([s]))[0]
        self._final_q = q
        self.previous_motion, self.motion = motion, None
        self.s_commanded = s
        if self.braking in FINAL_BRAKES:
            self._rest = None
            return
        if self.braking and s < self.stretch_bounds[1] - AT_STRETCH_END:
            self._rest = (s, q, motion.end_time)
            return
        if motion.stretch.stop is not None:
            self.stop = motion.stretch.stop
            self._rest = None
            return
        self._arrived(q, motion.end_time)

    def _arrived(self, q: np.ndarray, time: float) -> None:
        """
        At rest at the stretch's end (joints ``q``) at ``time`` (s): go on from there.

        The next stretch starts from that rest (the path is over after its last), also
        after a brake (a stall, a lagging arm) that came to rest there: nothing is left to
        plan of this stretch.
        """
        self.braking = ''
        if self.last_stretch:
            self._rest = None
            return
        s = self.stretch_bounds[1]  # the next stretch's start (a brake stopped within
        self.stretch_index += 1     # AT_STRETCH_END of it, before the corner)
        self._rest = (s, q, time)

    def _plan_next(self) -> None:
        """Plan the next stretch from where the current one comes to rest."""
        motion = self.motion
        if motion.stretch.stop is not None:
            return
        s_rest = motion.stretch.s_end
        q_rest = motion.stretch.joint_path.positions(np.array([s_rest]))[0]
        s_start, s_end = (float(self.path.rest_s[self.stretch_index + 1]),
                          float(self.path.rest_s[self.stretch_index + 2]))
        self._next = plan_stretch(self.path, s_start, s_end, q_rest, self.task)

    def _measure(self, q: np.ndarray) -> None:
        """Keep the largest deviation of the commanded tool pose from the path."""
        T_tool = self.task.kinematics.tip_pose(q)
        dev_p, dev_o = deviation(self.task, self.path.pose_at(self.s_commanded)[None],
                                 T_tool[None])
        self.deviation = np.maximum(self.deviation, [dev_p[0], dev_o[0]])
