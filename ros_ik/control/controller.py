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

Plain data in and out, no ROS: the node feeds it targets and joint states as numbers and
strings with the receive time (s, the node's clock), calls :meth:`IkController.cycle` at
``update_rate`` and publishes what comes back. Every problem worth a log line comes back
as a :class:`Notice` keyed by its kind, so the caller can throttle each kind separately.

The command stream is one continuous jerk-limited trajectory: the controller keeps the
commanded state (position, velocity, acceleration) and every cycle advances it by the
measured time since the previous command, ``dt = now + lead - t_previous``, through the
online trajectory generator (:mod:`ros_ik.trajectory.online_generator`); ``lead`` is
``trajectory_lead_time`` for JointTrajectory commands (each carries a horizon,
:mod:`ros_ik.control.trajectory_horizon`) and 0 otherwise. A gap longer than
``MAX_STEP_PERIODS`` periods (JointTrajectory: the lead less a period) is a stall (the
process did not run): the stream never
fast-forwards through it but continues from what the arm's controller executed meanwhile,
the last horizon's point at the clock (JointTrajectory) or, for position streams, the last
command held at rest; stamps stay within a period of the clock. Whatever the inputs, every
command is finite, inside the position limits (or moving into them), and within the
velocity, acceleration and jerk limits over the time between command stamps. A cycle
(base frame, metres, radians):

1. no joint state for a chain joint yet: WARN, no command;
2. manipulability and singular values of the task Jacobian at the measured joints (at most
   every ``MEASURE_PERIOD``);
3. no command yet: the first target starts the stream at rest at the measured joints;
4. the goal: joint states older than ``joint_state_timeout`` (ERROR), measured joints
   farther than ``max_tracking_error`` from every command of the last
   ``joint_state_timeout`` (the arm lags: WARN), a target out of reach or not solved
   (ERROR) or a non-finite goal: brake to rest and hold. An arm that still lags when the
   commands have been at rest and its lag has not shrunk for ``joint_state_timeout`` (it
   was moved, or its controller faulted) is taken where it is: the stream restarts at rest
   at the measured joints, which moves nothing (a controller restarting after a fault
   expects exactly that); one still closing in is waited for;
5. ``solve``: one IK solve per new target, seeded at the commanded joints, retried on the
   following cycles while it fails (``SOLVE_ATTEMPTS`` in all, none when the target is
   provably out of reach); continuous joints take the
   short way; ``servo``: the damped step's joint velocity ``qdot`` at the commanded
   joints ``q`` gives the goal ``q + qdot / gain`` and the speed ``max_j |qdot_j| /
   vmax_j``, computed at most every ``SERVO_PERIOD`` (at once for a new target) and held
   in between. A chain that cannot move the tip in every task direction (fewer joints than
   task axes, :attr:`ControlledArm.task_rank`) takes a target off its reachable poses to
   the closest pose found (WARN, not an error);
6. the generator moves toward the goal (or brakes); a non-finite result is replaced by a
   brake from the last state;
7. status: ERROR for stale joints or a target out of reach or not solved, WARN at a joint
   limit, near a singularity (``sigma_min < singularity_warning``) or while the arm lags,
   OK otherwise; a servo that stays still for 0.5 s short of the target reports why.
"""

from dataclasses import dataclass, field, replace
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ros_ik.collision.collision_checker import Contact
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.command_history import CommandHistory
from ros_ik.control.detours import DetourSearch
from ros_ik.control.goal_modes import planar_goal_target, point_target
from ros_ik.control.jogging import (describe, jog_goal, JogCommand, JogPath,
                                    joint_velocity_command)
from ros_ik.control.joint_state_cache import JointStateCache
from ros_ik.control.last_result import LastResult
from ros_ik.control.motion_limit_sources import LimitDefaults, resolve_motion_limits
from ros_ik.control.parameters import Settings
from ros_ik.control.targets import (check_pose, has_subnormal, INT_BITS_HINT, is_known_frame,
                                    known_frames)
from ros_ik.control.trajectory_horizon import (Horizon, KEEP_PERIODS, POINT_SPACING, Points,
                                               TAIL_SPACING, TrajectoryHorizon)
from ros_ik.kinematics.damped_least_squares import DampingSchedule
from ros_ik.kinematics.joint_limits import wrapped_difference
from ros_ik.kinematics.manipulability import (Manipulability, manipulability, task_jacobian,
                                              velocity_ellipsoid)
from ros_ik.kinematics.servo_step import ServoOptions, ServoStep
from ros_ik.kinematics.task_space import row_weights
from ros_ik.kinematics.transforms import pose_error
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.online_generator import (all_finite, MotionState, MotionStep,
                                                OnlineGenerator)

STALL_SPEED = 1e-4  # rad/s: below this the servo counts as stopped
STALL_SECONDS = 0.5  # s stopped short of the target before it is reported
# A servo held at an obstacle that gets less than this closer (m) in STALL_SECONDS refuses.
BLOCKED_PROGRESS = 1e-3
# A gap between cycles longer than this many nominal periods is a stall of the process.
MAX_STEP_PERIODS = 5.0
# A lagging arm counts as moving while a joint moves by more than this part of
# max_tracking_error, and at least LAG_MOTION_FLOOR (rad or m: encoder ticks and
# joint-state noise never count; a 12-bit servo's tick is 1.5e-3 rad); one that has not
# for joint_state_timeout has stopped away.
LAG_MOTION = 0.1
LAG_MOTION_FLOOR = 5e-3
# JointTrajectory commands lead the clock by at least this many periods.
MIN_LEAD_PERIODS = 3.0
# The manipulability at the measured joints is computed at most this often (s).
MEASURE_PERIOD = 0.01
# The servo velocity (damped step and velocity damper) is computed at most this often (s);
# faster loops hold it in between, as a 200 Hz loop does for a whole period.
SERVO_PERIOD = 0.005
SOLVE_ATTEMPTS = 20  # IK solves per target (one per cycle) before it counts as unreachable
# Jogs damp with this fraction of the damping threshold and lam_max: a jog commands a tool
# velocity, the joint speeds are scaled into their limits anyway, and wider damping blocks
# the weak direction so much that the tool cannot be kept on its line near a singularity.
# A servo converging on a target next to a singularity needs the full damping: with less it
# can end exactly singular, where no step leads back.
JOG_DAMPING_FRACTION = 0.25
# Solve mode checks the motions to at most this many distinct IK solutions per attempt;
# solutions closer than DUPLICATE_SOLUTION (rad or m, every joint) count as one.
MAX_CHECKED_SOLUTIONS = 6
DUPLICATE_SOLUTION = 1e-3
# With collision checks the IK search gets this share of solve_time_budget; the motion
# checks of its solutions take the rest (at least the nearest solution is checked).
IK_BUDGET_SHARE = 0.5
# When every straight motion is blocked, detours to this many of the nearest blocked
# solutions are tried (ros_ik.control.detours), within solve_time_budget per cycle.
DETOUR_GOALS = 3


@dataclass(frozen=True)
class Notice:
    """Something worth a log line: ``level`` 'info' or 'warn', a ``key`` per kind, text."""

    level: str
    key: str
    message: str


@dataclass
class Target:
    """The latest target: its frame, pose in that frame (4x4), kind, position-only flag."""

    frame_id: str
    T_frame_target: np.ndarray
    kind: str
    position_only: bool
    sequence: int
    T_base_target: Optional[np.ndarray] = None


@dataclass(frozen=True)
class Command:
    """
    One joint command (chain order) for time ``time`` (s, the caller's clock).

    Positions (rad or m), velocities, accelerations, and ``dt`` (s) since the previous one;
    ``horizon``: the JointTrajectory points of this cycle (joint_trajectory commands only).
    """

    q: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    dt: float
    time: float
    horizon: Optional[Horizon] = None


@dataclass(frozen=True)
class Goal:
    """Where this cycle moves: joint positions (None: brake to rest) and the speed fraction."""

    q: Optional[np.ndarray]
    speed_fraction: float = 1.0
    velocity_caps: Optional[np.ndarray] = None


@dataclass(frozen=True)
class CycleStatus:
    """
    What the last cycle saw: level ('OK', 'WARN', 'ERROR'), message and values.

    ``tracking`` = (q_measured, T_base_target, mask) when a target is active: the tip pose
    and the errors are computed when a report is asked for, not in the control loop.
    """

    level: str
    message: str
    values: Dict[str, object] = field(default_factory=dict)
    tracking: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None


@dataclass(frozen=True)
class CycleResult:
    """A cycle's output: the command (None: publish nothing), manipulability, notices."""

    command: Optional[Command] = None
    manipulability: Optional[float] = None
    notices: Tuple[Notice, ...] = ()


@dataclass(frozen=True)
class MarkerState:
    """What to draw: the target (if any), the tip, its velocity ellipsoid, the closest pair."""

    T_base_target: Optional[np.ndarray]
    position_only: bool
    T_base_tip: np.ndarray
    semi_axes: np.ndarray
    R_base_ellipsoid: np.ndarray
    near_singularity: bool
    closest: Optional[Contact] = None


@dataclass(frozen=True)
class ServoMotion:
    """
    A servo step and what follows from it until the next one.

    ``goal``: the joints ``q_from + qdot / gain`` (rad or m) with ``qdot`` the step's
    velocity through the damper and its speed fraction; ``stopping_contact``: what the
    damper stops for; ``reach_reason``: why the target is provably out of reach ('' if
    not).
    """

    step: ServoStep
    goal: Goal
    stopping_contact: Optional[Contact]
    reach_reason: str
    q_from: np.ndarray


def same_solution(a: np.ndarray, b: np.ndarray) -> bool:
    """Return whether two joint vectors count as one solution (``DUPLICATE_SOLUTION``)."""
    return float(np.abs(a - b).max(initial=0.0)) < DUPLICATE_SOLUTION


def _holds_still(state: MotionState, following: MotionState) -> bool:
    """Return whether ``following`` is ``state`` held at rest (the same joints, bit for bit)."""
    return (state.is_at_rest() and following.is_at_rest()
            and np.array_equal(state.position, following.position))


class IkController:
    """The control state machine for one arm: targets and joint states in, commands out."""

    def __init__(self, arm: ControlledArm, settings: Settings,
                 limits: Optional[MotionLimits] = None,
                 collision: Optional[CollisionGuard] = None) -> None:
        """
        Start with no joint state, no target and no command.

        ``limits``: the chain's motion limits; by default resolved from ``settings`` (the
        URDF, ``joint_limits_file`` and the ``default_max_*`` parameters). ``collision``:
        the collision checks (None: joint limits only).
        """
        self.collision = collision
        self._collision_stop: Optional[Contact] = None
        self._checked_goal: Optional[np.ndarray] = None
        self._stopping_contact: Optional[Contact] = None
        self._blocked_time, self._blocked_error = 0.0, np.inf  # servo held by a collision
        self._nearest_cache: Tuple[Optional[np.ndarray], object, Optional[Contact]] = (
            None, None, None)
        self._refusal: Optional[Contact] = None
        self._check_start = True
        self.arm = arm
        self.settings = settings
        self.limits = (limits if limits is not None else resolve_motion_limits(
            arm.chain, settings.joint_limits_file, LimitDefaults.of(settings), {}).limits)
        self.joints = JointStateCache(arm.chain.joint_names)
        self.status = CycleStatus('WARN', 'waiting for joint_states')
        self._target: Optional[Target] = None
        self._jog: Optional[JogCommand] = None
        self._jog_path = JogPath()
        self._target_sequence = 0
        self._solved_sequence = -1
        self._solve_attempts = 0
        self._goal_q: Optional[np.ndarray] = None
        self._final_goal: Optional[np.ndarray] = None  # the goal after a detour's via
        # (start, solution, contact): solutions whose straight motion from start collides
        self._blocked_goals: List[Tuple[np.ndarray, np.ndarray, Contact]] = []
        self._detour: Optional[DetourSearch] = None
        self._goal_note = ''  # why the goal is not an exact solution ('' when it is)
        self._goal_reason = ''
        self._solve_values: Dict[str, object] = {}
        self._stopped_cycles = 0
        self._motion: Optional[MotionState] = None
        self._last_time = 0.0
        self._rest_since = 0.0
        # While the arm lags: (time, joints) where it was last seen moving (None: it follows).
        self._lagging_arm_moved: Optional[Tuple[float, np.ndarray]] = None
        self._history = CommandHistory(arm.chain.is_continuous)
        self._horizon = (TrajectoryHorizon() if settings.command_type == 'joint_trajectory'
                         else None)
        self._generator_for: Tuple[float, Optional[OnlineGenerator]] = (0.0, None)
        self._measured: Tuple[float, Optional[Manipulability]] = (0.0, None)
        self._measures_at: LastResult[Manipulability] = LastResult()
        # The last servo motion (by target, mask, settings, collision model) and the
        # command time until which it is held while the joints move.
        self._servo_motion: LastResult[ServoMotion] = LastResult()
        self._options: LastResult[ServoOptions] = LastResult()  # of the settings, mask
        self._servo_held_until = -np.inf

    # ------------------------------------------------------------------ inputs
    def update_joint_state(self, names: Sequence[str], positions: Sequence[float],
                           receive_time: float) -> List[Notice]:
        """Merge a joint-state message's chain joints; return what to log about it."""
        update = self.joints.update(names, positions, receive_time)
        notices = []
        if update.error:
            notices.append(Notice('warn', 'joint_states:' + update.problem, update.error))
        elif update.absent_joints:
            notices.append(Notice('warn', 'joint_states:absent',
                                  'joint_states message lacks chain joints '
                                  f'{", ".join(update.absent_joints)}; using their last '
                                  'known positions'))
        if update.extra_joints:
            notices.append(Notice('info', 'joint_states:extra',
                                  'joint_states also carries joints outside the chain, '
                                  f'ignored: {", ".join(update.extra_joints)}'))
        return notices

    def set_target(self, frame_id: str, position: Sequence[float],
                   quaternion_xyzw: Optional[Sequence[float]], kind: str) -> List[Notice]:
        """
        Validate and keep a target (the newest one preempts the previous).

        ``kind``: 'pose' (full pose), 'planar' (RViz 2D Goal Pose, read per
        ``planar_goal_mode``) or 'point' (``quaternion_xyzw`` None, per
        ``point_orientation``).
        """
        check = check_pose(position, quaternion_xyzw)
        if check.error:
            return [Notice('warn', 'target:' + check.problem, f'target ignored: {check.error}')]
        notices = []
        if check.warning:
            notices.append(Notice('warn', 'target:normalised', check.warning))
        chain = self.arm.chain
        if not is_known_frame(chain, frame_id):
            notices.append(Notice('warn', 'target:frame',
                                  f'target ignored: unknown frame "{frame_id}"; use one of '
                                  f'{known_frames(chain)} (or empty for the base)'))
            return notices
        self._target_sequence += 1
        position_only = kind == 'point' and self.settings.point_orientation == 'free'
        self._target = Target(frame_id, check.T_frame_target, kind, position_only,
                              self._target_sequence)
        self._blocked_time, self._blocked_error = 0.0, np.inf
        self._stopped_cycles = 0  # a new target's stall is its own (it starts from rest)
        self._jog = None  # the newest input drives the arm
        self._jog_path.reset()
        return notices

    def set_twist(self, frame_id: str, linear: Sequence[float], angular: Sequence[float],
                  receive_time: float) -> List[Notice]:
        """
        Take a jog twist (m/s, rad/s) in ``frame_id`` received at ``receive_time`` (s).

        An empty frame means ``twist_frame`` (itself empty: the tip link). The jog takes
        over from a pose target; see :mod:`ros_ik.control.jogging`.
        """
        values = np.concatenate([np.asarray(linear, dtype=float),
                                 np.asarray(angular, dtype=float)])
        if values.shape != (6,) or not np.all(np.isfinite(values)):
            return [Notice('warn', 'jog:twist', f'jog twist ignored: not 6 finite values: '
                           f'{values.tolist()}')]
        if has_subnormal(values):
            return [Notice('warn', 'jog:int_bits', f'jog twist ignored: subnormal values '
                           f'{values.tolist()}: {INT_BITS_HINT}')]
        chain = self.arm.chain
        frame = frame_id or self.settings.twist_frame or chain.tip_link
        if frame not in chain.frame_names:
            return [Notice('warn', 'jog:frame', f'jog twist ignored: unknown frame "{frame}"; '
                           f'use one of {known_frames(chain)}')]
        if self._jog is None or self._jog.kind != 'twist':
            self._jog_path.reset()
        self._jog = JogCommand('twist', frame, values, receive_time)
        self._target = None
        return []

    def set_joint_jog(self, names: Sequence[str], velocities: Sequence[float],
                      receive_time: float) -> List[Notice]:
        """Take joint velocities (rad/s or m/s) by name; the jog takes over from a target."""
        qdot, problem = joint_velocity_command(self.arm.chain.joint_names, names, velocities)
        if qdot is None:
            return [Notice('warn', 'jog:joints', problem)]
        self._jog = JogCommand('joint', '', qdot, receive_time)
        self._target = None
        return []

    def set_collision_guard(self, collision: Optional[CollisionGuard]) -> None:
        """
        Check against a new model from the next cycle on (a new scene, new allowed pairs).

        A solve-mode motion is checked again in the new model (and the target solved anew
        where it is blocked); the commanded state is checked for a collision it may now be
        in.
        """
        self.collision = collision
        self._checked_goal = None
        self._check_start = True

    # ------------------------------------------------------------------- cycle
    def cycle(self, now: float, measure: bool = True) -> CycleResult:
        """
        Run one control cycle at time ``now`` (s); return the command and notices.

        ``measure`` False: the cycle keeps the last manipulability measures, however old,
        and publishes none (the next cycle with ``measure`` takes them again where due).
        For a cycle whose command a controller is waiting for: the node's cycle on an
        input's arrival, with the arm at rest.
        """
        settings = self.settings
        q_measured = self.joints.positions()
        if q_measured is None:
            message = 'waiting for joint_states with ' + ', '.join(self.joints.missing_joints())
            self.status = CycleStatus('WARN', message)
            return CycleResult(notices=(Notice('info', 'joint_states:waiting', message),))
        measures, fresh = self._measures(q_measured, now, measure)
        published = measures.yoshikawa if fresh else None
        values: Dict[str, object] = {'manipulability': measures.yoshikawa,
                                     'sigma_min': measures.sigma_min,
                                     'condition_number': measures.condition_number,
                                     'mode': settings.mode}
        age = self.joints.age(now)
        stale = age > settings.joint_state_timeout
        if self._motion is None:
            if stale or (self._target is None and self._jog is None):
                self.status = (CycleStatus('ERROR', f'joint states are stale ({age:.2f} s '
                                           'old); no commands', values) if stale
                               else CycleStatus('OK', 'no target yet', values))
                return CycleResult(manipulability=published)
            self._start_stream(q_measured, now + self._lead())
        notices: List[Notice] = []
        command_time = now + self._lead()
        if command_time - self._last_time > self._stall_gap():
            self._resume_after_stall(command_time, notices)
        dt = max(command_time - self._last_time, 0.0)
        self._last_time += dt
        tracking = None
        if self._check_start:
            self._check_start = False
            notices.extend(self._in_collision_notices())
        if stale:
            level, message, goal = 'ERROR', (f'joint states are stale ({age:.2f} s old, '
                                             f'timeout {settings.joint_state_timeout} s); '
                                             'braking to rest and holding'), Goal(None)
            notices.append(Notice('warn', 'joint_states:stale', message))
        else:
            level, message, goal, tracking = self._tracking_goal(q_measured, values, notices,
                                                                 dt, now)
        step = self._advance(goal, dt, notices)
        self._prepare_damper_at_rest()
        if self._collision_stop is not None and level != 'ERROR':
            level, message = 'WARN', ('stopping before a collision: the motion would bring '
                                      f'{self._collision_stop.text()}')
        if level == 'OK' and measures.sigma_min < settings.singularity_warning:
            level, message = 'WARN', (f'near a singularity: sigma_min '
                                      f'{measures.sigma_min:.3g} < '
                                      f'{settings.singularity_warning}')
        self.status = CycleStatus(level, message, values, tracking)
        state = step.state
        horizon = (self._horizon.extend(
            now - KEEP_PERIODS / settings.update_rate, self._last_time, state,
            self._points_between(step, dt), self._generator().stop_samples(state, TAIL_SPACING))
            if self._horizon is not None else None)
        return CycleResult(Command(state.position, state.velocity, state.acceleration, dt,
                                   self._last_time, horizon), published,
                           tuple(notices))

    def _measures(self, q_measured: np.ndarray, now: float,
                  measure: bool) -> Tuple[Manipulability, bool]:
        """
        Return the manipulability at the measured joints and whether it was just computed.

        Computed at most every ``MEASURE_PERIOD`` s (a 1 kHz loop reuses it for 10 ms):
        the diagnostics, the singularity warning and ``~/manipulability`` need no more. An
        arm at rest (the same joints, bit for bit) reuses it longer: the same value.
        ``measure`` False: the last measures, if any, whatever their age and joints.
        """
        measured_at, measures = self._measured
        if measures is not None and (not measure or 0.0 <= now - measured_at < MEASURE_PERIOD):
            return measures, False
        inputs = (q_measured.tobytes(),)
        measures = self._measures_at.reused(inputs)
        if measures is None:
            J = self.arm.kinematics.jacobian(q_measured)
            measures = self._measures_at.keep(
                inputs, manipulability(task_jacobian(J, self.arm.task_rows)))
        self._measured = (now, measures)
        return measures, True

    def _points_between(self, step: MotionStep, dt: float) -> Points:
        """
        Return states of ``step``'s motion strictly inside its ``dt`` s, absolute times.

        At most ``POINT_SPACING`` apart; none for a state set directly (no plan).
        """
        count = int(np.ceil(dt / POINT_SPACING - 1e-9)) - 1
        n = self.arm.chain.n_joints
        if count <= 0 or step.plan is None:
            return np.empty(0), np.empty((0, n)), np.empty((0, n)), np.empty((0, n))
        offsets = dt * np.arange(1, count + 1) / (count + 1)
        return (self._last_time - dt + offsets,) + self._generator().between(step.plan, offsets)

    def _lead(self) -> float:
        """
        Return how far ahead of the clock commands are (s): JointTrajectory horizons.

        ``trajectory_lead_time``, at least ``MIN_LEAD_PERIODS`` periods (a message must be
        able to arrive a period late and still find JTC on the committed commands).
        """
        if self._horizon is None:
            return 0.0
        return max(self.settings.trajectory_lead_time,
                   MIN_LEAD_PERIODS / self.settings.update_rate)

    def _stall_gap(self) -> float:
        """
        Return the gap between cycles (s) past which the loop counts as stalled.

        Position streams: ``MAX_STEP_PERIODS`` periods. JointTrajectory: the lead less one
        period, since a message sent later reaches JTC after (or within a period of) the
        end of the committed commands, when it may already follow the stop.
        """
        period = 1.0 / self.settings.update_rate
        if self._horizon is None:
            return MAX_STEP_PERIODS * period
        return self._lead() - period

    def _start_stream(self, q_measured: np.ndarray, time: float) -> None:
        """Start (or restart) the command stream at rest at the measured joints."""
        self._motion = MotionState.at_rest(q_measured)
        self._last_time = self._rest_since = time
        self._lagging_arm_moved = None
        self._history.clear()
        if self._horizon is not None:
            self._horizon.clear()
        self._check_start = True
        self._checked_goal = None
        self._servo_held_until = -np.inf

    def _resume_after_stall(self, command_time: float, notices: List[Notice]) -> None:
        """
        Continue after a stall from what the arm's controller executed meanwhile.

        JointTrajectory: the last horizon's point at or before ``command_time`` (the
        controller followed the committed commands, then the stop). Position streams: the
        last command, held (the controller held it). A state at rest is taken one period
        before ``command_time``, so the next step is one period long.
        """
        gap, period = command_time - self._last_time, 1.0 / self.settings.update_rate
        resumed = (self._horizon.resume(command_time, period) if self._horizon is not None
                   else None)
        time, state = resumed if resumed is not None else (
            command_time - period, MotionState.at_rest(self._motion.position))
        self._motion, self._last_time = state, time
        self._checked_goal = None
        self._servo_held_until = -np.inf
        notices.append(Notice('warn', 'command:stall', f'the control loop stalled for '
                              f'{gap:.3f} s; continuing from what the arm executed meanwhile '
                              '(no fast-forward)'))

    def _in_collision_notices(self) -> List[Notice]:
        """Say so when the commanded state is in collision (only moving apart is allowed)."""
        if self.collision is None:
            return []
        contact = self._collision_at(self._motion.position)
        if contact is None:
            return []
        return [Notice('warn', 'collision:start', contact.in_collision_text())]

    def _collision_damped(self, q: np.ndarray, qdot: np.ndarray, mask: Tuple[bool, ...],
                          damping: float, velocity_limits: np.ndarray,
                          J_task: Optional[np.ndarray] = None) -> np.ndarray:
        """
        Return ``qdot`` through the velocity damper (unchanged without collision checks).

        ``J_task``: the weighted task Jacobian at ``q`` the velocity came from
        (:class:`TwistMotion`); None: computed here (the ``mask``'s rows, angular rows
        times ``orientation_weight``). Keeps the pair at the stop distance, if any, in
        ``_stopping_contact``.
        """
        self._stopping_contact = None
        if self.collision is None:
            return qdot
        if J_task is None:
            weights = row_weights(mask, self.settings.orientation_weight)
            J_task = self.arm.kinematics.jacobian(q)[np.array(mask)] * weights[:, None]
        qdot, self._stopping_contact = self.collision.damped_velocity(
            q, qdot, J_task, damping, velocity_limits, self.settings)
        return qdot

    def _generator(self) -> OnlineGenerator:
        """Return the trajectory generator for the current ``velocity_scale``."""
        scale = self.settings.velocity_scale
        if self._generator_for[0] != scale or self._generator_for[1] is None:
            self._generator_for = (scale, OnlineGenerator(self.limits.with_velocity_scale(scale)))
            self._checked_goal = None  # another speed: another path
        return self._generator_for[1]

    def _advance(self, goal: Goal, dt: float, notices: List[Notice]) -> MotionStep:
        """
        Move the commanded state ``dt`` s toward the goal (or brake); keep it finite.

        A step toward ``_checked_goal`` (a goal whose whole motion from the commanded state
        was found free, followed since) stays on that motion; a step that holds the arm at
        rest where it is commands nothing new; any other step must keep a collision-free
        stop (:meth:`_guarded`). A brake off a checked motion that would
        collide finishes the checked motion instead.
        """
        generator, state = self._generator(), self._motion
        step = None
        self._collision_stop = None
        if goal.q is not None and all_finite(goal.q):
            step = generator.step(state, goal.q, dt, goal.speed_fraction, goal.velocity_caps)
            if (step.state.is_finite() and goal.q is not self._checked_goal
                    and not _holds_still(state, step.state)):
                step = self._guarded(generator, state, step, dt, notices)
        elif goal.q is not None:
            notices.append(Notice('warn', 'command:non_finite', 'the goal is not finite '
                                  '(numeric overflow); braking to rest'))
        checked_goal = (goal.q if goal.q is not None and goal.q is self._checked_goal
                        and step is not None else None)
        if step is None and self._checked_goal is not None and not state.is_at_rest():
            step, checked_goal = self._brake_or_finish(generator, state, dt, notices)
        self._checked_goal = checked_goal
        if step is None or not step.state.is_finite():
            step = generator.brake_step(state, dt)
        if not step.state.is_finite():
            step = MotionStep(MotionState.at_rest(state.position), 0.0)
        if not step.state.is_at_rest():
            self._rest_since = self._last_time
        self._motion = step.state
        self._history.add(self._last_time, step.state.position,
                          self.settings.joint_state_timeout)
        return step

    def _prepare_damper_at_rest(self) -> None:
        """
        At rest, measure the pairs the damper may need when a target or jog comes.

        From the cycle that brings the commands to rest (a target arriving with that
        command finds them measured): the first cycle toward a new target or jog then
        solves the damper with them at once (:meth:`CollisionGuard.prepare_damper`,
        :meth:`CollisionGuard.damped_velocity`). Later rest cycles at the same joints
        cost a comparison, unless the checker measured elsewhere meanwhile.
        """
        if self.collision is not None and self._motion.is_at_rest():
            self.collision.prepare_damper(self._motion.position, self.settings)

    def _guarded(self, generator: OnlineGenerator, state: MotionState, step: MotionStep,
                 dt: float, notices: List[Notice]) -> Optional[MotionStep]:
        """Return ``step`` if it and the hardest stop after it are free, else None (brake)."""
        if self.collision is None:
            return step
        contact = self.collision.step_contact(generator, state, step.state, dt)
        if contact is None:
            return step
        self._collision_stop = contact
        notices.append(Notice('warn', 'collision:stop', 'stopping: the motion would bring '
                              f'{contact.text()} (clearance {contact.distance:.3g} m)'))
        return None

    def _brake_or_finish(self, generator: OnlineGenerator, state: MotionState, dt: float,
                         notices: List[Notice]) -> Tuple[MotionStep, Optional[np.ndarray]]:
        """Return the brake, or the checked motion's next step where braking would collide."""
        brake = generator.brake_step(state, dt)
        contact = self.collision.step_contact(generator, state, brake.state, dt)
        if contact is None:
            return brake, None
        notices.append(Notice('warn', 'collision:finish', 'braking here would bring '
                              f'{contact.text()}: finishing the checked motion'))
        return generator.step(state, self._checked_goal, dt), self._checked_goal

    def _has_stopped_away(self, q_measured: np.ndarray) -> bool:
        """
        Return whether the lagging arm has stopped away from the commands.

        True when the commands have been at rest and no measured joint has moved by
        ``LAG_MOTION * max_tracking_error`` (at least ``LAG_MOTION_FLOOR``, rad or m) for
        ``joint_state_timeout`` (s): the arm was moved, or its controller faulted. An arm
        still closing in on the held command (a slow controller, late joint states) is
        waited for: taking it where it is would command a jump back from where the commands
        left it.
        """
        settings, now = self.settings, self._last_time
        moved = self._lagging_arm_moved
        if moved is None or np.abs(q_measured - moved[1]).max() > max(
                LAG_MOTION * settings.max_tracking_error, LAG_MOTION_FLOOR):
            moved = self._lagging_arm_moved = (now, q_measured.copy())
        return (self._motion.is_at_rest()
                and now - max(self._rest_since, moved[0]) > settings.joint_state_timeout)

    def _tracking_goal(self, q_measured: np.ndarray, values: Dict[str, object],
                       notices: List[Notice], dt: float, now: float):
        """Return (level, message, goal, tracking) while joint states are fresh."""
        settings, arm = self.settings, self.arm
        lag = self._history.lag(q_measured)
        values['lag'] = lag
        if lag <= settings.max_tracking_error:
            self._lagging_arm_moved = None
        elif self._has_stopped_away(q_measured):
            notices.append(Notice('info', 'command:restart', 'the arm is not where the '
                                  f'commands left it ({lag:.3g} away); continuing from '
                                  'the measured joints'))
            self._start_stream(q_measured, self._last_time)
        else:
            message = (f'the arm lags the commands by {lag:.3g} (max_tracking_error '
                       f'{settings.max_tracking_error}); braking and waiting for it')
            notices.append(Notice('warn', 'command:lag', message))
            return 'WARN', message, Goal(None), None
        if self._jog is not None:
            return self._jog_cycle(values, now, dt) + (None,)
        values['input'] = 'target' if self._target is not None else 'none'
        if self._target is None:
            return 'OK', 'no target', Goal(None), None
        target = self._resolve_target(self._target, self._motion.position)
        mask = arm.task_mask(target.position_only)
        cycle = self._servo_cycle if settings.mode == 'servo' else self._solve_cycle
        level, message, goal, extra = cycle(target, mask, notices, dt)
        values.update(extra)
        return level, message, goal, (q_measured, target.T_base_target, np.array(mask))

    def _jog_cycle(self, values: Dict[str, object], now: float, dt: float):
        """Return (level, message, goal) of a jog cycle; a stale jog brakes to rest."""
        settings, jog = self.settings, self._jog
        values.update(describe(jog))
        if now - jog.receive_time > settings.jog_timeout:
            self._jog_path.reset()
            return 'OK', 'jog over (no command for jog_timeout): at rest', Goal(None)
        mask = self.arm.task_mask(False)
        options = self._differential_options(mask, JOG_DAMPING_FRACTION)
        q = self._motion.position
        goal = jog_goal(self.arm, self.limits, options, q, jog,
                        (settings.jog_linear_scale, settings.jog_angular_scale),
                        self._jog_path, dt,
                        lambda qdot, damping, J_task: self._collision_damped(
                            q, qdot, mask, damping, options.velocity_limits, J_task))
        values['damping'] = goal.damping
        motion = Goal(goal.q_goal, velocity_caps=goal.joint_speeds)
        if self._stopping_contact is not None:
            return ('WARN', 'jog stopped before a collision: it would bring '
                    f'{self._stopping_contact.text()}', motion)
        if goal.at_position_limit:
            return 'WARN', 'jogging along a joint limit', motion
        return 'OK', 'jogging', motion

    def _resolve_target(self, target: Target, q: np.ndarray) -> Target:
        """
        Express the target in the base frame once, with FK at ``q``.

        A planar goal becomes a target per ``planar_goal_mode``; a point keeps the current
        tool orientation (used only when ``point_orientation`` is ``hold``).
        """
        if target.T_base_target is None:
            kinematics = self.arm.kinematics
            T_base_target = kinematics.frame_pose(q, target.frame_id) @ target.T_frame_target
            if target.kind == 'planar':
                T_base_target = planar_goal_target(T_base_target, kinematics.tip_pose(q),
                                                   self.settings.planar_goal_mode)
            elif target.kind == 'point':
                T_base_target = point_target(T_base_target, kinematics.tip_pose(q),
                                             self.settings.point_orientation)
            target.T_base_target = T_base_target
        return target

    def _damping(self, fraction: float = 1.0) -> DampingSchedule:
        """Return the damping schedule of the current settings (threshold, lam_max scaled)."""
        return DampingSchedule(fraction * self.settings.singular_value_threshold,
                               fraction * self.settings.max_damping)

    def _differential_options(self, mask: Tuple[bool, ...],
                              damping_fraction: float = 1.0) -> ServoOptions:
        """
        Return the servo step's options of the current settings (jogs use them as well).

        Kept while the settings, the mask and the fraction stay the same (a cycle asks every
        time); nothing writes to them.
        """
        settings = self.settings
        inputs = (settings, mask, (damping_fraction,))
        options = self._options.reused(inputs)
        if options is None:
            options = self._options.keep(inputs, ServoOptions(
                gain=settings.gain, max_linear_speed=settings.max_linear_speed,
                max_angular_speed=settings.max_angular_speed,
                velocity_limits=settings.velocity_scale * self.limits.velocity,
                orientation_weight=settings.orientation_weight, mask=mask,
                damping=self._damping(damping_fraction)))
        return options

    def _servo_cycle(self, target: Target, mask: Tuple[bool, ...], notices: List[Notice],
                     dt: float):
        """Return (level, message, goal, values) of one servo step at the commanded joints."""
        settings, arm = self.settings, self.arm
        motion = self._servo_motion_at(self._motion.position, target, mask)
        step, goal = motion.step, motion.goal
        values = {'damping': step.damping, 'velocity_scaling': step.velocity_scaling}
        reached = (step.position_error <= settings.position_tolerance
                   and step.orientation_error <= settings.orientation_tolerance)
        stopped = float(np.abs(self._motion.velocity).max(initial=0.0)) < STALL_SPEED
        self._stopped_cycles = self._stopped_cycles + 1 if stopped and not reached else 0
        stalled = self._stopped_cycles * dt > STALL_SECONDS
        if motion.reach_reason:
            notices.append(Notice('warn', 'target:reach', motion.reach_reason))
            return 'ERROR', motion.reach_reason + '; braking to rest', Goal(None), values
        blocking = self._stopping_contact
        if blocking is None or step.position_error < self._blocked_error - BLOCKED_PROGRESS:
            self._blocked_time, self._blocked_error = 0.0, step.position_error
        else:
            self._blocked_time += dt
        if blocking is not None and self._blocked_time > STALL_SECONDS:
            message = ('target refused: the motion would bring '
                       f'{blocking.text()}; stopped short of the collision')
            notices.append(Notice('warn', 'target:collision', message))
            return 'ERROR', message, Goal(None), values
        if stalled and step.at_position_limit:
            return 'WARN', 'stopped at a joint limit short of the target', goal, values
        if stalled and not arm.reaches_every_task_direction:
            message = (f'at the closest pose this chain reaches: {step.position_error:.3g} m '
                       f'and {step.orientation_error:.3g} rad from the target')
            notices.append(Notice('warn', 'target:closest', message))
            return 'WARN', message, goal, values
        if stalled:
            message = (f'target unreachable: stopped {step.position_error:.3g} m and '
                       f'{step.orientation_error:.3g} rad away')
            notices.append(Notice('warn', 'target:unreachable', message))
            return 'ERROR', message, goal, values
        if step.at_position_limit:
            return 'WARN', 'moving along a joint limit', goal, values
        return 'OK', 'tracking the target', goal, values

    def _servo_motion_at(self, q: np.ndarray, target: Target,
                         mask: Tuple[bool, ...]) -> ServoMotion:
        """
        Return the servo step at the commanded joints ``q`` and what follows from it.

        The velocity is the step's through the velocity damper (``_stopping_contact`` set
        as :meth:`_collision_damped` sets it). Both depend only on the joints, the target,
        the mask, the settings and the collision model: an arm at rest at a reached target
        (the same ``q`` bit for bit) reuses the last cycle's instead of computing them
        again (:mod:`ros_ik.control.last_result`). A loop faster than ``1 / SERVO_PERIOD``
        holds them for ``SERVO_PERIOD`` s of command time while the joints move, with the
        joints they are from, so the goal ``q_from + qdot / gain`` stays where it was (as in
        a 200 Hz loop; the generator and the step check still run every cycle); another
        target, mask, settings or collision model computes them at once.
        """
        inputs = (target, mask, self.settings, self.collision)
        kept = self._servo_motion.reused(inputs)
        same_joints = kept is not None and q.tobytes() == kept.q_from.tobytes()
        if kept is None or not (same_joints or self._last_time < self._servo_held_until):
            kept = self._servo_motion.keep(inputs, self._computed_servo_motion(q, target, mask))
            # half a period short of SERVO_PERIOD: timer jitter never stretches the hold
            self._servo_held_until = (self._last_time + SERVO_PERIOD
                                      - 0.5 / self.settings.update_rate)
        self._stopping_contact = kept.stopping_contact
        return kept

    def _computed_servo_motion(self, q: np.ndarray, target: Target,
                               mask: Tuple[bool, ...]) -> ServoMotion:
        """Compute the servo step at ``q``, its velocity through the damper and its goal."""
        options = self._differential_options(mask)
        step = self.arm.servo.step(q, target.T_base_target, options)
        velocity = self._collision_damped(q, step.velocity, mask, step.damping,
                                          options.velocity_limits, step.task_jacobian)
        speed_fraction = float(np.max(np.abs(velocity) / options.velocity_limits, initial=0.0))
        return ServoMotion(step, Goal(q + velocity / self.settings.gain, speed_fraction),
                           self._stopping_contact,
                           self.arm.solver.out_of_reach_reason(target.T_base_target,
                                                               step.position_error),
                           q.copy())

    def _solve_cycle(self, target: Target, mask: Tuple[bool, ...], notices: List[Notice],
                     dt: float):
        """Return (level, message, goal, values) of one solve-mode cycle."""
        if target.sequence != self._solved_sequence:
            self._solved_sequence = target.sequence
            self._solve_attempts = 0
            self._goal_q = self._final_goal = self._detour = None
            self._blocked_goals = []
            self._goal_note = ''
        if self._final_goal is not None and self._at_rest_at(self._goal_q):
            self._goal_q, self._final_goal = self._final_goal, None  # the detour's second leg
        if (self._goal_q is not None and self.collision is not None
                and self._goal_q is not self._checked_goal):
            self._recheck_goal(notices)
        if self._goal_q is None and self._solve_attempts < SOLVE_ATTEMPTS:
            self._solve(target, mask, notices)
        elif self._goal_q is None and self._blocked_goals and self._motion.is_at_rest():
            self._search_detour()
        values = dict(self._solve_values, solve_attempts=self._solve_attempts)
        if self._goal_q is None:
            searching = (self._solve_attempts >= SOLVE_ATTEMPTS and self._blocked_goals
                         and (self._detour is None or not self._detour.exhausted))
            if searching:
                checked = (f' ({self._detour.tried} of {self._detour.total} checked)'
                           if self._detour is not None else '')
                return 'WARN', ('every straight motion to an IK solution is blocked; trying '
                                f'detours{checked}'), Goal(None), values
            if self._solve_attempts >= SOLVE_ATTEMPTS and self._refusal is not None:
                message = (f'target refused: the motion would bring {self._refusal.text()}; '
                           'holding until a new target')
            elif self._solve_attempts >= SOLVE_ATTEMPTS:
                message = (f'IK failed {SOLVE_ATTEMPTS} times ({self._goal_reason}); holding '
                           'until a new target')
            else:
                message = f'IK failed ({self._goal_reason}); braking, retrying next cycle'
            return 'ERROR', message, Goal(None), values
        if self._goal_note:
            return 'WARN', self._goal_note, Goal(self._goal_q), values
        if self._final_goal is not None:
            return 'OK', 'moving to the IK solution by a detour', Goal(self._goal_q), values
        return 'OK', 'moving to the IK solution', Goal(self._goal_q), values

    def _at_rest_at(self, q: Optional[np.ndarray]) -> bool:
        """Return whether the commanded motion is at rest at ``q``."""
        return (q is not None and self._motion.is_at_rest()
                and same_solution(self._motion.position, q))

    def _search_detour(self) -> None:
        """
        Check detours to the nearest blocked solutions (the arm at rest), within the budget.

        A free one becomes the goal: its via first (a checked motion), then the solution.
        """
        if self._detour is None:
            start = self._motion.position
            goals: List[np.ndarray] = []
            for _, goal, _ in sorted(self._blocked_goals,
                                     key=lambda entry: float(np.abs(entry[1] - start).sum())):
                if len(goals) < DETOUR_GOALS and not any(same_solution(goal, other)
                                                         for other in goals):
                    goals.append(goal)
            self._detour = DetourSearch(start, goals)
        generator = self._generator()
        found = self._detour.search(
            lambda via: self.collision.goal_contact(generator, self._motion, via),
            lambda via, goal: self.collision.goal_contact(generator, MotionState.at_rest(via),
                                                          goal),
            time.perf_counter() + self.settings.solve_time_budget)
        if found is not None:
            self._goal_q, self._final_goal = found
            self._checked_goal = self._goal_q
        elif self._detour.blocked is not None and self._refusal is None:
            self._refusal = self._detour.blocked

    def _solve(self, target: Target, mask: Tuple[bool, ...], notices: List[Notice]) -> None:
        """Solve the target once, seeded at the commanded joints (a new seed per attempt)."""
        settings, arm = self.settings, self.arm
        seed = self._motion.position
        deadline = time.perf_counter() + settings.solve_time_budget
        ik_share = IK_BUDGET_SHARE if self.collision is not None else 1.0
        options = replace(arm.solver.options, mask=mask,
                          orientation_weight=settings.orientation_weight,
                          time_budget=ik_share * settings.solve_time_budget,
                          solution_choice='closest', damping=self._damping(),
                          random_seed=self._solve_attempts)
        result = arm.solver.solve(target.T_base_target, seed, options)
        self._solve_attempts += 1
        self._goal_reason = result.reason
        self._solve_values = {'iterations': result.iterations, 'restarts': result.restarts,
                              'solve_time_ms': result.time * 1e3, 'damping': result.damping}
        self._refusal = None
        if result.success:
            self._goal_q = self._free_goal(result.solutions, notices, deadline)
        elif arm.solver.out_of_reach_reason(target.T_base_target, 0.0):
            self._solve_attempts = SOLVE_ATTEMPTS  # provably out of reach: no retry
            notices.append(Notice('warn', 'target:reach', f'IK failed: {result.reason}'))
        elif not arm.reaches_every_task_direction:
            # Off the poses this chain reaches: the best pose of the whole time budget is
            # the closest one (least squares on the weighted task error).
            self._goal_q = self._free_goal((result.q,), notices, deadline)
            self._goal_note = (f'moving to the closest pose this chain reaches: '
                               f'{result.position_error:.3g} m and '
                               f'{result.orientation_error:.3g} rad from the target')
            notices.append(Notice('warn', 'target:closest', self._goal_note))
        else:
            notices.append(Notice('warn', 'target:ik', f'IK failed: {result.reason} '
                                  f'(attempt {self._solve_attempts} of {SOLVE_ATTEMPTS})'))

    def _recheck_goal(self, notices: List[Notice]) -> None:
        """
        Check the motion to the solve goal again from the commanded state (off its motion).

        After a brake (the arm lagged, joint states were stale), a restart, a new
        ``velocity_scale`` or a new scene the path to the goal is another one: free, it is
        followed again; blocked, the target is solved anew.
        """
        contact = self.collision.goal_contact(self._generator(), self._motion, self._goal_q)
        if contact is None:
            self._checked_goal = self._goal_q
            return
        notices.append(Notice('warn', 'target:collision', 'the motion to the IK solution '
                              f'would now bring {contact.text()}; solving again'))
        self._goal_q = self._final_goal = None
        self._refusal = contact

    def _free_goal(self, solutions: Sequence[np.ndarray], notices: List[Notice],
                   deadline: float) -> Optional[np.ndarray]:
        """
        Return the nearest solution whose whole motion is collision-free (None: none is).

        Solutions are tried nearest first (continuous joints the short way), at most
        ``MAX_CHECKED_SOLUTIONS`` distinct ones and none after ``deadline`` (perf_counter
        s) but the first; without collision checks the nearest wins. A refusal names the
        pair in collision at the nearest goal if there is one (:meth:`_collision_at`),
        else the first contact of the last motion checked.
        """
        seed = self._motion.position
        goals = [short_way(q, seed, self.arm.chain.is_continuous) for q in solutions]
        if self.collision is None:
            return goals[0]
        tried: List[np.ndarray] = []
        checks = 0
        contact = None
        for goal in goals:
            if any(same_solution(goal, other) for other in tried):
                continue
            if checks == MAX_CHECKED_SOLUTIONS or (checks and time.perf_counter() > deadline):
                break
            tried.append(goal)
            contact = self._known_blocked(goal)
            if contact is not None:
                continue
            checks += 1
            contact = self.collision.goal_contact(self._generator(), self._motion, goal)
            if contact is None:
                self._checked_goal = goal
                return goal
            self._blocked_goals.append((seed.copy(), goal, contact))
        contact = self._refusal = self._collision_at(tried[0]) or contact
        self._goal_reason = f'the motion would bring {contact.text()}'
        notices.append(Notice('warn', 'target:collision', f'no collision-free IK solution: '
                              f'the motion would bring {contact.text()} (attempt '
                              f'{self._solve_attempts} of {SOLVE_ATTEMPTS})'))
        return None

    def _collision_at(self, q: np.ndarray) -> Optional[Contact]:
        """
        Return the closest pair at joint positions ``q`` if it is in collision there.

        In collision: closer than ``collision_padding`` (m); None: not in collision. A
        refusal names the pair at the nearest goal before the contact of the last motion
        checked: a target inside an obstacle (or under the floor) is refused naming the
        obstacle, whichever pair the motions toward its solutions would meet first.
        """
        contact = self.collision.nearest(q)
        return contact if contact is not None and self._touches(contact) else None

    def _touches(self, contact: Contact) -> bool:
        """Return whether ``contact`` is closer than ``collision_padding`` (in collision)."""
        return contact.distance < self.collision.checker.padding

    def _known_blocked(self, goal: np.ndarray) -> Optional[Contact]:
        """Return the contact of ``goal``'s motion if checked before from this rest state."""
        if not self._motion.is_at_rest():
            return None
        position = self._motion.position
        for start, blocked, contact in self._blocked_goals:
            if np.array_equal(start, position) and same_solution(blocked, goal):
                return contact
        return None

    def is_at_rest(self) -> bool:
        """
        Return whether the commanded motion is at rest (or no command was sent yet).

        The stream then repeats one position: when the next command comes changes nothing
        an arm's controller executes.
        """
        return self._motion is None or self._motion.is_at_rest()

    # ----------------------------------------------------------------- reports
    def report(self) -> CycleStatus:
        """
        Return the last cycle's status with the tracking errors on the controlled axes.

        ``position_error`` (m) and ``orientation_error`` (rad) are the masked norms of
        ``[p_target - p_tip; log(R_target R_tip^T)]``; an OK status within both tolerances
        says 'target reached'.
        """
        status = self._with_clearance(self.status)
        if status.tracking is None:
            return status
        q_measured, T_base_target, mask = status.tracking
        e_p, e_o = pose_error(T_base_target, self.arm.kinematics.tip_pose(q_measured))
        position_error = float(np.linalg.norm(e_p * mask[:3]))
        orientation_error = float(np.linalg.norm(e_o * mask[3:]))
        values = dict(status.values, position_error=position_error,
                      orientation_error=orientation_error)
        message = status.message
        if (status.level == 'OK' and position_error <= self.settings.position_tolerance
                and orientation_error <= self.settings.orientation_tolerance):
            message = 'target reached'
        return CycleStatus(status.level, message, values)

    def _with_clearance(self, status: CycleStatus) -> CycleStatus:
        """
        Return ``status`` with ``min_distance`` (m) and ``closest_pair`` at the measured joints.

        Closer than ``collision_padding``: WARN (if not worse), in collision.
        """
        q = self.joints.positions()
        contact = self._nearest(q) if self.collision and q is not None else None
        if contact is None:
            return status
        values = dict(status.values, min_distance=contact.distance,
                      closest_pair=' - '.join(contact.owners))
        level, message = status.level, status.message
        if self._touches(contact) and level == 'OK':
            level, message = 'WARN', contact.in_collision_text()
        return replace(status, level=level, message=message, values=values)

    def _nearest(self, q: np.ndarray) -> Optional[Contact]:
        """Return the closest pair at ``q``, kept while ``q`` and the model stay the same."""
        cached_q, cached_for, contact = self._nearest_cache
        unchanged = cached_q is not None and np.array_equal(q, cached_q)
        if cached_for is not self.collision or not unchanged:
            contact = self.collision.nearest(q)
            self._nearest_cache = (np.array(q), self.collision, contact)
        return contact

    def marker_state(self) -> Optional[MarkerState]:
        """
        Return the target and the velocity ellipsoid at the measured tip (None: no joints).

        The closest pair is the one the last report measured (markers stay cheap).
        """
        q = self.joints.positions()
        if q is None:
            return None
        arm = self.arm
        T_base_tip, J = arm.kinematics.tip_pose_and_jacobian(q)
        semi_axes, R_base_ellipsoid = velocity_ellipsoid(J)
        sigma_min = manipulability(task_jacobian(J, arm.task_rows)).sigma_min
        target = self._target
        closest = self._nearest_cache[2] if self.collision is not None else None
        return MarkerState(
            T_base_target=target.T_base_target if target is not None else None,
            position_only=target is not None and target.position_only,
            T_base_tip=T_base_tip, semi_axes=semi_axes, R_base_ellipsoid=R_base_ellipsoid,
            near_singularity=sigma_min < self.settings.singularity_warning, closest=closest)


def short_way(q_goal: np.ndarray, q_from: np.ndarray, is_continuous: np.ndarray) -> np.ndarray:
    """Return ``q_goal`` (n,) with continuous joints within pi of ``q_from`` (same angle)."""
    return q_from + wrapped_difference(q_goal - q_from, is_continuous)
