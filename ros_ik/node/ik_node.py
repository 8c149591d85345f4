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

The wiring only: parameters (:mod:`ros_ik.node.parameter_declarations`, from the table in
:mod:`ros_ik.control.parameters`, validated at start-up and on every set), the robot model,
the timers and the control cycle. joint_states is polled by the cycle
(:mod:`ros_ik.node.polled_inputs`), which takes what arrived, serialized, and keeps the
newest message per joint set (:mod:`ros_ik.node.serialized_inputs`); targets and jogs come
through :mod:`ros_ik.node.input_topics`, TF through :mod:`ros_ik.node.tf_frames`, the
collision model through :mod:`ros_ik.node.collision_wiring`, the robot model through
:mod:`ros_ik.node.robot_model`, Cartesian paths also through the ``~/follow_path`` action
(:mod:`ros_ik.node.path_action`); IK queries through the ``~/solve_ik`` service, served in
its own thread (:mod:`ros_ik.node.ik_service`). One timer at ``update_rate``
runs the controller's cycle and publishes the command it returns, serialized by
:mod:`ros_ik.node.serialized_commands`; two more publish ``/diagnostics`` and ``~/markers``
(:mod:`ros_ik.node.status_topics`). See docs/node.md for topics, parameters and QoS.
"""

import sys
import threading
from typing import Any, Dict, List, Optional

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.collision.allowed_pairs import SrdfError
from ros_ik.collision.kernel_warm_up import warm_up_collision_kernels
from ros_ik.collision.scene import SceneError
from ros_ik.collision.shapes import GeometryError
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.command_topics import private_command_topic
from ros_ik.control.controller import IkController
from ros_ik.control.cycle_types import Notice
from ros_ik.control.motion_limit_sources import JointLimitsError
from ros_ik.control.parameters import PARAMETER_TABLE, ParameterError
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels
from ros_ik.kinematics.transform_buffer import FrameError
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.node.collision_wiring import CollisionWiring, ConfigurationError, LATCHED_QOS
from ros_ik.node.ik_service import IkService
from ros_ik.node.input_topics import InputTopics
from ros_ik.node.messages import COMMAND_MESSAGES
from ros_ik.node.node_clock import NO_TIME, NodeClock
from ros_ik.node.parameter_declarations import (as_declared_types,
                                                declare_joint_limit_overrides, declare_settings)
from ros_ik.node.path_action import PathAction
from ros_ik.node.polled_inputs import PolledInputs
from ros_ik.node.robot_model import build_controller, robot_description_of
from ros_ik.node.run import run_node, timer_callback
from ros_ik.node.serialized_commands import command_serializer, CommandSerializer
from ros_ik.node.serialized_inputs import NewestJointStates
from ros_ik.node.status_topics import StatusTopics
from ros_ik.node.tf_frames import frame_source
from ros_ik.node.throttled_log import KeyedThrottle
from ros_ik.paths.kernel_warm_up import warm_up_path_kernels
from sensor_msgs.msg import JointState
from std_msgs.msg import String

WARNING_PERIOD = 2.0  # s between two log lines of the same kind of problem
INFO_PERIOD = 10.0
LOG_FLUSH_PERIOD = 0.5  # s between checks for held log lines whose kind is due again
# A kernel warm-up longer than this was a compilation (a cache load takes ~0.3 s): say so.
COMPILE_NOTICE_SECONDS = 2.0
# Commands are reliable (forward_command_controller and JTC subscribe reliable).
COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
# joint_states (sensor data: best effort, volatile), read once per cycle: the history holds
# what arrives between two cycles, so a slower joint set published beside a 1 kHz driver is
# still there at update_rate 10 Hz (100 messages).
JOINT_STATE_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT)
STARTUP_ERRORS = (UrdfError, ConfigurationError, ParameterError, JointLimitsError,
                  GeometryError, SrdfError, SceneError)


class IkNode(Node):
    """Subscribes targets and joint states, publishes joint commands and diagnostics."""

    def __init__(self, **kwargs) -> None:
        """Validate and declare parameters, load the arm (or wait for it), create topics."""
        # What destroy_node() destroys, None until made: a start-up error leaves a node
        # built in part, which rclpy's shutdown destroys.
        self._ik_service: Optional[IkService] = None
        self._polled: Optional[PolledInputs] = None
        self._path_action: Optional[PathAction] = None
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
        compile_seconds = warm_up_kernels() + warm_up_path_kernels() + (
            warm_up_collision_kernels()
            if self._settings.collision_checking == 'enabled' else 0.0)
        if compile_seconds > COMPILE_NOTICE_SECONDS:
            self.get_logger().info(f'compiled the IK kernels in {compile_seconds:.1f} s (numba, '
                                   'first start only; later starts load its cache)')
        self._controller: Optional[IkController] = None
        self._serialize_command: Optional[CommandSerializer] = None  # with the controller
        # Joint states, polled by the control cycle (they wait in their DDS history until
        # the controller exists) and kept newest per joint set.
        self._polled = PolledInputs(self)
        self._joint_states = NewestJointStates(JointState)
        self._joint_state_topic = self._polled.subscribe(JointState, 'joint_states',
                                                         JOINT_STATE_QOS)
        self._early_cycle_allowed = True  # until the timer's next cycle after an early one
        self._warn = KeyedThrottle(self._log_warning, WARNING_PERIOD)
        self._info = KeyedThrottle(self._log_info, INFO_PERIOD)
        self._frames = frame_source(self, self._polled, self._settings.base_link,
                                    self._ros_seconds, lambda: self._settings.max_transform_age,
                                    self._warn)
        self._collision = CollisionWiring(self, self._frames, self._warn, self._now)
        command_type = self._settings.command_type
        self._command_publisher = self.create_publisher(
            COMMAND_MESSAGES[command_type], private_command_topic(command_type), COMMAND_QOS)
        self._status = StatusTopics(self)
        self._inputs = InputTopics(self, self._now, self._on_input_arrival)
        self._path_action = PathAction(self, lambda: self._controller, self._now, self._log)
        # Held while the cycle takes TF messages and while ~/solve_ik (its own thread) looks
        # a frame up.
        self._frames_lock = threading.Lock()
        self._load_robot_model()  # raises on an invalid URDF: no thread is started before
        self._ik_service = IkService(self, lambda: self._controller, lambda: self._settings,
                                     lambda: self._collision.model, self._frames_lock)
        self._periodic_timers = {name: self._create_timer(name) for name in TIMERS}
        self.create_timer(LOG_FLUSH_PERIOD, self._flush_logs)
        self.add_pre_set_parameters_callback(as_declared_types)
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

    def destroy_node(self) -> None:
        """Destroy the inner nodes (polled inputs, the service) and the action, then this node."""
        for part in (self._ik_service, self._polled, self._path_action):
            if part is not None:
                part.destroy()
        super().destroy_node()

    # ----------------------------------------------------------------- set-up
    def _load_robot_model(self) -> None:
        """Build the arm from the parameter or the URDF (or xacro) file; else wait for it."""
        urdf_text = robot_description_of(self._settings)
        if urdf_text:
            self._start_controller(urdf_text)
            return
        self.get_logger().info('no robot_description or robot_description_file parameter; '
                               'waiting for the robot_description topic', once=True)
        self.create_subscription(String, 'robot_description', self._on_robot_description,
                                 LATCHED_QOS)

    def _start_controller(self, urdf_text: str) -> None:
        """Parse the URDF (raises UrdfError), start the controller and its command layout."""
        self._controller = build_controller(self, urdf_text, self._settings,
                                            self._joint_limit_overrides, self._collision,
                                            self._use_collision_guard, self._frames)
        self._inputs.controller = self._controller
        self._serialize_command = command_serializer(
            self._settings.command_type, self._controller.arm.chain.joint_names, self._epoch_ns)

    def _use_collision_guard(self, guard: CollisionGuard) -> None:
        """Check against a new collision model from the next cycle on."""
        self._controller.set_collision_guard(guard)

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

    def _flush_logs(self) -> None:
        """Log the newest held line of each kind of problem that is due again."""
        for throttle in (self._warn, self._info):
            if throttle.holding:
                throttle.flush()

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
        except STARTUP_ERRORS as error:
            self.get_logger().error(f'robot_description rejected: {error}')

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
            with self._frames_lock:
                self._frames.take()
        self._collision.place_waiting_scene()
        if self._collision.holds_inputs():
            return  # the start-up scene is not placed: no target or jog moves the arm yet
        self._log(self._inputs.hand_over())

    # ------------------------------------------------------------ parameters
    def _validate_parameters(self, parameters: List[Parameter]) -> SetParametersResult:
        """Reject values the table does not allow, or a mode switch while moving: say why."""
        try:
            updated = self._settings.updated(_table_values(parameters))
            self._collision.validate(updated)
        except (ParameterError, SceneError, FrameError) as error:
            return SetParametersResult(successful=False, reason=str(error))
        refusal = (self._controller.mode_change_refusal(updated.mode)
                   if self._controller is not None else '')
        return SetParametersResult(successful=not refusal, reason=refusal)

    def _apply_parameters(self, parameters: List[Parameter]) -> None:
        """Adopt new values; a new rate or period restarts the timer it drives."""
        values = _table_values(parameters)
        previous, self._settings = self._settings, self._settings.updated(values)
        if self._controller is not None and self._settings.mode != previous.mode:
            self._controller.switch_mode(self._settings)
            self.get_logger().info(f'mode {previous.mode} -> {self._settings.mode}')
        elif self._controller is not None:
            self._controller.settings = self._settings
        self._collision.apply(list(values), self._settings)
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
        at most a period later. A JointTrajectory command that would leave later than its
        horizon allows (the process stalled inside the cycle) is withdrawn, not sent.
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
        notices = list(result.notices)
        if result.command is not None:
            message = self._serialize_command(result.command)
            late = self._controller.withdraw_late_command(
                self._since_start(self._node_clock.now_ns()))
            if late is None:
                self._command_publisher.publish(message)
            else:
                notices.append(late)
        self._path_action.update(self._controller)
        self._log(notices)
        self._status.publish_manipulability(result.manipulability)

    def _publish_markers(self) -> None:
        """Publish the target, ellipsoid and scene at the measured joints (if subscribed)."""
        self._status.publish_markers(self._controller, self._collision.model,
                                     self._settings.ellipsoid_scale)

    def _publish_diagnostics(self) -> None:
        """Publish the controller's status as ``<node name>: ik``."""
        self._status.publish_diagnostics(self._controller)


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
    return run_node(IkNode, 'ros_ik', STARTUP_ERRORS, args)


if __name__ == '__main__':
    sys.exit(main())
