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
The IK controller: one control cycle from the latest target and joint states to a command.

Plain data in and out, no ROS: the node feeds it targets, jogs and joint states as numbers
and strings with the receive time (s, the node's clock), calls :meth:`IkController.cycle`
at ``update_rate`` and publishes what comes back. Every problem worth a log line comes
back as a :class:`Notice` keyed by its kind, so the caller can throttle each kind
separately. Whatever the inputs, every command is finite, inside the position limits (or
moving into them), within the velocity, acceleration and jerk limits over the time between
command stamps, continuous, and never into a collision.

A cycle is a pipeline of stages, one module each (base frame, metres, radians, seconds):

====================  ====================================================================
stage                 module
====================  ====================================================================
inputs                :mod:`ros_ik.control.inputs`: joint-state cache, newest target/jog
measures              :mod:`ros_ik.control.cycle_measures`: manipulability, status level
stream clock          :mod:`ros_ik.control.command_stream`: lead, stalls, restarts, stamps
goal selection        :mod:`ros_ik.control.goal_selection`: stale / lag / jog / path /
                      target; :mod:`~ros_ik.control.servo_goals`,
                      :mod:`~ros_ik.control.solve_goals`, :mod:`~ros_ik.control.jog_goals`,
                      :mod:`~ros_ik.control.path_goals`
motion step           :mod:`ros_ik.control.motion_step`: generator + collision guard
command               :mod:`ros_ik.control.command_stream`: the command and its horizon
report                :mod:`ros_ik.control.cycle_report`: errors, clearance, markers
====================  ====================================================================
"""

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.command_stream import CommandStream
from ros_ik.control.cycle_measures import (cycle_status, CycleMeasures, idle_status,
                                           measure_values)
from ros_ik.control.cycle_report import CycleReport
from ros_ik.control.cycle_types import CycleResult, CycleStatus, MarkerState, Notice
from ros_ik.control.frame_source import FrameSource
from ros_ik.control.goal_selection import GoalSelection
from ros_ik.control.inputs import ControllerInputs
from ros_ik.control.motion_limit_sources import LimitDefaults, resolve_motion_limits
from ros_ik.control.motion_step import MotionStepper
from ros_ik.control.parameters import Settings
from ros_ik.control.path_goals import PathOutcome
from ros_ik.control.path_input import PathOptions
from ros_ik.trajectory.motion_limits import MotionLimits


class IkController:
    """The control cycle of one arm: targets and joint states in, commands out."""

    def __init__(self, arm: ControlledArm, settings: Settings,
                 limits: Optional[MotionLimits] = None,
                 collision: Optional[CollisionGuard] = None,
                 frames: Optional[FrameSource] = None) -> None:
        """
        Start with no joint state, no target and no command.

        ``limits``: the chain's motion limits; by default resolved from ``settings`` (the
        URDF, ``joint_limits_file`` and the ``default_max_*`` parameters). ``collision``:
        the collision checks (None: joint limits only). ``frames``: TF, for targets and
        jogs in frames outside the chain (None: chain frames only).
        """
        self.arm = arm
        self.settings = settings
        self.limits = (limits if limits is not None else resolve_motion_limits(
            arm.chain, settings.joint_limits_file, LimitDefaults.of(settings), {}).limits)
        self.status = CycleStatus('WARN', 'waiting for joint_states')
        self.inputs = ControllerInputs(arm, frames)
        self.joints = self.inputs.joints
        self.measures = CycleMeasures(arm)
        self.stream = CommandStream(arm.chain.is_continuous,
                                    settings.command_type == 'joint_trajectory')
        self.stepper = MotionStepper(self.limits, collision)
        self.goals = GoalSelection(arm, self.limits, self.inputs, self.stream, self.stepper,
                                   self._restart_stream)
        self.reports = CycleReport(arm)

    @property
    def command_limits(self) -> MotionLimits:
        """
        Return the limits the commands keep (the generator's).

        The chain's limits with the settings' ``velocity_scale`` and ``acceleration_scale``.
        """
        return self.stepper.generator(self.settings).limits

    @property
    def collision(self) -> Optional[CollisionGuard]:
        """Return the collision checks in use (None: joint limits only)."""
        return self.stepper.guard

    # ------------------------------------------------------------------- cycle
    def cycle(self, now: float, measure: bool = True) -> CycleResult:
        """
        Run one control cycle at time ``now`` (s); return the command and notices.

        ``measure`` False keeps the last manipulability measures and publishes none: for a
        cycle whose command a controller is waiting for (an input's arrival, arm at rest).
        """
        settings, q_measured = self.settings, self.joints.positions()
        if q_measured is None:
            return self._waiting_for_joint_states()
        measures, fresh = self.measures.at(q_measured, now, measure)
        published = measures.yoshikawa if fresh else None
        values = measure_values(measures, settings.mode)
        age = self.joints.age(now)
        notices = self.inputs.resolve_pending(now, settings)
        notices.extend(self.inputs.resolve_pending_path(now, settings))
        if self.inputs.refused_path is not None:  # its outcome, for the action waiting
            self.goals.path.refuse(*self.inputs.refused_path, 'tf')
            self.inputs.refused_path = None
        if self.stream.state is None:
            if age > settings.joint_state_timeout or not self.inputs.has_input():
                self.status = idle_status(age, age > settings.joint_state_timeout, values)
                return CycleResult(manipulability=published, notices=tuple(notices))
            self._restart_stream(q_measured, now + self.stream.lead(settings))
        if self.stream.has_stalled(now, settings):
            notices.append(self.stream.resume_after_stall(now, settings))
            self._left_checked_motion(check_start=False)
            self.goals.path.resume(self.stream.last_time, self.stream.state)
        dt = self.stream.advance_clock(now, settings)
        notices.extend(self.stepper.start_notices(self.stream.state))
        self.goals.path.checkpoint()
        choice = self.goals.choose(q_measured, age, now, dt, settings, notices, values)
        step = self.stepper.advance(self.stream.state, choice.goal, dt, settings, notices)
        self.stream.commit(step, settings)
        self.stepper.prepare_damper_at_rest(step.state, settings)
        self.status = cycle_status(choice, self.stepper.collision_stop, measures, settings,
                                   values)
        command = self.stream.command(step, dt, now, self.stepper.generator(settings),
                                      settings, choice.goal.path)
        return CycleResult(command, published, tuple(notices))

    def _waiting_for_joint_states(self) -> CycleResult:
        """Return the cycle before every chain joint has a measured position."""
        message = 'waiting for joint_states with ' + ', '.join(self.joints.missing_joints())
        self.status = CycleStatus('WARN', message)
        return CycleResult(notices=(Notice('info', 'joint_states:waiting', message),))

    def _restart_stream(self, q_measured: np.ndarray, time: float) -> None:
        """(Re)start the command stream at rest at the measured joints at ``time`` (s)."""
        self.stream.start(q_measured, time)
        self._left_checked_motion(check_start=True)
        self.goals.path.abort('the arm is not where the commands left it (restarted at the '
                              'measured joints): the path is abandoned', 'restart')

    def _left_checked_motion(self, check_start: bool) -> None:
        """Forget what followed the commanded motion: it jumped (a restart or a stall)."""
        self.stepper.forget_checked_motion(check_start)
        self.goals.servo.release_hold()

    # ------------------------------------------------------------------ inputs
    def update_joint_state(self, names: Sequence[str], positions: Sequence[float],
                           receive_time: float) -> List[Notice]:
        """Merge a joint-state message's chain joints; return what to log about it."""
        return self.inputs.update_joint_state(names, positions, receive_time)

    def set_target(self, frame_id: str, position: Sequence[float],
                   quaternion_xyzw: Optional[Sequence[float]], kind: str,
                   receive_time: float = 0.0, stamp: float = 0.0) -> List[Notice]:
        """Validate and keep a target (:meth:`ControllerInputs.set_target`)."""
        return self.inputs.set_target(frame_id, position, quaternion_xyzw, kind,
                                      self.settings, receive_time, stamp)

    def set_twist(self, frame_id: str, linear: Sequence[float], angular: Sequence[float],
                  receive_time: float) -> List[Notice]:
        """Take a jog twist (m/s, rad/s) in ``frame_id`` (:meth:`ControllerInputs.set_twist`)."""
        return self.inputs.set_twist(frame_id, linear, angular, receive_time, self.settings)

    def set_joint_jog(self, names: Sequence[str], velocities: Sequence[float],
                      receive_time: float) -> List[Notice]:
        """Take joint velocities (rad/s or m/s) by name; the jog takes over from a target."""
        return self.inputs.set_joint_jog(names, velocities, receive_time)

    def set_path(self, frame_ids: Sequence[str], positions: np.ndarray,
                 quaternions: np.ndarray, stamps: Sequence[float],
                 options: PathOptions = PathOptions(),
                 receive_time: float = 0.0) -> Tuple[bool, List[Notice]]:
        """Validate and keep a Cartesian path (:meth:`ControllerInputs.set_path`)."""
        return self.inputs.set_path(frame_ids, positions, quaternions, stamps, options,
                                    self.settings, receive_time)

    def cancel_path(self, request: object) -> bool:
        """
        Cancel the path answering ``request``; return whether it brakes (its end comes later).

        A running path brakes along itself; one still waiting for TF is dropped (False).
        """
        if self.goals.path.cancel(request):
            return True
        self.inputs.drop_pending_path(request)
        return False

    def path_outcome(self) -> Optional[PathOutcome]:
        """Return what the running or last path achieved (None: no path yet)."""
        return self.goals.path.outcome

    def take_ended_paths(self) -> List[PathOutcome]:
        """Return the final outcomes of the paths that ended since the last call."""
        return self.goals.path.take_ended()

    def set_collision_guard(self, collision: Optional[CollisionGuard]) -> None:
        """
        Check against a new model from the next cycle on (a new scene, new allowed pairs).

        A solve-mode motion is checked again in the new model (and the target solved anew
        where it is blocked); a path brakes along itself and plans the rest with the new
        checks; the commanded state is checked for a collision it may now be in.
        """
        self.stepper.set_guard(collision)
        self.goals.path.set_task_checker()

    def mode_change_refusal(self, mode: str) -> str:
        """
        Return why the controller cannot switch to ``mode`` now ('' when it can).

        It can at rest (the commanded motion: :meth:`is_at_rest`) or into the mode it is
        in; a motion of one mode is never handed to the other halfway.
        """
        if mode == self.settings.mode or self.is_at_rest():
            return ''
        return (f'mode can change only while the arm is at rest; it is moving in '
                f'{self.settings.mode} mode: try again once it stops')

    def switch_mode(self, settings: Settings) -> None:
        """
        Adopt ``settings`` whose ``mode`` differs (checked by :meth:`mode_change_refusal`).

        The current target is solved anew in solve mode (not a solution an earlier solve
        of it left) and a servo starts its progress watch afresh.
        """
        self.settings = settings
        self.goals.solve.forget()
        self.goals.servo.recovery.stop()
        self.goals.servo.release_hold()

    def withdraw_late_command(self, now: float) -> Optional[Notice]:
        """
        Return why the last cycle's command is not to be sent at ``now`` (s), or None.

        Asked right before sending it. A JointTrajectory command whose cycle the process
        stalled inside is taken back (:meth:`CommandStream.withdraw_if_late`), and so is
        the path's step (:meth:`PathGoals.withdraw`); the notice says so: send nothing.
        None: send it.
        """
        late = self.stream.withdraw_if_late(now, self.settings)
        if late is not None:
            self.goals.path.withdraw()
        return late

    def is_at_rest(self) -> bool:
        """
        Return whether the commanded motion is at rest (or no command was sent yet).

        The stream then repeats one position: when the next command comes changes nothing
        an arm's controller executes.
        """
        return self.stream.is_at_rest()

    # ----------------------------------------------------------------- reports
    def report(self) -> CycleStatus:
        """
        Return the last cycle's status with tracking errors and clearance (when asked).

        While the newest input stands refused (NaN, an unknown frame, ...: until a newer
        one is taken) the report is an ERROR that says why first, then what the arm does,
        with ``refused_input`` among its values: a user watching ``/diagnostics`` sees an
        input that was dropped.
        """
        status = self.reports.report(self.status, self.joints.positions(), self.collision,
                                     self.settings)
        refusal = self.inputs.refusal
        if not refusal:
            return status
        return CycleStatus('ERROR', f'newest input refused: {refusal}; {status.message}',
                           dict(status.values, refused_input=refusal))

    def marker_state(self) -> Optional[MarkerState]:
        """Return what to draw at the measured joints (None: no joint states yet)."""
        return self.reports.marker_state(self.joints.positions(), self.inputs.target,
                                         self.collision, self.settings,
                                         self.goals.path.path_points())
