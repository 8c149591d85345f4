"""
The IK controller: one control cycle from the latest target and joint states to a command.

Plain data in and out, no ROS: the node feeds it targets and joint states as numbers and
strings with the receive time (s, the node's clock), calls :meth:`IkController.cycle` at
``update_rate`` and publishes what comes back. Every problem worth a log line comes back
as a :class:`Notice` keyed by its kind, so the caller can throttle each kind separately.

A cycle (base frame, metres and radians, ``dt = 1 / update_rate`` s):

1. no joint state for a chain joint yet: WARN, no command;
2. manipulability and singular values of the task Jacobian at the measured joints;
3. joint states older than ``joint_state_timeout``: ERROR, no command (hold);
4. no target: OK, no command;
5. start from the last command while the arm is within ``max_tracking_error`` of it (so
   consecutive commands respect the velocity limits however the joint states lag), else
   from the measured joints;
6. ``servo``: one damped step toward the target; ``solve``: one IK solve per new target,
   then a straight joint-space move there; either way the joint velocity ``qdot`` is
   within ``velocity_scale`` x the URDF limits and the command is ``q + qdot dt``;
7. status: ERROR for a target provably out of reach or a failed solve, WARN at a joint
   limit or near a singularity (``sigma_min < singularity_warning``), OK otherwise; a
   servo that stays still for 0.5 s short of the target reports why.
"""

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ros_ik.control.arm import ControlledArm
from ros_ik.control.goal_modes import planar_goal_target, point_target
from ros_ik.control.joint_state_cache import JointStateCache
from ros_ik.control.parameters import Settings
from ros_ik.control.targets import check_pose, is_known_frame, known_frames
from ros_ik.kinematics.damped_least_squares import DampingSchedule
from ros_ik.kinematics.manipulability import manipulability, task_jacobian, velocity_ellipsoid
from ros_ik.kinematics.servo_step import ServoOptions, synchronized_step
from ros_ik.kinematics.transforms import pose_error

STALL_SPEED = 1e-4  # rad/s: below this the servo counts as stopped
STALL_SECONDS = 0.5  # s stopped short of the target before it is reported


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
    """One joint command (chain order): positions (rad or m), velocities, period (s)."""

    q: np.ndarray
    velocity: np.ndarray
    dt: float


@dataclass(frozen=True)
class CycleStatus:
    """
    What the last cycle saw: level ('OK', 'WARN', 'ERROR'), message and values.

    ``tracking`` = (T_base_tip, T_base_target, mask) when a target is active: the errors are
    computed when a report is asked for, not in the control loop.
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
    """What to draw: the target (if any), the tip and its velocity ellipsoid."""

    T_base_target: Optional[np.ndarray]
    position_only: bool
    T_base_tip: np.ndarray
    semi_axes: np.ndarray
    R_base_ellipsoid: np.ndarray
    near_singularity: bool


class IkController:
    """The control state machine for one arm: targets and joint states in, commands out."""

    def __init__(self, arm: ControlledArm, settings: Settings) -> None:
        """Start with no joint state, no target and no command."""
        self.arm = arm
        self.settings = settings
        self.joints = JointStateCache(arm.chain.joint_names)
        self.status = CycleStatus('WARN', 'waiting for joint_states')
        self._target: Optional[Target] = None
        self._target_sequence = 0
        self._solved_sequence = -1
        self._goal_q: Optional[np.ndarray] = None
        self._goal_reason = ''
        self._solve_values: Dict[str, object] = {}
        self._stopped_cycles = 0
        self._last_command: Optional[np.ndarray] = None

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
        return notices

    # ------------------------------------------------------------------- cycle
    def cycle(self, now: float) -> CycleResult:
        """Run one control cycle at time ``now`` (s); return the command and notices."""
        arm, settings = self.arm, self.settings
        q = self.joints.positions()
        if q is None:
            message = 'waiting for joint_states with ' + ', '.join(self.joints.missing_joints())
            self.status = CycleStatus('WARN', message)
            return CycleResult(notices=(Notice('info', 'joint_states:waiting', message),))
        T_base_tip, J = arm.kinematics.tip_pose_and_jacobian(q)
        measures = manipulability(task_jacobian(J, arm.task_rows))
        values: Dict[str, object] = {'manipulability': measures.yoshikawa,
                                     'sigma_min': measures.sigma_min,
                                     'condition_number': measures.condition_number}
        age = self.joints.age(now)
        if age > settings.joint_state_timeout:
            message = (f'joint states are stale ({age:.2f} s old, timeout '
                       f'{settings.joint_state_timeout} s); holding, no commands')
            self.status = CycleStatus('ERROR', message, values)
            self._last_command = None
            return CycleResult(manipulability=measures.yoshikawa,
                               notices=(Notice('warn', 'joint_states:stale', message),))
        if self._target is None:
            self.status = CycleStatus('OK', 'no target yet', values)
            return CycleResult(manipulability=measures.yoshikawa)
        q = self._command_base(q)
        target = self._resolve_target(self._target, q)
        dt = 1.0 / settings.update_rate
        mask = arm.task_mask(target.position_only)
        notices: List[Notice] = []
        step = self._servo_cycle if settings.mode == 'servo' else self._solve_cycle
        level, message, velocity, extra = step(q, target, mask, dt, notices)
        q_command = q + velocity * dt
        self._last_command = q_command
        values.update(extra)
        values['mode'] = settings.mode
        if level == 'OK' and measures.sigma_min < settings.singularity_warning:
            level, message = 'WARN', (f'near a singularity: sigma_min '
                                      f'{measures.sigma_min:.3g} < '
                                      f'{settings.singularity_warning}')
        self.status = CycleStatus(level, message, values,
                                  (T_base_tip, target.T_base_target, np.array(mask)))
        return CycleResult(Command(q_command, velocity, dt), measures.yoshikawa,
                           tuple(notices))

    def _command_base(self, q_measured: np.ndarray) -> np.ndarray:
        """Return the last command while within ``max_tracking_error``, else ``q_measured``."""
        last = self._last_command
        if last is not None and float(np.abs(last - q_measured).max()) <= (
                self.settings.max_tracking_error):
            return last
        return q_measured

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

    def _damping(self) -> DampingSchedule:
        """Return the damping schedule of the current settings."""
        return DampingSchedule(self.settings.singular_value_threshold,
                               self.settings.max_damping)

    def _servo_cycle(self, q: np.ndarray, target: Target, mask: Tuple[bool, ...], dt: float,
                     notices: List[Notice]):
        """Return (level, message, joint velocity, values) of one servo step."""
        settings, arm = self.settings, self.arm
        options = ServoOptions(gain=settings.gain, max_linear_speed=settings.max_linear_speed,
                               max_angular_speed=settings.max_angular_speed,
                               velocity_scale=settings.velocity_scale,
                               orientation_weight=settings.orientation_weight,
                               mask=mask, damping=self._damping())
        step = arm.servo.step(q, target.T_base_target, dt, options)
        values = {'damping': step.damping, 'velocity_scaling': step.velocity_scaling}
        reached = (step.position_error <= settings.position_tolerance
                   and step.orientation_error <= settings.orientation_tolerance)
        stopped = float(np.abs(step.velocity).max(initial=0.0)) < STALL_SPEED
        self._stopped_cycles = self._stopped_cycles + 1 if stopped and not reached else 0
        stalled = self._stopped_cycles * dt > STALL_SECONDS
        reach_reason = arm.solver.out_of_reach_reason(target.T_base_target,
                                                      step.position_error)
        if reach_reason:
            notices.append(Notice('warn', 'target:reach', reach_reason))
            return 'ERROR', reach_reason, step.velocity, values
        if stalled and step.at_position_limit:
            return 'WARN', 'stopped at a joint limit short of the target', step.velocity, values
        if stalled:
            message = (f'target unreachable: stopped {step.position_error:.3g} m and '
                       f'{step.orientation_error:.3g} rad away')
            notices.append(Notice('warn', 'target:unreachable', message))
            return 'ERROR', message, step.velocity, values
        if step.at_position_limit:
            return 'WARN', 'moving along a joint limit', step.velocity, values
        return 'OK', 'tracking the target', step.velocity, values

    def _solve_cycle(self, q: np.ndarray, target: Target, mask: Tuple[bool, ...], dt: float,
                     notices: List[Notice]):
        """Return (level, message, joint velocity, values) of one solve-mode cycle."""
        settings, arm = self.settings, self.arm
        if target.sequence != self._solved_sequence:
            options = replace(arm.solver.options, mask=mask,
                              orientation_weight=settings.orientation_weight,
                              time_budget=settings.solve_time_budget,
                              solution_choice='closest', damping=self._damping())
            result = arm.solver.solve(target.T_base_target, q, options)
            self._solved_sequence = target.sequence
            self._goal_q = result.q
            self._goal_reason = result.reason
            self._solve_values = {'iterations': result.iterations,
                                  'restarts': result.restarts,
                                  'solve_time_ms': result.time * 1e3,
                                  'damping': result.damping}
            if not result.success:
                notices.append(Notice('warn', 'target:ik', f'IK failed: {result.reason}; '
                                      'moving to the closest pose found'))
        speed_limits = settings.velocity_scale * arm.chain.velocity_limits
        velocity = synchronized_step(q, self._goal_q, speed_limits, dt)
        values = dict(self._solve_values)
        if self._goal_reason:
            return 'ERROR', f'IK failed: {self._goal_reason}', velocity, values
        return 'OK', 'moving to the IK solution', velocity, values

    # ----------------------------------------------------------------- reports
    def report(self) -> CycleStatus:
        """
        Return the last cycle's status with the tracking errors on the controlled axes.

        ``position_error`` (m) and ``orientation_error`` (rad) are the masked norms of
        ``[p_target - p_tip; log(R_target R_tip^T)]``; an OK status within both tolerances
        says 'target reached'.
        """
        status = self.status
        if status.tracking is None:
            return status
        T_base_tip, T_base_target, mask = status.tracking
        e_p, e_o = pose_error(T_base_target, T_base_tip)
        position_error = float(np.linalg.norm(e_p * mask[:3]))
        orientation_error = float(np.linalg.norm(e_o * mask[3:]))
        values = dict(status.values, position_error=position_error,
                      orientation_error=orientation_error)
        message = status.message
        if (status.level == 'OK' and position_error <= self.settings.position_tolerance
                and orientation_error <= self.settings.orientation_tolerance):
            message = 'target reached'
        return CycleStatus(status.level, message, values)

    def marker_state(self) -> Optional[MarkerState]:
        """Return the target and the velocity ellipsoid at the measured tip (None: no joints)."""
        q = self.joints.positions()
        if q is None:
            return None
        arm = self.arm
        T_base_tip, J = arm.kinematics.tip_pose_and_jacobian(q)
        semi_axes, R_base_ellipsoid = velocity_ellipsoid(J)
        sigma_min = manipulability(task_jacobian(J, arm.task_rows)).sigma_min
        target = self._target
        return MarkerState(
            T_base_target=target.T_base_target if target is not None else None,
            position_only=target is not None and target.position_only,
            T_base_tip=T_base_tip, semi_axes=semi_axes, R_base_ellipsoid=R_base_ellipsoid,
            near_singularity=sigma_min < self.settings.singularity_warning)
