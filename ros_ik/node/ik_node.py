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
The ros_ik node: the ROS API of :class:`ros_ik.control.controller.IkController`.

Joint states, targets and jogs are not handled message by message. joint_states is polled
by the control cycle (:mod:`ros_ik.node.polled_inputs`), which takes what arrived,
serialized, keeps the newest message per joint set and reads names and positions straight
from its bytes (:mod:`ros_ik.node.serialized_inputs`), so a 1 kHz driver costs no Python
per message. Targets and jogs are kept serialized as they arrive, the newest of all their
topics; the cycle deserializes that one only, so a flood of targets costs a store each and
an idle topic nothing. One timer at ``update_rate`` does that, runs the controller's cycle
and publishes the command it returns, serialized by :mod:`ros_ik.node.serialized_commands`;
two more timers publish ``/diagnostics`` and ``~/markers``. Parameters come from the table
in :mod:`ros_ik.control.parameters`, validated at start-up and on every set. See the README for
topics, parameters and their QoS.
"""

from dataclasses import dataclass
from functools import partial
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Type

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, PoseStamped, Twist, TwistStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from ros_ik.collision.allowed_pairs import SrdfError
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.collision.collision_setup import build_collision_model, with_scene
from ros_ik.collision.kernel_warm_up import warm_up_collision_kernels
from ros_ik.collision.scene import load_scene_file, parse_scene, SceneError, SceneObject
from ros_ik.collision.shapes import GeometryError
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.command_topics import private_command_topic
from ros_ik.control.controller import IkController
from ros_ik.control.cycle_types import Command, Notice
from ros_ik.control.motion_limit_sources import (JointLimitsError, LimitDefaults,
                                                 resolve_motion_limits)
from ros_ik.control.parameters import PARAMETER_TABLE, ParameterError
from ros_ik.control.scene_placement import needs_placement, placed_scene
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels
from ros_ik.kinematics.transform_buffer import FrameError
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.kinematics.urdf_loader import read_robot_description
from ros_ik.node.mesh_packages import package_directories
from ros_ik.node.messages import (COMMAND_MESSAGES, diagnostics, format_value,
                                  ik_markers, scene_markers, vector)
from ros_ik.node.node_clock import NO_TIME, NodeClock
from ros_ik.node.parameter_declarations import (as_declared_types,
                                                declare_joint_limit_overrides, declare_settings)
from ros_ik.node.polled_inputs import PolledInputs
from ros_ik.node.run import run_node, timer_callback
from ros_ik.node.serialized_commands import command_serializer, CommandSerializer
from ros_ik.node.serialized_inputs import (NewestInput, NewestJointStates,
                                           point_target_fields, pose_target_fields,
                                           TargetFields)
from ros_ik.node.tf_frames import frame_source
from ros_ik.node.throttled_log import KeyedThrottle
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64, String
from visualization_msgs.msg import MarkerArray

try:  # MoveIt Servo's joint jog message, where control_msgs is installed
    from control_msgs.msg import JointJog
except ImportError:
    JointJog = None

WARNING_PERIOD = 2.0  # s between two log lines of the same kind of problem
INFO_PERIOD = 10.0
# A kernel warm-up longer than this was a compilation (a cache load takes ~0.3 s): say so.
COMPILE_NOTICE_SECONDS = 2.0
# Commands keep the latest target and joints: a flood of inputs never builds a backlog.
TARGET_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
# Jog streams: only the newest command matters and a lost one is replaced 10 ms later;
# best effort accepts reliable and best-effort publishers alike.
JOG_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
# joint_states (sensor data: best effort, volatile), read once per cycle: the history holds
# what arrives between two cycles, so a slower joint set published beside a 1 kHz driver is
# still there at update_rate 10 Hz (100 messages).
JOINT_STATE_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT)
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)


# What the cycle runs on the newest target or jog: (message, receive time [s]) -> notices.
InputHandler = Callable[[Any, float], List[Notice]]


class ConfigurationError(ValueError):
    """A start-up input the node cannot run with (unreadable URDF file)."""


@dataclass(frozen=True)
class UnplacedScene:
    """
    A collision scene with objects in TF frames, waiting for their transforms.

    ``deadline`` (s since the node started): then it is rejected and the scene before
    stays; None (the start-up scene): it waits, and no target or jog is handed over until
    it is placed (the arm must not move without its scene).
    """

    objects: Sequence[SceneObject]
    source: str
    deadline: Optional[float]


class IkNode(Node):
    """Subscribes targets and joint states, publishes joint commands and diagnostics."""

    def __init__(self, **kwargs) -> None:
        """Validate and declare parameters, load the arm (or wait for it), create topics."""
        super().__init__('ros_ik', **kwargs)
        self._node_clock = NodeClock(self.get_clock())
        self._epoch_ns = self._node_clock.now_ns()
        # rclpy keeps the start-up values (-p, parameter files) of this node here; the
        # table validates them (integers accepted for doubles) before anything is declared.
        overrides = {name: parameter.value
                     for name, parameter in self._parameter_overrides.items()}
        self._settings, unknown = declare_settings(self, overrides)
        if unknown:
            self.get_logger().warning(f'ignoring unknown parameters: {", ".join(unknown)}')
        self._joint_limit_overrides = declare_joint_limit_overrides(self, overrides)
        compile_seconds = warm_up_kernels() + (
            warm_up_collision_kernels()
            if self._settings.collision_checking == 'enabled' else 0.0)
        if compile_seconds > COMPILE_NOTICE_SECONDS:
            self.get_logger().info(f'compiled the IK kernels in {compile_seconds:.1f} s (numba, '
                                   'first start only; later starts load its cache)')
        self._controller: Optional[IkController] = None
        self._serialize_command: Optional[CommandSerializer] = None  # with the controller
        self._collision_model: Optional[CollisionModel] = None
        self._next_model: Optional[CollisionModel] = None  # validated, applied after the set
        self._urdf_text = ''
        self._unplaced_scene: Optional[UnplacedScene] = None
        # Joint states, polled by the control cycle (they wait in their DDS history until
        # the controller exists) and kept newest per joint set; the newest target or jog.
        self._polled = PolledInputs(self)
        self._joint_states = NewestJointStates(JointState)
        self._joint_state_topic = self._polled.subscribe(JointState, 'joint_states',
                                                         JOINT_STATE_QOS)
        self._newest_input = NewestInput(self._now, self._on_input_arrival)
        self._early_cycle_allowed = True  # until the timer's next cycle after an early one
        self._warn = KeyedThrottle(self._log_warning, WARNING_PERIOD)
        self._info = KeyedThrottle(self._log_info, INFO_PERIOD)
        self._frames = frame_source(self, self._polled, self._settings.base_link,
                                    self._ros_seconds, lambda: self._settings.max_transform_age,
                                    self._warn)
        command_type = self._settings.command_type
        self._command_publisher = self.create_publisher(
            COMMAND_MESSAGES[command_type], private_command_topic(command_type), COMMAND_QOS)
        self._manipulability_publisher = self.create_publisher(Float64, '~/manipulability',
                                                               COMMAND_QOS)
        self._diagnostics_publisher = self.create_publisher(DiagnosticArray, '/diagnostics',
                                                            COMMAND_QOS)
        self._marker_publisher = self.create_publisher(MarkerArray, '~/markers', COMMAND_QOS)
        self._load_robot_model()
        self._subscribe_input(PoseStamped, '~/target_pose', self._take_target_pose, TARGET_QOS,
                              pose_target_fields)
        self._subscribe_input(PointStamped, '~/target_point', self._take_target_point,
                              TARGET_QOS, point_target_fields)
        self._subscribe_input(PoseStamped, '~/planar_goal', self._take_planar_goal, TARGET_QOS,
                              pose_target_fields)
        self._subscribe_input(TwistStamped, '~/delta_twist_cmds', self._take_twist, JOG_QOS)
        self._subscribe_input(Twist, '~/delta_twist_cmds_unstamped', self._take_unstamped_twist,
                              JOG_QOS)
        self._subscribe_input(JointState, '~/delta_joint_cmds', self._take_joint_jog, JOG_QOS)
        if JointJog is not None:
            self._subscribe_input(JointJog, '~/delta_joint_jog_cmds', self._take_joint_jog_msg,
                                  JOG_QOS)
        self._periodic_timers = {name: self._create_timer(name) for name in TIMERS}
        self.add_pre_set_parameters_callback(as_declared_types)
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

    def destroy_node(self) -> None:
        """Destroy the inner node of the polled inputs, then this node."""
        self._polled.destroy()
        super().destroy_node()

    # ----------------------------------------------------------------- set-up
    def _load_robot_model(self) -> None:
        """Build the arm from the parameter or the URDF (or xacro) file; else wait for it."""
        urdf_text = self._settings.robot_description
        path = self._settings.robot_description_file
        if not urdf_text and path:
            try:
                urdf_text = read_robot_description(path, self._settings.xacro_args)
            except OSError as error:
                raise ConfigurationError(
                    f'cannot read robot_description_file "{path}": {error.strerror}') from error
        if urdf_text:
            self._start_controller(urdf_text)
            return
        self.get_logger().info('no robot_description or robot_description_file parameter; '
                               'waiting for the robot_description topic', once=True)
        self.create_subscription(String, 'robot_description', self._on_robot_description,
                                 LATCHED_QOS)

    def _start_controller(self, urdf_text: str) -> None:
        """Parse the URDF (raises UrdfError), start the controller, announce the chain."""
        settings = self._settings
        arm = ControlledArm.from_urdf(urdf_text, settings.base_link, settings.tip_link,
                                      settings.task_axes)
        resolved = resolve_motion_limits(arm.chain, settings.joint_limits_file,
                                         LimitDefaults.of(settings),
                                         self._joint_limit_overrides)
        self._controller = IkController(arm, settings, resolved.limits,
                                        self._collision_guard(urdf_text, arm), self._frames)
        chain = arm.chain
        self._serialize_command = command_serializer(settings.command_type, chain.joint_names,
                                                     self._epoch_ns)
        self.get_logger().info(
            f'chain {chain.base_link} -> {chain.tip_link}: {", ".join(chain.joint_names)}; '
            f'mode {settings.mode}, commands as {settings.command_type}')
        if resolved.warning():
            self.get_logger().warning(resolved.warning())
        reachability_note = arm.reachability_note()
        if reachability_note:
            self.get_logger().warning(reachability_note)

    def _collision_guard(self, urdf_text: str, arm: ControlledArm) -> Optional[CollisionGuard]:
        """
        Build the collision model (URDF geometry, SRDF, scene) and log what it checks.

        Raises ``GeometryError``, ``SrdfError`` or ``SceneError`` naming the problem.
        """
        settings = self._settings
        if settings.collision_checking == 'disabled':
            self.get_logger().warning('collision_checking is disabled: commands respect the '
                                      'joint limits only')
            return None
        srdf_text = settings.robot_description_semantic
        if not srdf_text and settings.robot_description_semantic_file:
            path = settings.robot_description_semantic_file
            try:
                with open(path, encoding='utf-8') as srdf_file:
                    srdf_text = srdf_file.read()
            except OSError as error:
                raise ConfigurationError(f'cannot read robot_description_semantic_file '
                                         f'"{path}": {error.strerror}') from error
        self._urdf_text = urdf_text
        scene = load_scene_file(settings.collision_scene_file)
        if needs_placement(scene, arm.chain.base_link):
            self._unplaced_scene = UnplacedScene(
                scene, f'collision_scene_file "{settings.collision_scene_file}"', None)
            scene = []
        model, note = build_collision_model(
            urdf_text, arm.kinematics, srdf_text, scene,
            package_directories(settings.mesh_search_path))
        self.get_logger().info(f'collision checking: {len(model.pairs)} element pairs; {note}')
        self.get_logger().info(f'collision pairs never checked: {model.left_out_text()}')
        if not srdf_text:
            self.create_subscription(String, 'robot_description_semantic', self._on_srdf,
                                     LATCHED_QOS)
        self.create_subscription(String, '~/collision_scene', self._on_scene, LATCHED_QOS)
        self._collision_model = model
        return self._guard_of(model)

    def _guard_of(self, model: CollisionModel) -> CollisionGuard:
        """Return the guard of ``model`` with the current padding and resolution."""
        settings = self._settings
        return CollisionGuard(CollisionChecker(model, settings.collision_padding,
                                               settings.collision_check_resolution))

    def _use_collision_model(self, model: CollisionModel, what: str) -> None:
        """Check against ``model`` from the next cycle on; log ``what`` changed."""
        self._collision_model = model
        self._controller.set_collision_guard(self._guard_of(model))
        self.get_logger().info(f'{what}: {len(model.pairs)} element pairs checked; never '
                               f'checked: {model.left_out_text()}')

    def _on_srdf(self, message: String) -> None:
        """Take the disabled pairs of a robot_description_semantic message (MoveIt's topic)."""
        model = self._collision_model
        try:
            new_model, note = build_collision_model(
                self._urdf_text, model.kinematics, message.data, model.scene,
                package_directories(self._settings.mesh_search_path))
        except (SrdfError, GeometryError, SceneError) as error:
            self.get_logger().error(f'robot_description_semantic rejected: {error}')
            return
        self._use_collision_model(new_model, f'robot_description_semantic received ({note})')

    def _on_scene(self, message: String) -> None:
        """
        Replace the scene with the objects of a ~/collision_scene message (scene YAML).

        Objects in TF frames are placed within transform_timeout (the scene before stays
        meanwhile).
        """
        try:
            scene = parse_scene(message.data, '~/collision_scene')
        except SceneError as error:
            self.get_logger().error(f'collision scene rejected: {error}')
            return
        self._unplaced_scene = UnplacedScene(scene, '~/collision_scene',
                                             self._now() + self._settings.transform_timeout)
        self._place_scene(self._now())

    def _place_scene(self, now: float) -> None:
        """Place the unplaced scene through TF and check against it, or wait, or reject it."""
        unplaced = self._unplaced_scene
        try:
            scene = placed_scene(unplaced.objects, self._frames,
                                 self._controller.arm.chain.base_link)
            model = with_scene(self._collision_model, scene)
        except FrameError as error:
            if unplaced.deadline is None:
                self._warn('scene:tf', f'{unplaced.source} waits for TF: {error}; no target or '
                                       'jog is taken until its objects are placed')
            elif now > unplaced.deadline:
                self._unplaced_scene = None
                self.get_logger().error(f'{unplaced.source} rejected: no transform within '
                                        f'transform_timeout: {error}; the scene before stays')
            return
        except SceneError as error:
            self._unplaced_scene = None
            self.get_logger().error(f'collision scene rejected: {error}')
            return
        self._unplaced_scene = None
        self._use_collision_model(model, f'new scene from {unplaced.source} ({len(scene)} '
                                         'objects)')

    def _create_timer(self, name: str):
        """Create the timer ``name`` of :data:`TIMERS` with the period its parameter sets."""
        parameter, period_of, callback_name = TIMERS[name]
        return self.create_timer(period_of(getattr(self._settings, parameter)),
                                 timer_callback(getattr(self, callback_name)))

    # -------------------------------------------------------------- callbacks
    # rclpy fixes a logger call site's severity at its first call: one site per severity.
    def _log_warning(self, message: str) -> None:
        """Log ``message`` as a warning."""
        self.get_logger().warning(message)

    def _log_info(self, message: str) -> None:
        """Log ``message`` as information."""
        self.get_logger().info(message)

    def _log(self, notices: List[Notice]) -> None:
        """Log each notice, at most once per period for each kind."""
        for notice in notices:
            (self._warn if notice.level == 'warn' else self._info)(notice.key, notice.message)

    def _on_robot_description(self, message: String) -> None:
        """Build the model from the first valid robot_description message."""
        if self._controller is not None:
            return
        try:
            self._start_controller(message.data)
        except (UrdfError, JointLimitsError, ConfigurationError, GeometryError, SrdfError,
                SceneError) as error:
            self.get_logger().error(f'robot_description rejected: {error}')

    def _subscribe_input(self, message_type: Type, topic: str, handler: 'InputHandler',
                         qos: QoSProfile,
                         read: Optional[Callable[[bytes], object]] = None) -> None:
        """
        Subscribe ``topic`` (serialized): its messages become the newest input.

        Only the newest target or jog drives the arm (each preempts the one before), so a
        flood of them costs one read and validation per cycle; ``handler(read(bytes),
        receive_time)`` runs in the cycle (``read``: deserialization if not given).
        """
        if read is None:
            read = partial(deserialize_message, message_type=message_type)
        self.create_subscription(message_type, topic, self._newest_input.keeper(handler, read),
                                 qos, raw=True)

    def _take_target_pose(self, fields: TargetFields, receive_time: float) -> List[Notice]:
        """Hand over a full-pose target."""
        return self._hand_over_target(fields, 'pose', receive_time)

    def _take_planar_goal(self, fields: TargetFields, receive_time: float) -> List[Notice]:
        """Hand over a planar goal (RViz 2D Goal Pose), read per planar_goal_mode."""
        return self._hand_over_target(fields, 'planar', receive_time)

    def _take_target_point(self, fields: TargetFields, receive_time: float) -> List[Notice]:
        """Hand over a point target (orientation free or held, per point_orientation)."""
        return self._hand_over_target(fields, 'point', receive_time)

    def _hand_over_target(self, fields: TargetFields, kind: str,
                          receive_time: float) -> List[Notice]:
        """Hand over a target of ``kind``: frame, pose, its stamp (s) and receive time (s)."""
        frame_id, position, quaternion, stamp = fields
        return self._controller.set_target(frame_id, position, quaternion, kind, receive_time,
                                           stamp)

    def _take_twist(self, message: TwistStamped, receive_time: float) -> List[Notice]:
        """Hand over a jog twist in its header's frame (empty: twist_frame)."""
        return self._controller.set_twist(message.header.frame_id,
                                          vector(message.twist.linear),
                                          vector(message.twist.angular), receive_time)

    def _take_unstamped_twist(self, message: Twist, receive_time: float) -> List[Notice]:
        """Hand over a jog twist in twist_frame (teleop_twist_keyboard, teleop_twist_joy)."""
        return self._controller.set_twist('', vector(message.linear), vector(message.angular),
                                          receive_time)

    def _take_joint_jog(self, message: JointState, receive_time: float) -> List[Notice]:
        """Hand over joint velocities by name (JointState: name and velocity)."""
        return self._controller.set_joint_jog(message.name, message.velocity, receive_time)

    def _take_joint_jog_msg(self, message, receive_time: float) -> List[Notice]:
        """Hand over a control_msgs/JointJog's velocities by name."""
        return self._controller.set_joint_jog(message.joint_names, message.velocities,
                                              receive_time)

    def _take_inputs(self, now: float) -> None:
        """
        Hand the controller the newest joint states (per joint set) and the newest input.

        The newest input: of every target and jog since the last cycle, the last received.
        """
        controller = self._controller
        for data, receive_time in self._joint_state_topic.take(now):
            self._joint_states.keep(data, receive_time)
        for names, positions, receive_time in self._joint_states.take():
            self._log(controller.update_joint_state(names, positions, receive_time))
        if self._frames is not None:
            self._frames.take()
        if self._unplaced_scene is not None:
            self._place_scene(now)
        if self._unplaced_scene is not None and self._unplaced_scene.deadline is None:
            return  # the start-up scene is not placed: no target or jog moves the arm yet
        newest = self._newest_input.take()
        if newest is not None:
            handler, read, data, receive_time = newest
            self._log(handler(read(data), receive_time))

    # ------------------------------------------------------------ parameters
    def _validate_parameters(self, parameters: List[Parameter]) -> SetParametersResult:
        """Reject values the table does not allow, with the reason."""
        try:
            updated = self._settings.updated(_table_values(parameters))
            if (self._collision_model is not None
                    and updated.collision_scene_file != self._settings.collision_scene_file):
                self._next_model = with_scene(self._collision_model, placed_scene(
                    load_scene_file(updated.collision_scene_file), self._frames,
                    self._controller.arm.chain.base_link))
        except (ParameterError, SceneError, FrameError) as error:
            return SetParametersResult(successful=False, reason=str(error))
        return SetParametersResult(successful=True)

    def _apply_parameters(self, parameters: List[Parameter]) -> None:
        """Adopt new values; a new rate or period restarts the timer it drives."""
        values = _table_values(parameters)
        self._settings = self._settings.updated(values)
        if self._controller is not None:
            self._controller.settings = self._settings
        if self._collision_model is not None and 'collision_scene_file' in values:
            self._use_collision_model(self._next_model, 'collision_scene_file '
                                      f'"{self._settings.collision_scene_file}" loaded')
        elif self._collision_model is not None and 'collision_padding' in values:
            self._use_collision_model(self._collision_model, 'collision_padding '
                                      f'{self._settings.collision_padding} m')
        for name, (parameter, _, _) in TIMERS.items():
            if parameter in values:
                self._periodic_timers[name].cancel()
                self.destroy_timer(self._periodic_timers[name])
                self._periodic_timers[name] = self._create_timer(name)

    # --------------------------------------------------------------- control
    def _now(self) -> float:
        """
        Return the node clock in seconds since the node started.

        Relative to the start so that a double keeps nanoseconds (seconds since 1970 in a
        double resolve only ~0.24 us, which shows as noise in an acceleration over 10 ms).
        """
        return self._since_start(self._node_clock.now_ns())

    def _ros_seconds(self) -> float:
        """Return the node clock in s on the ROS clock (what header stamps count)."""
        return self._node_clock.now_ns() * 1e-9

    def _since_start(self, now_ns: int) -> float:
        """Return ``now_ns`` (ns of the node clock) in seconds since the node started."""
        return (now_ns - self._epoch_ns) * 1e-9

    def _on_control_timer(self) -> None:
        """Run the control cycle the timer is due for."""
        self._early_cycle_allowed = True
        self._control_cycle()

    def _on_input_arrival(self) -> None:
        """
        Run the control cycle at once for a target or jog that finds the arm at rest.

        From rest, an input would otherwise wait up to a period for the timer (10 ms at
        100 Hz) before the first command moves. A stream at rest repeats one position, so a
        cycle now, with the timer restarted from it (its next cycle one period later),
        changes only the phase of what a controller executes; while the arm moves, inputs
        wait for the timer, which keeps one command per period. At most one early cycle
        between two of the timer's: a flood of inputs that leave the arm at rest costs at
        most twice the update rate.
        """
        controller = self._controller
        if controller is None or not self._early_cycle_allowed or not controller.is_at_rest():
            return
        self._early_cycle_allowed = False
        self._control_cycle(measure=False)
        self._periodic_timers['control'].reset()

    def _control_cycle(self, measure: bool = True) -> None:
        """
        Hand the controller the newest inputs, run one cycle, publish what it returns.

        The command first: the arm's controller waits for it; the log and the
        manipulability do not. ``measure`` False (a cycle on an input's arrival): the
        manipulability measures (a Jacobian and its SVD) wait for the timer's next cycle,
        at most a period later.
        """
        if self._controller is None:
            return  # inputs wait in their histories (the newest of each) for the model
        now_ns = self._node_clock.now_ns()
        if now_ns == NO_TIME:
            self._info('clock:waiting', 'waiting for a time on /clock (use_sim_time is true): '
                                        'no commands until then')
            return
        now = self._since_start(now_ns)
        self._take_inputs(now)
        result = self._controller.cycle(now, measure)
        if result.command is not None:
            self._publish_command(result.command)
        self._log(list(result.notices))
        if (result.manipulability is not None
                and self._manipulability_publisher.get_subscription_count()):
            self._manipulability_publisher.publish(Float64(data=result.manipulability))

    def _publish_command(self, command: Command) -> None:
        """Publish the command (stamped with the time it is for) in chain joint order."""
        self._command_publisher.publish(self._serialize_command(command))

    def _publish_markers(self) -> None:
        """Publish the target and the manipulability ellipsoid at the measured tip (if heard)."""
        if not self._marker_publisher.get_subscription_count():
            return  # nobody draws them (RViz subscribes when its MarkerArray display is on)
        state = self._controller.marker_state() if self._controller is not None else None
        if state is None:
            return
        base_link, stamp = self._controller.arm.chain.base_link, self.get_clock().now().to_msg()
        markers = ik_markers(base_link, stamp, state, self._settings.ellipsoid_scale)
        if self._collision_model is not None:
            markers.markers.extend(scene_markers(base_link, stamp, self._collision_model,
                                                 self._controller.joints.positions()))
        self._marker_publisher.publish(markers)

    def _publish_diagnostics(self) -> None:
        """Publish the controller's status as ``<node name>: ik``, with the errors."""
        controller = self._controller
        if controller is None:
            level, message, values, hardware_id = ('WARN', 'waiting for the robot model', {},
                                                   '')
        else:
            status = controller.report()
            level, message, values = status.level, status.message, status.values
            chain = controller.arm.chain
            hardware_id = f'{chain.base_link}->{chain.tip_link}'
        self._diagnostics_publisher.publish(diagnostics(
            self.get_clock().now().to_msg(), f'{self.get_name()}: ik', hardware_id, level,
            message, {key: value if isinstance(value, str) else format_value(value)
                      for key, value in values.items()}))


# Timer name -> (the parameter setting its period, period in s from that value, callback).
TIMERS = {
    'control': ('update_rate', lambda rate: 1.0 / rate, '_on_control_timer'),
    'diagnostics': ('diagnostics_period', float, '_publish_diagnostics'),
    'markers': ('marker_period', float, '_publish_markers'),
}


def _table_values(parameters: List[Parameter]) -> Dict[str, Any]:
    """Return name -> value of the ``parameters`` that belong to the table."""
    return {parameter.name: parameter.value for parameter in parameters
            if parameter.name in PARAMETER_TABLE}


def main(args: Optional[List[str]] = None) -> int:
    """Run the node; return 1 on a start-up error (bad URDF, links or parameters)."""
    return run_node(IkNode, 'ros_ik', (UrdfError, ConfigurationError, ParameterError,
                                       JointLimitsError, GeometryError, SrdfError,
                                       SceneError), args)


if __name__ == '__main__':
    sys.exit(main())
