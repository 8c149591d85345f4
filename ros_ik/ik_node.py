"""
The ros_ik node: target poses and joint states in, joint commands and manipulability out.

Inputs are validated and cached by the subscription callbacks; all computation happens in
one timer at ``update_rate`` (``servo``: one damped step from the latest joint state;
``solve``: a full IK solve per new target, then a synchronized move within the velocity
limits). See the README for topics, parameters and their QoS.
"""

from dataclasses import dataclass, field, replace
import sys
from typing import Dict, List, Optional

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, PoseStamped
import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import (DurabilityPolicy, qos_profile_sensor_data, QoSProfile,
                       ReliabilityPolicy)
from ros_ik.arm_model import ArmModel
from ros_ik.damped_least_squares import DampingSchedule
from ros_ik.errors import UrdfError
from ros_ik.goal_modes import planar_goal_target, point_target
from ros_ik.kernel_warm_up import warm_up_kernels
from ros_ik.manipulability import manipulability, task_jacobian, velocity_ellipsoid
from ros_ik.node_main import run_node
from ros_ik.node_parameters import (declare_parameters, parameter_values,
                                    validation_errors)
from ros_ik.ros_messages import (diagnostics, format_value, ik_markers,
                                 joint_state_command, joint_trajectory_command,
                                 pose_components, position_array_command)
from ros_ik.servo import ServoOptions, synchronized_step
from ros_ik.target_input import (check_pose, frame_pose, is_known_frame, known_frames,
                                 TargetCheck)
from ros_ik.throttled_log import KeyedThrottle
from ros_ik.transforms import pose_error
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64, Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import MarkerArray

THROTTLE = 2.0
# A kernel warm-up longer than this was a compilation (a cache load takes ~0.3 s): say so.
COMPILE_NOTICE_SECONDS = 2.0
# Commands keep the latest target and joints: a flood of inputs never builds a backlog.
TARGET_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
# Command type -> (message type, topic); joints always in chain order.
COMMAND_TOPICS = {'joint_state': (JointState, '~/joint_commands'),
                  'joint_trajectory': (JointTrajectory, '~/joint_trajectory'),
                  'float64_multi_array': (Float64MultiArray, '~/commands')}
STALL_SPEED = 1e-4  # rad/s: below this the servo counts as stopped


class ConfigurationError(ValueError):
    """A parameter combination the node cannot start with."""


@dataclass
class Target:
    """The latest target: its frame, pose in that frame, kind and whether position-only."""

    frame_id: str
    T_frame_target: np.ndarray
    kind: str  # 'pose', 'planar' (2D goal) or 'point'
    position_only: bool
    sequence: int
    T_base_target: Optional[np.ndarray] = None


@dataclass
class CycleStatus:
    """
    What the last control cycle saw, reported on /diagnostics.

    ``tracking`` = (T_base_tip, T_base_target, mask) when a target is active: the errors
    are computed when the diagnostics are published, not in the control loop.
    """

    level: str = 'WARN'
    message: str = 'waiting for the robot model'
    values: Dict[str, object] = field(default_factory=dict)
    tracking: Optional[tuple] = None


class IkNode(Node):
    """Subscribes targets and joint states, publishes joint commands and diagnostics."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters, load the arm (or wait for it), create topics and timers."""
        super().__init__('ros_ik', **kwargs)
        declare_parameters(self)
        errors = validation_errors([self.get_parameter(name) for name in
                                    ('mode', 'command_type', 'task_axes')])
        if errors:
            raise ConfigurationError('; '.join(errors))
        self._settings = parameter_values(self)
        compile_seconds = warm_up_kernels()
        if compile_seconds > COMPILE_NOTICE_SECONDS:
            self.get_logger().info(f'compiled the IK kernels in {compile_seconds:.1f} s (numba, '
                                   'first start only; later starts load its cache)')
        self._model: Optional[ArmModel] = None
        self._target: Optional[Target] = None
        self._target_sequence = 0
        self._solved_sequence = -1
        self._goal_q: Optional[np.ndarray] = None
        self._goal_reason = ''
        self._stopped_cycles = 0
        self._last_command: Optional[np.ndarray] = None
        self._solve_values: Dict[str, object] = {}
        self._status = CycleStatus()
        self._warn = KeyedThrottle(self.get_logger().warning, THROTTLE)
        self._command_publisher = self._create_command_publisher()
        self._manipulability_publisher = self.create_publisher(Float64, '~/manipulability',
                                                               COMMAND_QOS)
        self._diagnostics_publisher = self.create_publisher(DiagnosticArray, '/diagnostics',
                                                            COMMAND_QOS)
        self._load_robot_model()
        self.create_subscription(PoseStamped, '~/target_pose', self._on_target_pose,
                                 TARGET_QOS)
        self.create_subscription(PointStamped, '~/target_point', self._on_target_point,
                                 TARGET_QOS)
        self.create_subscription(PoseStamped, '~/planar_goal', self._on_planar_goal,
                                 TARGET_QOS)
        self.create_subscription(JointState, 'joint_states', self._on_joint_state,
                                 qos_profile_sensor_data)
        self._control_timer = self.create_timer(1.0 / self._settings['update_rate'],
                                                self._on_control_timer)
        self._diagnostics_timer = self.create_timer(self._settings['diagnostics_period'],
                                                    self._publish_diagnostics)
        self._marker_publisher = self.create_publisher(MarkerArray, '~/markers', COMMAND_QOS)
        self._marker_timer = self.create_timer(self._settings['marker_period'],
                                               self._publish_markers)
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

    # ----------------------------------------------------------------- set-up
    def _create_command_publisher(self):
        """Create the publisher of the configured command type."""
        message_type, topic = COMMAND_TOPICS[self._settings['command_type']]
        return self.create_publisher(message_type, topic, COMMAND_QOS)

    def _load_robot_model(self) -> None:
        """Build the arm from the parameter or file; else wait for the topic."""
        urdf_text = self._settings['robot_description']
        path = self._settings['robot_description_file']
        if not urdf_text and path:
            try:
                with open(path, encoding='utf-8') as urdf_file:
                    urdf_text = urdf_file.read()
            except OSError as error:
                raise ConfigurationError(
                    f'cannot read robot_description_file "{path}": {error.strerror}') from error
        if urdf_text:
            self._set_model(self._build_model(urdf_text))
            return
        self.get_logger().info('no robot_description or robot_description_file parameter; '
                               'waiting for the robot_description topic', once=True)
        self.create_subscription(String, 'robot_description', self._on_robot_description,
                                 LATCHED_QOS)

    def _build_model(self, urdf_text: str) -> ArmModel:
        """Parse the URDF into the arm model (raises UrdfError)."""
        return ArmModel.from_urdf(urdf_text, self._settings['base_link'],
                                  self._settings['tip_link'],
                                  self._settings['task_axes'].split())

    def _set_model(self, model: ArmModel) -> None:
        """Adopt ``model`` and announce the chain."""
        self._model = model
        chain = model.chain
        self._status = CycleStatus('WARN', 'waiting for joint_states')
        self.get_logger().info(
            f'chain {chain.base_link} -> {chain.tip_link}: {", ".join(chain.joint_names)}; '
            f'mode {self._settings["mode"]}, commands as {self._settings["command_type"]}')

    # -------------------------------------------------------------- callbacks
    def _on_robot_description(self, message: String) -> None:
        """Build the model from the first valid robot_description message."""
        if self._model is not None:
            return
        try:
            self._set_model(self._build_model(message.data))
        except UrdfError as error:
            self.get_logger().error(f'robot_description rejected: {error}')

    def _on_joint_state(self, message: JointState) -> None:
        """Merge the message's chain joints into the joint cache."""
        if self._model is None:
            return
        update = self._model.joints.update(message.name, message.position, self._now())
        if update.error:
            self._warn('joint_states:' + update.problem, update.error)
        if update.absent_joints and not update.error:
            self._warn('joint_states:absent',
                       'joint_states message lacks chain joints '
                       f'{", ".join(update.absent_joints)}; using their last known positions')
        if update.extra_joints:
            self.get_logger().info('joint_states also carries joints outside the chain, '
                                   f'ignored: {", ".join(update.extra_joints)}',
                                   throttle_duration_sec=30.0)

    def _on_target_pose(self, message: PoseStamped) -> None:
        """Validate and keep a full-pose target."""
        position, quaternion = pose_components(message.pose)
        self._accept_target(check_pose(position, quaternion), message.header.frame_id, 'pose')

    def _on_planar_goal(self, message: PoseStamped) -> None:
        """Validate and keep a planar goal (RViz 2D Goal Pose), read per planar_goal_mode."""
        position, quaternion = pose_components(message.pose)
        self._accept_target(check_pose(position, quaternion), message.header.frame_id,
                            'planar')

    def _on_target_point(self, message: PointStamped) -> None:
        """Validate and keep a point target (orientation free or held, per parameter)."""
        point = message.point
        self._accept_target(check_pose((point.x, point.y, point.z), None),
                            message.header.frame_id, 'point')

    def _accept_target(self, check: TargetCheck, frame_id: str, kind: str) -> None:
        """Store a validated target (the newest one preempts the previous)."""
        if check.error:
            self._warn('target:' + check.problem, f'target ignored: {check.error}')
            return
        if check.warning:
            self._warn('target:normalised', check.warning)
        if self._model is not None and not is_known_frame(self._model.kinematics, frame_id):
            self._warn('target:frame',
                       f'target ignored: unknown frame "{frame_id}"; use one of '
                       f'{known_frames(self._model.kinematics)} (or empty for the base)')
            return
        self._target_sequence += 1
        position_only = kind == 'point' and self._settings['point_orientation'] == 'free'
        self._target = Target(frame_id, check.T_frame_target, kind, position_only,
                              self._target_sequence)

    # ------------------------------------------------------------ parameters
    def _validate_parameters(self, parameters: List[Parameter]) -> SetParametersResult:
        """Reject invalid choices with a reason (ranges are enforced by rclpy)."""
        errors = validation_errors(parameters)
        return SetParametersResult(successful=not errors, reason='; '.join(errors))

    def _apply_parameters(self, parameters: List[Parameter]) -> None:
        """Adopt new values; a new rate or period restarts the timer it drives."""
        timer_periods = {'update_rate': ('_control_timer', self._on_control_timer,
                                         lambda rate: 1.0 / rate),
                         'diagnostics_period': ('_diagnostics_timer', self._publish_diagnostics,
                                                float),
                         'marker_period': ('_marker_timer', self._publish_markers, float)}
        for parameter in parameters:
            self._settings[parameter.name] = parameter.value
            if parameter.name in timer_periods:
                attribute, callback, period = timer_periods[parameter.name]
                old_timer = getattr(self, attribute)
                old_timer.cancel()
                self.destroy_timer(old_timer)
                setattr(self, attribute, self.create_timer(period(parameter.value), callback))

    # --------------------------------------------------------------- control
    def _now(self) -> float:
        """Return the node clock in seconds."""
        return self.get_clock().now().nanoseconds * 1e-9

    def _on_control_timer(self) -> None:
        """Run one control cycle: measure, step toward the target, publish."""
        model = self._model
        if model is None:
            return
        q = model.joints.positions()
        if q is None:
            self.get_logger().info('waiting for joint_states with '
                                   f'{", ".join(model.joints.missing_joints())}',
                                   throttle_duration_sec=10.0)
            self._status = CycleStatus('WARN', 'waiting for joint_states with '
                                       + ', '.join(model.joints.missing_joints()))
            return
        T_base_tip, J = model.kinematics.tip_pose_and_jacobian(q)
        measures = manipulability(task_jacobian(J, model.task_rows))
        self._manipulability_publisher.publish(Float64(data=measures.yoshikawa))
        values: Dict[str, object] = {'manipulability': measures.yoshikawa,
                                     'sigma_min': measures.sigma_min,
                                     'condition_number': measures.condition_number}
        age = model.joints.age(self._now())
        if age > self._settings['joint_state_timeout']:
            message = (f'joint states are stale ({age:.2f} s old, timeout '
                       f'{self._settings["joint_state_timeout"]} s); holding, no commands')
            self._warn('joint_states:stale', message)
            self._status = CycleStatus('ERROR', message, values)
            self._last_command = None
            return
        if self._target is None:
            self._status = CycleStatus('OK', 'no target yet', values)
            return
        q = self._command_base(q)
        target = self._resolve_target(self._target, q)
        dt = 1.0 / self._settings['update_rate']
        mask = model.task_mask(target.position_only)
        if self._settings['mode'] == 'servo':
            level, message, velocity, extra = self._servo_cycle(model, q, target, mask, dt)
        else:
            level, message, velocity, extra = self._solve_cycle(model, q, target, mask, dt)
        q_command = q + velocity * dt
        self._last_command = q_command
        self._publish_command(model, q_command, velocity, dt)
        values.update(extra)
        values['mode'] = self._settings['mode']
        if level == 'OK' and measures.sigma_min < self._settings['singularity_warning']:
            level, message = 'WARN', (f'near a singularity: sigma_min '
                                      f'{measures.sigma_min:.3g} < '
                                      f'{self._settings["singularity_warning"]}')
        self._status = CycleStatus(level, message, values,
                                   (T_base_tip, target.T_base_target, np.array(mask)))

    def _command_base(self, q_measured: np.ndarray) -> np.ndarray:
        """
        Return the joints the next command starts from: the last command, if tracked.

        Integrating from the last command keeps consecutive commands within the velocity
        limits however the joint states lag. When the arm is more than
        ``max_tracking_error`` (rad or m) from the last command, start from the measured
        joints instead.
        """
        last = self._last_command
        if last is not None and float(np.abs(last - q_measured).max()) <= (
                self._settings['max_tracking_error']):
            return last
        return q_measured

    def _resolve_target(self, target: Target, q: np.ndarray) -> Target:
        """
        Express the target in the base frame once, with FK at the current joints.

        A planar goal becomes a target per ``planar_goal_mode``; a point keeps the current
        tool orientation (used only when ``point_orientation`` is ``hold``).
        """
        if target.T_base_target is None:
            kinematics = self._model.kinematics
            T_base_target = frame_pose(kinematics, q, target.frame_id) @ target.T_frame_target
            if target.kind == 'planar':
                T_base_target = planar_goal_target(T_base_target, kinematics.tip_pose(q),
                                                   self._settings['planar_goal_mode'])
            elif target.kind == 'point':
                T_base_target = point_target(T_base_target, kinematics.tip_pose(q),
                                             self._settings['point_orientation'])
            target.T_base_target = T_base_target
        return target

    def _damping(self) -> DampingSchedule:
        """Return the damping schedule of the current parameters."""
        return DampingSchedule(self._settings['singular_value_threshold'],
                               self._settings['max_damping'])

    def _servo_cycle(self, model: ArmModel, q: np.ndarray, target: Target, mask, dt: float):
        """Return (level, message, joint velocity, values) of one servo step."""
        settings = self._settings
        options = ServoOptions(gain=settings['gain'],
                               max_linear_speed=settings['max_linear_speed'],
                               max_angular_speed=settings['max_angular_speed'],
                               velocity_scale=settings['velocity_scale'],
                               orientation_weight=settings['orientation_weight'],
                               mask=mask, damping=self._damping())
        step = model.servo.step(q, target.T_base_target, dt, options)
        values = {'damping': step.damping, 'velocity_scaling': step.velocity_scaling}
        reached = (step.position_error <= settings['position_tolerance']
                   and step.orientation_error <= settings['orientation_tolerance'])
        stopped = float(np.abs(step.velocity).max(initial=0.0)) < STALL_SPEED
        self._stopped_cycles = self._stopped_cycles + 1 if stopped and not reached else 0
        stalled = self._stopped_cycles * dt > 0.5
        reach_reason = model.solver.out_of_reach_reason(target.T_base_target,
                                                        step.position_error)
        if reach_reason:
            self._warn('target:reach', reach_reason)
            return 'ERROR', reach_reason, step.velocity, values
        if stalled and step.at_position_limit:
            return 'WARN', 'stopped at a joint limit short of the target', step.velocity, values
        if stalled:
            message = (f'target unreachable: stopped {step.position_error:.3g} m and '
                       f'{step.orientation_error:.3g} rad away')
            self._warn('target:unreachable', message)
            return 'ERROR', message, step.velocity, values
        if step.at_position_limit:
            return 'WARN', 'moving along a joint limit', step.velocity, values
        return 'OK', 'tracking the target', step.velocity, values

    def _solve_cycle(self, model: ArmModel, q: np.ndarray, target: Target, mask, dt: float):
        """Return (level, message, joint velocity, values) of one solve-mode cycle."""
        settings = self._settings
        values: Dict[str, object] = {}
        if target.sequence != self._solved_sequence:
            options = replace(model.solver.options, mask=mask,
                              orientation_weight=settings['orientation_weight'],
                              time_budget=settings['solve_time_budget'],
                              solution_choice='closest', damping=self._damping())
            result = model.solver.solve(target.T_base_target, q, options)
            self._solved_sequence = target.sequence
            self._goal_q = result.q
            self._goal_reason = result.reason
            self._solve_values = {'iterations': result.iterations,
                                  'restarts': result.restarts,
                                  'solve_time_ms': result.time * 1e3,
                                  'damping': result.damping}
            if not result.success:
                self._warn('target:ik', f'IK failed: {result.reason}; moving to the closest '
                           'pose found')
        values.update(self._solve_values)
        speed_limits = settings['velocity_scale'] * model.chain.velocity_limits
        velocity = synchronized_step(q, self._goal_q, speed_limits, dt)
        if self._goal_reason:
            return 'ERROR', f'IK failed: {self._goal_reason}', velocity, values
        return 'OK', 'moving to the IK solution', velocity, values

    def _publish_command(self, model: ArmModel, q_command: np.ndarray,
                         velocity: np.ndarray, dt: float) -> None:
        """Publish the command in the configured message type (chain joint order)."""
        names = model.chain.joint_names
        command_type = self._settings['command_type']
        if command_type == 'joint_state':
            message = joint_state_command(names, q_command, velocity,
                                          self.get_clock().now().to_msg())
        elif command_type == 'joint_trajectory':
            message = joint_trajectory_command(names, q_command, velocity, dt)
        else:
            message = position_array_command(q_command)
        self._command_publisher.publish(message)

    def _publish_markers(self) -> None:
        """Publish the target and the manipulability ellipsoid at the measured tip."""
        model = self._model
        q = model.joints.positions() if model is not None else None
        if q is None:
            return
        T_base_tip, J = model.kinematics.tip_pose_and_jacobian(q)
        semi_axes, R_base_ellipsoid = velocity_ellipsoid(J)
        sigma_min = manipulability(task_jacobian(J, model.task_rows)).sigma_min
        target = self._target
        T_base_target = target.T_base_target if target is not None else None
        self._marker_publisher.publish(ik_markers(
            model.chain.base_link, self.get_clock().now().to_msg(), T_base_target,
            target is not None and target.position_only, T_base_tip, semi_axes,
            R_base_ellipsoid, self._settings['ellipsoid_scale'],
            sigma_min < self._settings['singularity_warning']))

    def _publish_diagnostics(self) -> None:
        """Publish the last cycle's status as ``<node name>: ik``, with the tracking errors."""
        status = self._status
        values = dict(status.values)
        message = status.message
        if status.tracking is not None:
            T_base_tip, T_base_target, mask = status.tracking
            e_p, e_o = pose_error(T_base_target, T_base_tip)
            position_error = float(np.linalg.norm(e_p * mask[:3]))
            orientation_error = float(np.linalg.norm(e_o * mask[3:]))
            values['position_error'] = position_error
            values['orientation_error'] = orientation_error
            if (status.level == 'OK' and position_error <= self._settings['position_tolerance']
                    and orientation_error <= self._settings['orientation_tolerance']):
                message = 'target reached'
        hardware_id = self._model.chain.base_link + '->' + self._model.chain.tip_link \
            if self._model else ''
        self._diagnostics_publisher.publish(diagnostics(
            self.get_clock().now().to_msg(), f'{self.get_name()}: ik', hardware_id,
            status.level, message, {key: value if isinstance(value, str) else
                                    format_value(value) for key, value in values.items()}))


def main(args: Optional[List[str]] = None) -> int:
    """Run the node; return 1 on a start-up error (bad URDF, links or parameters)."""
    return run_node(IkNode, 'ros_ik', (UrdfError, ConfigurationError), args)


if __name__ == '__main__':
    sys.exit(main())
