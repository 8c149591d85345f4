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
Path mode's goal: a Cartesian path, approached, followed, braked along, and its outcome.

A path (:class:`PathInput`, waypoints in the base frame) starts where the tool is:

* one waypoint: the straight line from the tool's pose to it;
* several, the first within ``path_position_tolerance`` / ``path_orientation_tolerance`` of
  the tool: from the tool's pose through the others;
* several, the first elsewhere: ``path_approach`` ``move`` reaches the first waypoint first
  as solve mode does (the nearest IK solution whose whole motion is free,
  :class:`SolveGoals`), then follows the path from there (the status says so); ``refuse``
  refuses the path.

Then :class:`PathFollower` commands it stretch by stretch. The outcome
(:class:`PathOutcome`) says what was achieved: ``fraction`` of the path's length, the
largest commanded deviation, the waypoint ahead where it stopped, and why (a joint at its
limit, a singular configuration, the edge of the reach, a link pair that would collide, a
failed approach, a cancel, a replacement). A new target or jog replaces a path at once (the
generator takes the motion over, continuous); a new path first brakes the running one
along its path, then starts. A cancel brakes along the path.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from ros_ik.control.arm import ControlledArm
from ros_ik.control.cycle_types import Goal, GoalChoice, HOLD, Notice
from ros_ik.control.inputs import Target
from ros_ik.control.motion_step import MotionStepper
from ros_ik.control.parameters import Settings
from ros_ik.control.path_following import PathFollower
from ros_ik.control.path_input import distinct_waypoints, PathInput
from ros_ik.control.solve_goals import SolveGoals
from ros_ik.paths.path_geometry import CartesianPath
from ros_ik.paths.path_timing import Caps
from ros_ik.paths.stretch_planner import deviation, PathTask
from ros_ik.trajectory.online_generator import MotionState

RUNNING, SUCCEEDED, ABORTED, CANCELED = 'running', 'succeeded', 'aborted', 'canceled'
LEVELS = {RUNNING: 'OK', SUCCEEDED: 'OK', ABORTED: 'ERROR', CANCELED: 'WARN'}


@dataclass(frozen=True)
class PathOutcome:
    """
    What a path achieved so far (``status`` RUNNING) or in the end.

    ``fraction``: of the path's length (0..1); ``deviation``: the largest commanded
    position (m) and orientation (rad) deviation; ``waypoint``: the index (in the path as
    sent, repeated waypoints included) of the waypoint ahead, the last one when reached;
    ``reason``: 'joint_limit', 'singularity', 'unreachable', 'collision', 'start',
    'approach', 'refused', 'tf', 'replaced', 'canceled' or '' (none); ``request``: the
    action goal it answers (None: the topic).
    """

    sequence: int
    status: str
    fraction: float
    deviation: Tuple[float, float]
    waypoint: int
    message: str
    reason: str = ''
    joint: str = ''
    pair: Tuple[str, str] = ()
    request: Optional[object] = None


class PathGoals:
    """The path stage of the cycle (see the module docstring)."""

    def __init__(self, arm: ControlledArm, stepper: MotionStepper, solve: SolveGoals) -> None:
        """Keep the arm, the motion step (its generator's limits, collision checks), solve."""
        self.arm, self.stepper, self.solve = arm, stepper, solve
        self.input: Optional[PathInput] = None
        self.follower: Optional[PathFollower] = None
        self.outcome: Optional[PathOutcome] = None
        self.ended: List[PathOutcome] = []  # final outcomes not yet taken (take_ended)
        self._approach: Optional[Target] = None
        self.pending: Optional[PathInput] = None  # begins once the motion is at rest
        self.taken: Optional[PathInput] = None  # the last path taken (running or not)
        self._user_index = np.zeros(0, dtype=int)  # path waypoint -> waypoint as sent
        self._waypoints = np.zeros((0, 4, 4))  # the path's waypoints as sent, distinct
        self._settings: Optional[Settings] = None
        # The follower and its state before this cycle's step (None: no follower then).
        self._checkpoint: Optional[Tuple[PathFollower, Dict[str, object]]] = None

    def is_running(self) -> bool:
        """Return whether a path drives the arm (approaching, following or braking)."""
        return self.outcome is not None and self.outcome.status == RUNNING

    def take(self, path: PathInput, state: MotionState) -> None:
        """
        Take ``path`` (in the base frame); it begins once the commanded motion is at rest.

        A running path brakes along itself first; any other motion (a target's, a jog's)
        brakes to rest by the generator.
        """
        self.pending = self.taken = path
        if self.is_running() and self.follower is not None and not state.is_at_rest():
            self.follower.brake('replace')
            return
        if self.is_running():
            self._finish(ABORTED, 'replaced by a new path', 'replaced')
        self.follower = self._approach = None
        self.outcome = PathOutcome(path.sequence, RUNNING, 0.0, (0.0, 0.0), 0,
                                   'coming to rest before the path',
                                   request=path.options.request)

    def drop(self, why: str) -> None:
        """End a running path at once: a target or jog took over (``why`` says which)."""
        self.abort(f'replaced by {why}', 'replaced')

    def abort(self, message: str, reason: str) -> None:
        """End a running path at once, where it is (the motion is taken over elsewhere)."""
        if self.is_running():
            self._finish(ABORTED, message, reason)
        self.follower = self._approach = self.pending = None

    def refuse(self, path: PathInput, message: str, reason: str) -> None:
        """Record the outcome of a path refused before it started (bad frames, TF)."""
        self.outcome = PathOutcome(path.sequence, ABORTED, 0.0, (0.0, 0.0), 0, message,
                                   reason, request=path.options.request)
        self.ended.append(self.outcome)

    def take_ended(self) -> List[PathOutcome]:
        """Return the final outcomes of the paths that ended since the last call."""
        ended, self.ended = self.ended, []
        return ended

    def cancel(self, request: object) -> bool:
        """Brake the running path along itself if it answers ``request``; return whether."""
        pending = self.pending
        if pending is not None and pending.options.request is request:
            self.pending = None
            self.outcome = PathOutcome(pending.sequence, CANCELED, 0.0, (0.0, 0.0), 0,
                                       'canceled before the path started', 'canceled',
                                       request=request)
            self.ended.append(self.outcome)
            return True
        if not self.is_running() or self.input.options.request is not request:
            return False
        if self.follower is None:  # approaching: the generator brakes (HOLD)
            self._finish(CANCELED, 'canceled while approaching the path', 'canceled')
            self._approach = None
        else:
            self.follower.brake('cancel')
        return True

    def brake(self, reason: str) -> None:
        """Brake along the path (the arm lags, joint states are stale); go on after."""
        if self.follower is not None and self.is_running():
            self.follower.brake(reason)

    def set_task_checker(self) -> None:
        """Brake for a new collision model, then plan the rest with its checks."""
        if self.follower is not None and self.is_running():
            self.follower.task = self._task(self._settings)
            self.follower.brake('new collision scene')

    def checkpoint(self) -> None:
        """Keep the follower's state before this cycle's step, for :meth:`withdraw`."""
        follower = self.follower
        self._checkpoint = None if follower is None else (follower, follower.checkpoint())

    def withdraw(self) -> None:
        """Take this cycle's step back, its command withdrawn (:meth:`PathFollower.restore`)."""
        if self._checkpoint is not None and self._checkpoint[0] is self.follower:
            self.follower.restore(self._checkpoint[1])

    def resume(self, time: float, state: MotionState) -> None:
        """After a stall: continue from the state the command stream resumed at ``time``."""
        if self.follower is not None and self.is_running():
            self.follower.resume(time, state)

    def choose(self, state: MotionState, time: float, dt: float, settings: Settings,
               notices: List[Notice], values: Dict[str, object],
               hold: bool = False) -> GoalChoice:
        """
        Return this cycle's goal at command time ``time`` (s) from the commanded state.

        ``dt``: since the last command (s), whose state ``state`` is: a path begins there,
        so this cycle's command is already ``dt`` into it. ``hold``: brake along the path
        and stay at rest (the arm lags, stale joint states).
        """
        self._settings = settings
        if self.pending is not None and self.follower is None:
            if not state.is_at_rest() or hold:
                return GoalChoice('OK', self.outcome.message, HOLD)
            pending, self.pending = self.pending, None
            self._begin(pending, state, time - dt, settings)
        if self._approach is not None and hold:
            return GoalChoice('WARN', 'holding before the path', HOLD)
        if self._approach is not None:
            choice = self._approach_choice(state, time - dt, settings, notices, values)
            if choice is not None:
                return choice
        values['input'] = 'path'
        follower = self.follower
        if follower is None or not self.is_running():
            return self._final_choice(values)
        commanded = follower.step(time, hold)
        if follower.finished():
            self._end(notices)
            choice = self._final_choice(values, commanded)
            if self.pending is not None:  # a new path begins from this rest
                self.follower = None
            return choice
        self._running(follower)
        self._describe(values)
        braking = follower.braking
        message = (f'braking along the path ({braking})' if braking else
                   f'following the path (stretch {follower.stretch_index + 1} of '
                   f'{len(follower.path.rest_s) - 1})')
        return GoalChoice('WARN' if braking else 'OK', message,
                          Goal(None, path=follower.motion, path_state=commanded))

    def path_points(self) -> Optional[np.ndarray]:
        """Return tool positions (k, 3) along the running or last path (None: none)."""
        return None if self.follower is None else self.follower.path.points(0.005)

    # ------------------------------------------------------------------ start
    def _begin(self, path: PathInput, state: MotionState, time: float,
               settings: Settings) -> None:
        """Start ``path`` from ``state`` at rest at ``time`` (s): from the tool, or approach."""
        self.input, self.follower, self._approach = path, None, None
        self._settings = settings
        position_only = not any(self.arm.task_mask(False)[3:])
        waypoints, indices = distinct_waypoints(path.T_base_waypoints, position_only)
        T_tool = self.arm.kinematics.tip_pose(state.position)
        self.outcome = PathOutcome(path.sequence, RUNNING, 0.0, (0.0, 0.0), 0,
                                   'starting the path', request=path.options.request)
        self._waypoints = waypoints
        if len(waypoints) == 1:
            self._follow(np.array([T_tool, waypoints[0]]), np.array([-1, indices[0]]), state,
                         time)
        elif self._near(T_tool, waypoints[0], settings):
            self._follow(np.concatenate([T_tool[None], waypoints[1:]]), indices, state, time)
        elif settings.path_approach == 'refuse':
            self._finish(ABORTED, 'the path starts away from the tool and path_approach is '
                         'refuse', 'refused')
        else:
            self._user_index = indices
            self._approach = Target('', waypoints[0], 'pose', position_only,
                                    sequence=-path.sequence, T_base_target=waypoints[0])

    def _near(self, T_tool: np.ndarray, T_waypoint: np.ndarray, settings: Settings) -> bool:
        """Return whether the tool is within the path tolerances of a waypoint."""
        dev_p, dev_o = deviation(self._task(settings), T_waypoint[None], T_tool[None])
        return (dev_p[0] <= settings.path_position_tolerance
                and dev_o[0] <= settings.path_orientation_tolerance)

    def _follow(self, poses: np.ndarray, indices: np.ndarray, state: MotionState,
                time: float) -> None:
        """
        Follow the path through ``poses`` (the first the tool's) from ``state`` at rest.

        ``indices``: each pose's waypoint as sent (the tool's: the first waypoint, or -1).
        """
        poses, kept = distinct_waypoints(poses, not any(self.arm.task_mask(False)[3:]))
        self._user_index = np.asarray(indices)[kept]
        if len(poses) < 2:
            self._finish(SUCCEEDED, "the tool is already at the path's end", '')
            return
        settings = self._settings
        path = CartesianPath(poses, settings.path_blend_radius,
                             not any(self.arm.task_mask(False)[3:]))
        self.follower = PathFollower(path, self._task(settings), state.position, time)

    def _approach_choice(self, state: MotionState, time: float, settings: Settings,
                         notices: List[Notice], values: Dict[str, object]
                         ) -> Optional[GoalChoice]:
        """Return the approach's goal, or None once at the first waypoint (follow then)."""
        mask = self.arm.task_mask(self._approach.position_only)
        choice = self.solve.choose(self._approach, mask, state, settings, notices, values)
        values['input'] = 'path'
        if self.solve.reached(state):
            self._approach = None
            T_tool = self.arm.kinematics.tip_pose(state.position)
            self._follow(np.concatenate([T_tool[None], self._waypoints[1:]]), self._user_index,
                         state, time)
            notices.append(Notice('info', 'path:approached', "reached the path's first "
                                  'waypoint by a joint motion; following the path'))
            return None
        if self.solve.gave_up():
            self._finish(ABORTED, f"cannot reach the path's first waypoint: {choice.message}",
                         'approach')
            self._approach = None
            return self._final_choice(values)
        return GoalChoice(choice.level, "approaching the path's first waypoint (a joint "
                          f'motion): {choice.message}', choice.goal)

    def _task(self, settings: Settings) -> PathTask:
        """Return how paths are planned with these settings and the current checks."""
        options = self.input.options if self.input is not None else None
        linear, angular = settings.max_linear_speed, settings.max_angular_speed
        if options is not None and options.linear_speed > 0.0:
            linear = min(linear, options.linear_speed)
        if options is not None and options.angular_speed > 0.0:
            angular = min(angular, options.angular_speed)
        guard = self.stepper.guard
        return PathTask(self.arm.kinematics, self.arm.solver,
                        self.stepper.generator(settings).limits,
                        self.arm.task_mask(False), settings.orientation_weight,
                        settings.path_position_tolerance, settings.path_orientation_tolerance,
                        Caps(linear, angular), guard.checker if guard is not None else None)

    # ---------------------------------------------------------------- outcome
    def _running(self, follower: PathFollower) -> None:
        """Update the running outcome: fraction, deviation, waypoint ahead."""
        self.outcome = PathOutcome(
            self.input.sequence, RUNNING, self._fraction(), tuple(follower.deviation),
            self._waypoint(), self.outcome.message, request=self.input.options.request)

    def _end(self, notices: List[Notice]) -> None:
        """Record the end of a follower at rest for good: succeeded, stopped short, canceled."""
        follower = self.follower
        stop = follower.stop
        if follower.braking == 'cancel':
            self._finish(CANCELED, 'canceled: braked to rest along the path', 'canceled')
        elif follower.braking == 'replace':
            self._finish(ABORTED, 'replaced by a new path (braked along the path)',
                         'replaced')
        elif stop is not None:
            waypoint = self._waypoint()
            self._finish(ABORTED, f'path stopped at {100.0 * self._fraction():.1f} % of its '
                         f'length, before waypoint {waypoint}: {stop.message}', stop.kind,
                         joint=stop.joint, pair=stop.pair)
            notices.append(Notice('warn', 'path:' + stop.kind, self.outcome.message))
        else:
            self._finish(SUCCEEDED, 'path done', '')

    def _finish(self, status: str, message: str, reason: str, joint: str = '',
                pair: Tuple[str, str] = ()) -> None:
        """
        Record the final outcome.

        A path that succeeded is at its end: fraction 1 and its last waypoint, whatever the
        rounding of the commanded path length (the profile's end can fall an ulp short).
        """
        follower = self.follower
        at_end = status == SUCCEEDED
        self.outcome = PathOutcome(
            self.input.sequence, status, 1.0 if at_end else self._fraction(),
            tuple(follower.deviation) if follower is not None else (0.0, 0.0),
            len(self.input.T_frame_waypoints) - 1 if at_end else self._waypoint(),
            message, reason, joint, pair, self.input.options.request)
        self.ended.append(self.outcome)

    def _fraction(self) -> float:
        """Return the share of the path's length commanded so far."""
        follower = self.follower
        if follower is None:
            return 0.0
        return min(follower.s_commanded / follower.path.length, 1.0)

    def _waypoint(self) -> int:
        """Return the index (as sent) of the waypoint ahead of the commanded path length."""
        follower = self.follower
        if follower is None:
            return 0
        path = follower.path
        if follower.s_commanded >= path.length:
            return len(self.input.T_frame_waypoints) - 1
        index = path.segment_index(follower.s_commanded) + 1
        return int(self._user_index[min(index, len(self._user_index) - 1)])

    def _describe(self, values: Dict[str, object]) -> None:
        """Add the path's values to the status."""
        outcome = self.outcome
        values.update(path_fraction=outcome.fraction, path_deviation=outcome.deviation[0],
                      path_orientation_deviation=outcome.deviation[1],
                      path_waypoint=float(outcome.waypoint), path_status=outcome.status)

    def _final_choice(self, values: Dict[str, object],
                      commanded: Optional[MotionState] = None) -> GoalChoice:
        """Return the status of a path that is over, holding the arm where it stopped."""
        outcome = self.outcome
        self._describe(values)
        if commanded is not None:  # the cycle the path ends in: its last state, exactly
            return GoalChoice(LEVELS[outcome.status], outcome.message,
                              Goal(None, path=self.follower.previous_motion,
                                   path_state=commanded))
        return GoalChoice(LEVELS[outcome.status], outcome.message, HOLD)
