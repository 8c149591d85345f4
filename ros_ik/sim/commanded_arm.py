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
The command side of a simulated arm: the IK node's commands in, faults, joint_states out.

Reads the same URDF as the IK node (parameter ``robot_description`` or
``robot_description_file``, chain ``base_link`` -> ``tip_link``) and the same limits
(``joint_limits_file``, ``default_max_*``), accepts the three command types the IK node can
send (``joint_commands``: JointState; ``joint_trajectory``: JointTrajectory, executed as
joint_trajectory_controller with its default parameters does
(:mod:`ros_ik.node.jtc_emulation`: validation, replacement at the next update, its splines
sampled at every update of the loop, the last point held; a rejected message is logged as
JTC logs it and counted on the latched ``~/rejected_trajectories``); ``commands``:
Float64MultiArray in chain order) and publishes ``joint_states`` at ``state_rate``,
describing the arm ``state_delay`` s ago (stamped with that state's time), while
``publish_states`` is true: the latency, rate and outages of a real driver. How the arm
follows the reference is a subclass's :meth:`CommandedArm._step`, run at ``rate``:
:mod:`ros_ik.sim.sim_arm` (kinematic) or
:mod:`ros_ik.sim.physics_arm` (MuJoCo).

The reference: the emulated controller's setpoint while a trajectory is active; else the
last JointState or Float64MultiArray command as a driver follows it
(:mod:`ros_ik.sim.command_reference`: one with velocities moved on with them for at most
0.1 s, positions only smoothed onto the stream's line), inside the position
limits (a joint started past one only moves back in).

Trajectories can be delivered late (each after a uniform random ``delivery_jitter`` s) and
lost (every ``lost_every``-th), as over a loaded network.

With ``strict`` it faults like a real controller: a command whose velocity or acceleration
from the previous commands, over their times (JointState: the header stamp;
JointTrajectory: the setpoint the emulated controller samples, its own velocity and
acceleration; Float64MultiArray carries no timing: the receive time, whose jitter makes an
acceleration meaningless, so only its velocity is checked, over 50-100 ms and allowing each
arrival ``UNTIMED_JITTER`` of delivery delay; not over the times the reference dates them
by: checked over those, a bridged stream "needed" 3.217 rad/s on a 3.142 rad/s joint in a
local CI run, likely a hard stop read as lateness), exceeds a
limit by more than ``strict_tolerance`` logs an ERROR, stops the arm where it is (the
reference is dropped), counts the fault on ``~/faults`` (latched UInt32) and ignores
commands for at least ``fault_hold`` s and until a command starts at the arm's position
again (as libfranka requires the first command of a motion to match the robot's state).
Topic names are relative: remap them to the controller topics the IK node publishes.
"""

from collections import deque
import heapq
from typing import Deque, List, Optional, Sequence, Tuple

import numpy as np
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.time import Time
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.node.chain_parameters import declare_and_load_chain, declare_and_load_motion_limits
from ros_ik.node.jtc_emulation import JointTrajectoryControllerEmulation
from ros_ik.node.messages import COMMAND_MESSAGES
from ros_ik.node.throttled_log import KeyedThrottle
from ros_ik.sim.command_reference import CommandReference, spanning
from ros_ik.trajectory.jtc_spline import Setpoint
from ros_ik.trajectory.stream_check import divided_differences
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, UInt32
from trajectory_msgs.msg import JointTrajectory

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
STATE_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
FAULT_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL)
# Strict mode, untimed commands: the velocity over at least this long [s].
UNTIMED_SPAN = 0.05
# Strict mode, untimed commands: the delivery delay an arrival may have over an earlier one
# [s]; the velocity is taken over the span of the arrivals plus this (a stream at its
# velocity limit read 1.2 % over it from arrivals 50 ms apart beside a CPU hog).
UNTIMED_JITTER = 0.01
# After a fault, a command this close to the arm's position (rad or m) restarts it.
RESTART_TOLERANCE = 1e-3


class CommandedArm(Node):
    """Commands in, joint_states out; a subclass moves the arm in :meth:`_step`."""

    DEFAULT_RATE = 100.0  # Hz of _step (the integration or control loop)
    DEFAULT_STATE_RATE = 100.0  # Hz of joint_states

    def __init__(self, node_name: str, **kwargs) -> None:
        """Declare parameters, load the chain and limits, start the loop timer."""
        super().__init__(node_name, **kwargs)
        self._epoch_ns = self.get_clock().now().nanoseconds
        self.chain = declare_and_load_chain(self)
        self.limits = declare_and_load_motion_limits(self, self.chain).limits
        self.declare_parameter('initial_positions', [0.0], ParameterDescriptor(
            description='initial joint positions in chain order (one value: all joints); '
                        'may lie past a limit (the arm then only moves back inward)',
            read_only=True))
        self.declare_parameter('rate', self.DEFAULT_RATE, ParameterDescriptor(
            description='loop rate [Hz]: integration and trajectory controller updates',
            read_only=True,
            floating_point_range=[FloatingPointRange(from_value=1.0, to_value=2000.0)]))
        self.declare_parameter('state_rate', self.DEFAULT_STATE_RATE, ParameterDescriptor(
            description='joint_states publish rate [Hz] (at most rate; a slow driver)',
            read_only=True,
            floating_point_range=[FloatingPointRange(from_value=0.1, to_value=2000.0)]))
        self.declare_parameter('state_delay', 0.0, ParameterDescriptor(
            description='joint_states report the arm this long ago [s] (driver latency)',
            floating_point_range=[FloatingPointRange(from_value=0.0, to_value=5.0)]))
        self.declare_parameter('publish_states', True, ParameterDescriptor(
            description='publish joint_states (false: a driver that stopped reporting)'))
        self.declare_parameter('strict', False, ParameterDescriptor(
            description='fault (ERROR, stop, count on ~/faults) on a command beyond the '
                        'velocity or acceleration limits'))
        self.declare_parameter('strict_tolerance', 0.01, ParameterDescriptor(
            description='strict mode: allowed excess over a limit (fraction)',
            floating_point_range=[FloatingPointRange(from_value=0.0, to_value=1.0)]))
        self.declare_parameter('fault_hold', 1.0, ParameterDescriptor(
            description='strict mode: seconds commands are ignored after a fault [s]',
            floating_point_range=[FloatingPointRange(from_value=0.0, to_value=60.0)]))
        self.declare_parameter('delivery_jitter', 0.0, ParameterDescriptor(
            description='each JointTrajectory reaches the controller a uniform random '
                        'delay in [0, this] after it arrives [s]', read_only=True,
            floating_point_range=[FloatingPointRange(from_value=0.0, to_value=1.0)]))
        self.declare_parameter('lost_every', 0, ParameterDescriptor(
            description='every lost_every-th JointTrajectory is lost (0: none)',
            read_only=True))
        self._warn = KeyedThrottle(self.get_logger().warning, 2.0)
        self.create_timer(0.5, self._warn.flush)  # the newest held warning once it is due
        initial = np.array(self.get_parameter('initial_positions').value, dtype=float)
        if initial.size == 1:
            initial = np.full(self.chain.n_joints, initial[0])
        if initial.size != self.chain.n_joints:
            raise ValueError(f'initial_positions has {initial.size} values, the chain has '
                             f'{self.chain.n_joints} joints')
        self.q = initial  # an encoder may read past a limit: kept, moved only inward
        self.velocity = np.zeros(self.chain.n_joints)
        self._recent: List[tuple] = []  # (stamp, positions) of the last commands (strict)
        self.fault_count = 0
        self._faulted_until = -np.inf
        self._faulted = False
        self._index = {name: index for index, name in enumerate(self.chain.joint_names)}
        self._dt = 1.0 / self.get_parameter('rate').value
        self._command = CommandReference(self.q, self._now())
        self._state_every = max(1, int(round(self.get_parameter('rate').value
                                             / self.get_parameter('state_rate').value)))
        self._steps = 0
        self._past: Deque[tuple] = deque()  # (time, q, velocity, effort)
        self._publisher = self.create_publisher(JointState, 'joint_states', STATE_QOS)
        self._fault_publisher = self.create_publisher(UInt32, '~/faults', FAULT_QOS)
        self._fault_publisher.publish(UInt32(data=0))
        self._rejected_publisher = self.create_publisher(UInt32, '~/rejected_trajectories',
                                                         FAULT_QOS)
        self._rejected_publisher.publish(UInt32(data=0))
        self._trajectory_controller = JointTrajectoryControllerEmulation(
            self.chain.joint_names, self.q, self._epoch_ns)
        self._trajectories_active = False
        self._in_flight: List[Tuple[float, int, JointTrajectory]] = []  # (due, order, msg)
        self._trajectories_received = 0
        self._random = np.random.default_rng(0)
        for command_type, callback in (('joint_state', self._on_joint_state),
                                       ('joint_trajectory', self._on_trajectory),
                                       ('float64_multi_array', self._on_array)):
            self.create_subscription(COMMAND_MESSAGES[command_type],
                                     COMMAND_TOPICS[command_type], callback, COMMAND_QOS)
        self.create_timer(self._dt, self._step)
        self.get_logger().info(f'simulating {", ".join(self.chain.joint_names)}'
                               + (' (strict)' if self.get_parameter('strict').value else ''))

    def _now(self) -> float:
        """Return the node clock in seconds since the node started."""
        return self._seconds(self.get_clock().now().nanoseconds)

    def _seconds(self, nanoseconds: int) -> float:
        """Return seconds since the node started (a double keeps nanoseconds)."""
        return (nanoseconds - self._epoch_ns) * 1e-9

    def _command_by_name(self, names: Sequence[str], positions: Sequence[float],
                         velocities: Sequence[float], stamp: float, timed: bool = True) -> None:
        """
        Take a command for the named chain joints (others are ignored) for time ``stamp``.

        ``timed``: ``stamp`` comes from the message (else it is the receive time).
        """
        if len(names) != len(positions) or (velocities and len(velocities) != len(names)):
            self._warn('lengths', f'command has {len(names)} names but {len(positions)} '
                                  f'positions and {len(velocities)} velocities; ignored')
            return
        values = np.array(positions, dtype=float)
        speeds = np.array(velocities if velocities else [0.0] * len(names), dtype=float)
        if not (np.all(np.isfinite(values)) and np.all(np.isfinite(speeds))):
            self._warn('finite', 'command has non-finite values; ignored')
            return
        if self._now() < self._faulted_until:
            return
        command, command_velocity = self._command.target.copy(), self._command.velocity.copy()
        for name, value, speed in zip(names, values, speeds):
            if name in self._index:
                command[self._index[name]] = value
                command_velocity[self._index[name]] = speed
        if self._faulted:
            if np.abs(command - self.q).max() > RESTART_TOLERANCE:
                return
            self._faulted = False
            self.get_logger().info("a command starts at the arm's position: moving again")
        if self.get_parameter('strict').value and not self._accepts(stamp, command, timed):
            return
        if velocities:
            self._command.take(command, command_velocity, stamp)
        else:
            self._command.take_positions(command, self._now(), self._position_bounds())

    def _accepts(self, stamp: float, command: np.ndarray, timed: bool) -> bool:
        """
        Strict mode: check the command's velocity and acceleration; fault if beyond.

        Timed commands: divided differences of the last three over their stamps. Untimed
        ones (receive times): only the velocity, from the newest command at least
        ``UNTIMED_SPAN`` s older, over a time clamped to ``[1, 2] UNTIMED_SPAN`` (a stream's
        first commands included) plus ``UNTIMED_JITTER``, so that messages delivered
        together or late do not read as a jump or as overspeed while a real jump still does
        (0.2 rad on a joint of pi rad/s).
        """
        if timed:
            recent = [entry for entry in self._recent if entry[0] < stamp][-2:]
        else:
            recent = spanning(self._recent, stamp, UNTIMED_SPAN)
        recent.append((stamp, command))
        self._recent = recent
        tolerance = 1.0 + self.get_parameter('strict_tolerance').value
        times = np.array([entry[0] for entry in recent])
        positions = np.array([entry[1] for entry in recent])
        if not timed and len(recent) > 1:
            times = np.array([np.clip(times[0], stamp - 2.0 * UNTIMED_SPAN,
                                      stamp - UNTIMED_SPAN) - UNTIMED_JITTER, stamp])
            positions = positions[[0, -1]]
        for order, limit, kind in ((1, self.limits.velocity, 'velocity'),
                                   (2, self.limits.acceleration, 'acceleration')):
            if len(times) <= order or (order == 2 and not timed):
                continue
            needed = np.abs(divided_differences(times, positions, order)[-1])
            joint = int(np.argmax(needed / limit))
            if needed[joint] > limit[joint] * tolerance:
                self._fault(f'command needs {kind} {needed[joint]:.4g} on '
                            f'{self.chain.joint_names[joint]} (limit {limit[joint]:.4g})')
                return False
        return True

    def _fault(self, reason: str) -> None:
        """Stop where the arm is, count the fault and ignore commands for ``fault_hold``."""
        self.fault_count += 1
        self.get_logger().error(f'fault {self.fault_count}: {reason}; stopping')
        self._command.hold(self.q, self._now())
        self._recent = []
        self._faulted_until = self._now() + self.get_parameter('fault_hold').value
        self._faulted = True
        self._fault_publisher.publish(UInt32(data=self.fault_count))

    def _on_joint_state(self, message: JointState) -> None:
        """Accept a JointState command (stamped: its header is the time it is for)."""
        timed = message.header.stamp.sec > 0 or message.header.stamp.nanosec > 0
        stamp = self._seconds(message.header.stamp.sec * 10 ** 9
                              + message.header.stamp.nanosec) if timed else self._now()
        self._command_by_name(list(message.name), list(message.position),
                              list(message.velocity), stamp, timed=timed)

    def _on_trajectory(self, message: JointTrajectory) -> None:
        """Queue a JointTrajectory for the emulated controller (late or lost as configured)."""
        self._trajectories_received += 1
        lost_every = self.get_parameter('lost_every').value
        if lost_every > 0 and self._trajectories_received % lost_every == 0:
            return
        due = self._now() + self.get_parameter('delivery_jitter').value * self._random.uniform()
        heapq.heappush(self._in_flight, (due, self._trajectories_received, message))

    def _trajectory_setpoint(self, now: float) -> Optional[Setpoint]:
        """
        Deliver the trajectories due and run one controller update; return its setpoint.

        Before each delivery the controller is updated at the delivery time: a real JTC
        runs on all the while, so a trajectory replaces the active one from where that one
        had taken the setpoint by then. (Updated only at ``now``, after a stall of this
        process the emulation would start the new trajectory from the setpoint of the
        update before the stall, a jump JTC never makes.)

        None while no trajectory is active, during a fault's hold, while a faulted arm
        waits for a setpoint at its position, or when the setpoint faults in strict mode.
        A returned setpoint becomes the command the reference continues from.
        """
        controller = self._trajectory_controller
        while self._in_flight and self._in_flight[0][0] <= now:
            due, _, message = heapq.heappop(self._in_flight)
            if self._trajectories_active:
                controller.update(due)
            reason = controller.receive(message, due)
            if reason:
                self.get_logger().error(f'rejected trajectory: {reason}')
                self._rejected_publisher.publish(UInt32(data=len(controller.rejections)))
            else:
                self._trajectories_active = True
        if not self._trajectories_active:
            return None
        setpoint = controller.update(now)
        if now < self._faulted_until:
            return None
        if self._faulted:
            if np.abs(setpoint.position - self.q).max() > RESTART_TOLERANCE:
                return None
            self._faulted = False
            self.get_logger().info("the setpoint is at the arm's position: moving again")
        if self.get_parameter('strict').value:
            tolerance = 1.0 + self.get_parameter('strict_tolerance').value
            for values, limit, kind in ((setpoint.velocity, self.limits.velocity, 'velocity'),
                                        (setpoint.acceleration, self.limits.acceleration,
                                         'acceleration')):
                joint = int(np.argmax(np.abs(values) / limit))
                if abs(values[joint]) > limit[joint] * tolerance:
                    self._fault(f'the trajectory setpoint needs {kind} {abs(values[joint]):.4g} '
                                f'on {self.chain.joint_names[joint]} (limit {limit[joint]:.4g})')
                    return None
        position = np.clip(setpoint.position, *self._position_bounds())
        self._command.take(position, setpoint.velocity, now)
        return setpoint

    def _position_bounds(self) -> Tuple[np.ndarray, np.ndarray]:
        """Return the position bounds; a joint past a limit is kept until moved back in."""
        return np.minimum(self.chain.lower, self.q), np.maximum(self.chain.upper, self.q)

    def _command_reference(self, at: float) -> Tuple[np.ndarray, np.ndarray]:
        """Return ``(q_ref, v_ref)`` at time ``at`` (s): :class:`CommandReference`."""
        return self._command.at(at, self._position_bounds())

    def _on_array(self, message: Float64MultiArray) -> None:
        """Accept positions in chain order (received now)."""
        if len(message.data) != self.chain.n_joints:
            self._warn('array', f'commands has {len(message.data)} values, the chain '
                                f'has {self.chain.n_joints} joints; ignored')
            return
        self._command_by_name(list(self.chain.joint_names), list(message.data), [],
                              self._now(), timed=False)

    def _step(self) -> None:
        """Move the arm by one loop period toward the reference; publish its state."""
        raise NotImplementedError

    def _publish_state(self, now: float, effort: Optional[np.ndarray] = None) -> None:
        """
        Publish joint_states every ``state_every`` steps, as of ``state_delay`` s ago.

        ``now`` (s, node clock since start): the time of the arm's state (:attr:`q`,
        :attr:`velocity`), which the message's stamp says, not the time it is published
        (a process preempted between the two would stamp the state late by as long, and
        the positions read against their stamps would jump back and forth). ``effort``
        (n,): the drives' efforts (N m or N) at this step, if the arm knows them.
        """
        self._past.append((now, self.q.copy(), self.velocity.copy(), effort))
        delay = self.get_parameter('state_delay').value
        while len(self._past) > 1 and self._past[1][0] <= now - delay:
            self._past.popleft()
        self._steps += 1
        if self._steps % self._state_every or not self.get_parameter('publish_states').value:
            return
        state_time, q, velocity, effort = self._past[0]
        message = JointState()
        message.header.stamp = Time(nanoseconds=self._epoch_ns + round(state_time * 1e9)).to_msg()
        message.name = list(self.chain.joint_names)
        message.position = [float(v) for v in q]
        message.velocity = [float(v) for v in velocity]
        if effort is not None:
            message.effort = [float(v) for v in effort]
        self._publisher.publish(message)
