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
Integration tests: the real ik_node process, talking over real DDS to this test process.

The test process plays the arm ("echo arm"): it publishes joint_states and applies every
joint command it receives, closing the loop across processes.
"""

import math
import os
import time
from typing import List, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PointStamped, PoseStamped
from loop_messages import status_values
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.control.command_stream import MAX_STEP_PERIODS
from ros_ik.control.motion_limit_sources import LimitDefaults, resolve_motion_limits
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.bundled_arms import (bundled_joint_limits_path, bundled_urdf_path,
                                            load_bundled_chain)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import pose_error
from ros_ik.node.jtc_emulation import JointTrajectoryControllerEmulation
from ros_ik.node.messages import pose_message
from ros_ik.tools.node_processes import NodeProcess, RosPeer
from ros_ik.trajectory.stream_check import stall_starts, stream_peaks_from_rest
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64, Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory

UR5_HOME = [0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0]
UR5_GOAL = [0.4, -1.2, 1.3, -1.7, -1.3, 0.5]
UPDATE_RATE = 100.0
VELOCITY_SCALE = 0.5
COMMAND_HISTORY = 1000  # commands the echo arm's subscription keeps (10 s at UPDATE_RATE)
STAMP_EPOCH = int(time.time())  # stamps relative to it keep nanoseconds in a double


@pytest.fixture
def start_node(ros_domain_id, tmp_path):
    """Yield a function starting ik_node (None drops a parameter); all are stopped after."""
    processes: List[NodeProcess] = []

    def start(arm: str = 'ur5', **parameters) -> NodeProcess:
        defaults = {'robot_description_file': bundled_urdf_path(arm),
                    'joint_limits_file': bundled_joint_limits_path(arm),
                    'update_rate': UPDATE_RATE, 'velocity_scale': VELOCITY_SCALE,
                    'diagnostics_period': 0.2}
        if arm == 'planar_2link':
            defaults['task_axes'] = 'x y'
        defaults.update(parameters)
        defaults = {key: value for key, value in defaults.items() if value is not None}
        log_path = str(tmp_path / f'ik_node_{len(processes)}.log')
        process = NodeProcess('ik_node', defaults, log_path)
        processes.append(process)
        return process
    yield start
    for process in processes:
        process.stop()


class EchoArm:
    """The test-side arm: publishes joint_states, applies each command it receives."""

    def __init__(self, peer: RosPeer, joint_names, q_start, command_type='joint_state'):
        """Subscribe to the node's command topic of ``command_type`` and start publishing."""
        self.peer = peer
        self.joint_names = list(joint_names)
        self.q = np.array(q_start, dtype=float)
        self.commands: List[np.ndarray] = []
        self.velocities: List[np.ndarray] = []
        self.times: List[float] = []  # s, from the stamps (JointState) or time_from_start
        self.misnamed_commands: List[List[str]] = []
        self.publishing = True
        self.extra_joints = {}
        self.trajectory_controller = JointTrajectoryControllerEmulation(
            joint_names, self.q, STAMP_EPOCH * 10 ** 9)
        self.trajectories = 0  # accepted by the emulated joint_trajectory_controller
        self.rejections: List[str] = []
        node = peer.node
        self._publisher = node.create_publisher(JointState, 'joint_states', 10)
        # Every command, in order: the stream is checked from what arrived. With a history of
        # 10, a test process starved for 0.1 s (a busy CI machine) loses the older commands
        # of that time, and the gap reads as a stall of the node that never happened.
        reliable = QoSProfile(depth=COMMAND_HISTORY, reliability=ReliabilityPolicy.RELIABLE)
        if command_type == 'joint_state':
            self.subscription = node.create_subscription(
                JointState, '/ros_ik/joint_commands', self._on_joint_state_command, reliable)
        elif command_type == 'joint_trajectory':
            self.subscription = node.create_subscription(
                JointTrajectory, '/ros_ik/joint_trajectory', self._on_trajectory_command,
                reliable)
        else:
            self.subscription = node.create_subscription(
                Float64MultiArray, '/ros_ik/commands', self._on_array_command, reliable)
        node.create_timer(0.01, self.publish)

    def publish(self) -> None:
        """Publish the arm's joint state (plus any extra joints configured)."""
        if self.trajectories:  # joint_trajectory_controller update: take its setpoint
            now = self._clock()
            self._apply(self.trajectory_controller.update(now).position, time=now)
        if not self.publishing:
            return
        message = JointState()
        message.header.stamp = self.peer.node.get_clock().now().to_msg()
        message.name = self.joint_names + list(self.extra_joints)
        message.position = [float(v) for v in self.q] + list(self.extra_joints.values())
        self._publisher.publish(message)

    def _apply(self, positions, velocities=None, names=None, time=None) -> None:
        if names is not None and list(names) != self.joint_names:
            self.misnamed_commands.append(list(names))  # asserted by the test, not here
            return
        self.q = np.array(positions)
        self.commands.append(self.q.copy())
        if velocities:
            self.velocities.append(np.array(velocities))
        if time is not None:
            self.times.append(time)

    def _on_joint_state_command(self, message: JointState) -> None:
        stamp = message.header.stamp
        self._apply(message.position, message.velocity, message.name,
                    (stamp.sec - STAMP_EPOCH) + stamp.nanosec * 1e-9)

    def _on_trajectory_command(self, message: JointTrajectory) -> None:
        """Hand the trajectory to the emulated joint_trajectory_controller."""
        if list(message.joint_names) != self.joint_names:
            self.misnamed_commands.append(list(message.joint_names))
            return
        reason = self.trajectory_controller.receive(message, self._clock())
        if reason is None:
            self.trajectories += 1
        else:
            self.rejections.append(reason)

    def _clock(self) -> float:
        """Return the peer's clock in seconds after STAMP_EPOCH."""
        return self.peer.node.get_clock().now().nanoseconds * 1e-9 - STAMP_EPOCH

    def _on_array_command(self, message: Float64MultiArray) -> None:
        self._apply(message.data)


def pose_target(T_base_target: np.ndarray, frame_id: str = 'base_link') -> PoseStamped:
    """Return a PoseStamped of a 4x4 target."""
    message = PoseStamped()
    message.header.frame_id = frame_id
    message.pose = pose_message(T_base_target)
    return message


def target_publisher(peer: RosPeer, topic: str = '/ros_ik/target_pose', message_type=None):
    """Return a reliable publisher of targets."""
    return peer.node.create_publisher(message_type or PoseStamped, topic,
                                      QoSProfile(depth=1,
                                                 reliability=ReliabilityPolicy.RELIABLE))


def publish_until_matched(peer: RosPeer, publisher, message, timeout: float = 10.0,
                          arm: Optional[EchoArm] = None) -> None:
    """Wait for the node's subscription (and ``arm`` to hear the node), publish ``message``."""
    assert peer.spin_until(lambda: publisher.get_subscription_count() > 0 and (
        arm is None or arm.subscription.get_publisher_count() > 0), timeout)
    publisher.publish(message)


def assert_within_velocity_limits(arm: EchoArm, chain, scale: float, q_start,
                                  arm_name: str = 'ur5', log: str = '') -> None:
    """
    Check the command stream against the bundled arm's limits (velocity x ``scale``).

    Velocity, acceleration and jerk from the divided differences over the command times
    (JointState stamps); positions inside the bounds. Stamps more than the node's stall gap
    apart (a stall on a busy machine) are checked as a position controller executes them:
    the stream after the stall from rest at the held command. A failure says where the
    stream's gaps were and what the node's ``log`` said about stalls and restarts.
    """
    assert arm.misnamed_commands == []
    limits = resolve_motion_limits(chain, bundled_joint_limits_path(arm_name),
                                   LimitDefaults.of(Settings()), {}).limits
    velocity = scale * limits.velocity
    for command in arm.commands:
        assert chain.within_limits(command)
    for command_velocity in arm.velocities:
        assert np.all(np.abs(command_velocity) <= velocity * (1 + 1e-9))
    if arm.times:
        period = 1.0 / UPDATE_RATE
        stall_gap = MAX_STEP_PERIODS * period
        peaks, _ = stream_peaks_from_rest(arm.times, arm.commands, q_start, period,
                                          stall_gap, limits.lower, limits.upper)
        ratios = peaks.ratios(velocity, limits.acceleration, limits.jerk)
        assert np.all(ratios <= 1.0 + 1e-6), (ratios, stream_gaps(arm, stall_gap, log))


def stream_gaps(arm: EchoArm, stall_gap: float, log: str) -> str:
    """Describe the command stream's gaps (as the check reads stalls) and the node's log."""
    times = np.asarray(arm.times)
    gaps = stall_starts(times, stall_gap)
    lines = [f'{len(times)} commands over {times[-1] - times[0]:.3f} s']
    for begin, end in zip(gaps, [*gaps[1:], len(times)]):
        step = np.abs(arm.commands[begin] - arm.commands[begin - 1]).max()
        lines.append(f'gap {times[begin] - times[begin - 1]:.3f} s at {times[begin]:.3f} s, '
                     f'{end - begin} commands after it, first step {step:.4g}')
    lines += [line for line in log.splitlines() if any(
        word in line for word in ('stall', 'restart', 'stale', 'lags', 'not where'))]
    return '\n'.join(lines)


def tip_error(kinematics: ChainKinematics, q, T_base_target, position_only=False) -> float:
    """Return the larger of the position (m) and, unless position-only, rotation error."""
    e_p, e_o = pose_error(T_base_target, kinematics.tip_pose(np.asarray(q)))
    return float(np.linalg.norm(e_p)) if position_only else float(
        max(np.linalg.norm(e_p), np.linalg.norm(e_o)))


@pytest.mark.parametrize('mode, command_type', [('servo', 'joint_state'),
                                                ('solve', 'joint_trajectory'),
                                                ('servo', 'float64_multi_array')])
def test_commands_converge_to_target_within_velocity_limits(peer, start_node, mode,
                                                            command_type):
    """Check closed-loop convergence to a pose target and the speed of every command."""
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    start_node(mode=mode, command_type=command_type)
    arm = EchoArm(peer, chain.joint_names, UR5_HOME, command_type)
    T_base_target = kinematics.tip_pose(np.array(UR5_GOAL))
    publish_until_matched(peer, target_publisher(peer), pose_target(T_base_target), arm=arm)
    reached = peer.spin_until(lambda: tip_error(kinematics, arm.q, T_base_target) < 1e-3, 30.0)
    assert reached, f'error {tip_error(kinematics, arm.q, T_base_target)}'
    assert len(arm.commands) > 10
    if command_type == 'joint_trajectory':
        # Here the emulated controller runs in the test process, which is no real-time
        # controller on a busy machine (it takes messages late when it lags); what JTC
        # executes is checked in sim_arm's own process (test_sim_arm.py) and on a simulated
        # clock (test/unit/test_ros2_control.py). Here: every message accepted, in bounds.
        assert arm.rejections == [] and arm.misnamed_commands == []
        assert all(chain.within_limits(command) for command in arm.commands)
    else:
        assert_within_velocity_limits(arm, chain, VELOCITY_SCALE, UR5_HOME)


def test_position_only_target_from_a_chain_link_frame(peer, start_node):
    """Check a PointStamped given in a chain link's frame (resolved with FK) is reached."""
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    start_node()
    arm = EchoArm(peer, chain.joint_names, UR5_HOME)
    T_base_shoulder = kinematics.link_poses(np.array(UR5_HOME))[1]
    goal = kinematics.tip_pose(np.array(UR5_GOAL))[:3, 3]
    goal_in_shoulder = np.linalg.solve(T_base_shoulder, np.append(goal, 1.0))[:3]
    message = PointStamped()
    message.header.frame_id = 'shoulder_link'
    message.point.x, message.point.y, message.point.z = (float(v) for v in goal_in_shoulder)
    publish_until_matched(peer, target_publisher(peer, '/ros_ik/target_point', PointStamped),
                          message, arm=arm)
    T_goal = np.eye(4)
    T_goal[:3, 3] = goal
    assert peer.spin_until(
        lambda: tip_error(kinematics, arm.q, T_goal, position_only=True) < 1e-3, 30.0)
    assert_within_velocity_limits(arm, chain, VELOCITY_SCALE, UR5_HOME)


class Collector:
    """Keep the messages of one topic."""

    def __init__(self, peer: RosPeer, message_type, topic: str, qos=10) -> None:
        """Subscribe."""
        self.messages = []
        peer.node.create_subscription(message_type, topic, self.messages.append, qos)

    def last(self):
        """Return the newest message (or None)."""
        return self.messages[-1] if self.messages else None


def ik_status(collector: Collector, node_name: str = 'ros_ik'):
    """Return the newest '<node>: ik' DiagnosticStatus, or None."""
    for array in reversed(collector.messages):
        for status in array.status:
            if status.name == f'{node_name}: ik':
                return status
    return None


def test_planar_manipulability_and_diagnostics_give_three(peer, start_node):
    """Check w = L1 L2 sin(theta2) = 3.0 on ~/manipulability and /diagnostics at 90 deg."""
    chain = load_bundled_chain('planar_2link')
    start_node('planar_2link')
    manipulability = Collector(peer, Float64, '/ros_ik/manipulability')
    diagnostics = Collector(peer, DiagnosticArray, '/diagnostics')
    EchoArm(peer, chain.joint_names, [0.3, math.pi / 2])
    assert peer.spin_until(lambda: len(manipulability.messages) >= 5
                           and ik_status(diagnostics) is not None
                           and 'manipulability' in status_values(ik_status(diagnostics)),
                           15.0)
    assert manipulability.last().data == pytest.approx(3.0, abs=1e-12)
    status = ik_status(diagnostics)
    values = status_values(status)
    assert float(values['manipulability']) == pytest.approx(3.0, abs=1e-5)
    assert float(values['sigma_min']) == pytest.approx(1.113373861, abs=1e-5)
    assert status.level == DiagnosticStatus.OK and status.message == 'no target yet'


def test_a_target_finding_the_arm_at_rest_is_answered_at_once(peer, start_node):
    """
    Check a target sent mid-period to an arm at rest is answered at once; the timer restarts.

    At 1 Hz, with the stream holding the arm at rest at a reached target, a new target is
    sent half a period after a command. Waiting for the timer, the next command would come
    half a period later; answered at once, it comes well before, and the one after it a
    period later (the timer restarted from that cycle, not on its old phase). A target sent
    mid-period to the arm once it moves waits for the timer.
    """
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    start_node(update_rate=1.0, mode='solve', velocity_scale=0.05)  # motions of seconds
    arm = EchoArm(peer, chain.joint_names, UR5_HOME)
    arrivals, moving = [], []
    peer.node.create_subscription(
        JointState, '/ros_ik/joint_commands',
        lambda message: (arrivals.append(time.monotonic()),
                         moving.append(any(message.velocity))), 10)
    publisher = target_publisher(peer)
    publish_until_matched(peer, publisher, pose_target(kinematics.tip_pose(
        np.array(UR5_HOME))), arm=arm)
    assert peer.spin_until(lambda: len(arrivals) >= 2, 30.0)
    assert not any(moving)  # at rest where it is
    held, last = len(arrivals), arrivals[-1]
    assert peer.spin_until(lambda: time.monotonic() >= last + 0.5, 5.0)
    assert len(arrivals) == held, 'a command came within half a period'
    publisher.publish(pose_target(kinematics.tip_pose(np.array(UR5_HOME) + 0.3)))
    assert peer.spin_until(lambda: len(arrivals) > held + 1 and any(moving[held:]), 20.0)
    assert arrivals[held] < last + 0.9, 'the target waited for the timer'
    assert arrivals[held + 1] - arrivals[held] > 0.75, 'the timer kept its old phase'
    # a timer cycle (an early one allows no other before the timer's next) with the arm moving
    timer_cycle = max(moving.index(True, held), held + 1)
    assert peer.spin_until(lambda: len(arrivals) > timer_cycle, 10.0)
    assert moving[timer_cycle]
    moving_since = arrivals[timer_cycle]
    assert peer.spin_until(lambda: time.monotonic() >= moving_since + 0.5, 5.0)
    publisher.publish(pose_target(kinematics.tip_pose(np.array(UR5_HOME) - 0.3)))
    assert peer.spin_until(lambda: len(arrivals) > timer_cycle + 1, 10.0)
    assert arrivals[timer_cycle + 1] - moving_since > 0.75, 'the moving arm was commanded early'


def test_with_use_sim_time_the_commands_are_stamped_on_the_clock_topic(peer, start_node):
    """
    Check ``use_sim_time``: no command before ``/clock`` gives a time, then commands on it.

    The node has joint states and a target but no time: it says it waits and commands
    nothing (stamped 0, the next command would jump 1000 s). Then ``/clock`` starts at
    1000 s and advances 2 ms every 2 ms: commands stamped on that time (1.7e9 s on the
    system clock), one period of it apart.
    """
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    clock_publisher = peer.node.create_publisher(Clock, '/clock', 10)
    sim_ns = [1000 * 10 ** 9]

    def tick() -> None:
        sim_ns[0] += 2_000_000
        message = Clock()
        message.clock.sec, message.clock.nanosec = divmod(sim_ns[0], 10 ** 9)
        clock_publisher.publish(message)
    node = start_node(use_sim_time=True)
    arm = EchoArm(peer, chain.joint_names, UR5_HOME)
    publish_until_matched(peer, target_publisher(peer), pose_target(kinematics.tip_pose(
        np.array(UR5_GOAL))), arm=arm)
    assert peer.spin_until(lambda: 'waiting for a time on /clock' in node.output(), 30.0)
    assert arm.commands == []
    peer.node.create_timer(0.002, tick)
    assert peer.spin_until(lambda: len(arm.times) > 20, 30.0)
    stamps = np.array(arm.times) + STAMP_EPOCH  # s on the node's clock
    assert np.all((stamps > 1000.0) & (stamps < sim_ns[0] * 1e-9 + 1.0)), stamps
    assert np.median(np.diff(stamps)) == pytest.approx(1.0 / UPDATE_RATE, abs=1e-6)


def test_no_commands_before_joint_states_then_brake_and_hold_when_stale(peer, start_node):
    """Check silence until the first joint state; stale ones: ERROR, brake, then hold."""
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    process = start_node(joint_state_timeout=0.3)
    diagnostics = Collector(peer, DiagnosticArray, '/diagnostics')
    arm = EchoArm(peer, chain.joint_names, UR5_HOME)
    arm.publishing = False
    publish_until_matched(peer, target_publisher(peer),
                          pose_target(kinematics.tip_pose(np.array(UR5_GOAL))))
    assert peer.spin_until(lambda: ik_status(diagnostics) is not None and 'waiting for '
                           'joint_states' in ik_status(diagnostics).message, 10.0)
    assert arm.commands == []
    arm.publishing = True
    assert peer.spin_until(lambda: len(arm.commands) > 20, 10.0)
    assert np.abs(arm.velocities[-1]).max() > 0.0  # moving when the joint states stop
    arm.publishing = False
    assert peer.spin_until(lambda: 'joint states are stale' in ik_status(diagnostics).message,
                           5.0)
    assert peer.spin_until(lambda: np.all(arm.velocities[-1] == 0.0), 5.0)
    held = len(arm.commands)
    assert peer.spin_until(lambda: len(arm.commands) > held + 20, 5.0)
    assert all(np.array_equal(q, arm.commands[held - 1]) for q in arm.commands[held:])
    assert ik_status(diagnostics).level == DiagnosticStatus.ERROR
    assert 'joint states are stale' in process.output()


def send_and_check_alive(peer: RosPeer, manipulability: Collector) -> None:
    """Check the node still publishes after a bad input."""
    count = len(manipulability.messages)
    assert peer.spin_until(lambda: len(manipulability.messages) > count + 3, 5.0)


def test_bad_inputs_are_survived_with_clear_warnings(peer, start_node):
    """Send every kind of bad input; the node warns, keeps running and still reaches."""
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    process = start_node()
    manipulability = Collector(peer, Float64, '/ros_ik/manipulability')
    diagnostics = Collector(peer, DiagnosticArray, '/diagnostics')
    arm = EchoArm(peer, chain.joint_names, UR5_HOME)
    targets = target_publisher(peer)
    joint_states = peer.node.create_publisher(JointState, 'joint_states', 10)
    assert peer.spin_until(lambda: targets.get_subscription_count() > 0
                           and arm.subscription.get_publisher_count() > 0
                           and len(manipulability.messages) > 0, 10.0)

    def bad_pose(position, quaternion, frame='base_link') -> None:
        message = PoseStamped()
        message.header.frame_id = frame
        (message.pose.position.x, message.pose.position.y,
         message.pose.position.z) = position
        (message.pose.orientation.x, message.pose.orientation.y,
         message.pose.orientation.z, message.pose.orientation.w) = quaternion
        targets.publish(message)
        send_and_check_alive(peer, manipulability)

    bad_pose((float('nan'), 0.0, 0.5), (0.0, 0.0, 0.0, 1.0))
    bad_pose((0.3, 0.0, 0.5), (0.0, 0.0, float('inf'), 1.0))
    bad_pose((0.3, 0.0, 0.5), (0.0, 0.0, 0.0, 0.0))
    bad_pose((0.3, 0.0, 0.5), (0.0, 0.0, 0.0, 1.0), frame='map')
    # a frame outside the chain waits transform_timeout for TF, then is refused (a newer
    # target before then would supersede it)
    assert peer.spin_until(lambda: 'no transform from "map"' in process.output(), 10.0)
    assert arm.commands == [] or np.allclose(arm.commands[-1], UR5_HOME, atol=1e-9)
    # The node takes the newest joint states of each joint set once per cycle: the arm pauses
    # so that each bad message is the newest one for a cycle.
    arm.publishing = False
    for names, positions in ((chain.joint_names[:3], [float(v) for v in arm.q[:3]]),
                             (list(chain.joint_names), [float('nan')] * 6),
                             (list(chain.joint_names), [0.0] * 5)):
        message = JointState(name=list(names), position=positions)
        joint_states.publish(message)
        send_and_check_alive(peer, manipulability)
    arm.publishing = True
    arm.extra_joints = {'gripper_finger': 0.01}
    send_and_check_alive(peer, manipulability)
    # Unreachable: 3 m away. ERROR status with the reason, commands stay within limits.
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.5]
    targets.publish(pose_target(far))
    assert peer.spin_until(lambda: ik_status(diagnostics) is not None
                           and 'target out of reach' in ik_status(diagnostics).message, 10.0)
    assert ik_status(diagnostics).level == DiagnosticStatus.ERROR
    # A flood of 1000 targets at about 1 kHz, then the real one: it must be reached promptly.
    T_base_target = kinematics.tip_pose(np.array(UR5_GOAL))
    flood = pose_target(kinematics.tip_pose(np.array(UR5_HOME)))
    flood_start = time.monotonic()
    for _ in range(1000):
        targets.publish(flood)
        peer.executor.spin_once(timeout_sec=0.001)  # ~1 kHz, and the echo arm keeps up
    assert time.monotonic() - flood_start < 5.0
    unnormalised = pose_target(T_base_target)
    unnormalised.pose.orientation.w *= 2.0
    unnormalised.pose.orientation.x *= 2.0
    unnormalised.pose.orientation.y *= 2.0
    unnormalised.pose.orientation.z *= 2.0
    targets.publish(unnormalised)
    assert peer.spin_until(lambda: tip_error(kinematics, arm.q, T_base_target) < 1e-3, 20.0)
    output = process.output()
    assert_within_velocity_limits(arm, chain, VELOCITY_SCALE, UR5_HOME, log=output)
    for expected in ('target ignored: target position is not finite',
                     'target ignored: target orientation is not finite',
                     'target ignored: target orientation is a zero quaternion',
                     'target ignored: no transform from "map" to "base_link"',
                     'joint_states has non-finite positions for shoulder_pan_joint',
                     'joint_states has 6 names but 5 positions; message ignored',
                     'joint_states message lacks chain joints wrist_1_joint, wrist_2_joint, '
                     'wrist_3_joint; using their last known positions',
                     'joint_states also carries joints outside the chain, ignored: '
                     'gripper_finger',
                     'target out of reach: 3.',
                     'target quaternion has norm 2; normalised'):
        assert expected in output, expected
    assert process.process.poll() is None


@pytest.mark.parametrize('parameters, expected', [
    ({'robot_description_file': '/nonexistent/arm.urdf'},
     'cannot start: URDF file "/nonexistent/arm.urdf" does not exist'),
    ({'robot_description': '"<robot name=\'r\'><link name=\'a\'/"'},
     'cannot start: malformed URDF: unclosed token'),
    ({'tip_link': 'gripper'}, 'cannot start: tip link "gripper" is not in the URDF of robot '
                              '"ur5_class"'),
    ({'mode': 'teleport'}, "cannot start: parameter mode = 'teleport' is not allowed (allowed: "
                           'one of solve, servo)'),
    ({'update_rate': 0.0}, 'cannot start: parameter update_rate = 0.0 is out of range '
                           '(allowed: 1 to 1000)'),
    ({'update_rate': 5000}, 'cannot start: parameter update_rate = 5000.0 is out of range '
                            '(allowed: 1 to 1000)'),
    ({'point_orientation': 'wobble'}, "cannot start: parameter point_orientation = 'wobble' "
                                      'is not allowed (allowed: one of free, hold)'),
    ({'base_link': 'tool0'}, 'cannot start: parameters base_link and tip_link are both '
                             '"tool0": the chain needs two different links'),
])
def test_bad_start_up_exits_non_zero_naming_the_problem(start_node, parameters, expected):
    """Check fatal start-up errors: exit code 1, a FATAL line with the message, no traceback."""
    process = start_node(**parameters)
    assert process.wait(timeout=30.0) == 1
    output = process.output()
    assert expected in output
    assert '[FATAL]' in output and 'Traceback' not in output


def publish_robot_description(peer: RosPeer, arm: str):
    """Publish a bundled arm's URDF on the latched /robot_description; return the publisher."""
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    publisher = peer.node.create_publisher(String, '/robot_description', latched)
    with open(bundled_urdf_path(arm), encoding='utf-8') as urdf:
        publisher.publish(String(data=urdf.read()))
    return publisher


def test_integer_rate_and_a_target_before_the_model_are_taken_in_stride(peer, start_node):
    """Check update_rate:=200 (an integer) runs, and an early bad-frame target is refused."""
    chain = load_bundled_chain('planar_2link')
    process = start_node('planar_2link', robot_description_file=None, update_rate=200)
    early = PoseStamped()
    early.header.frame_id = 'map'
    early.pose.orientation.w = 1.0
    publish_until_matched(peer, target_publisher(peer), early)
    assert peer.spin_until(lambda: 'waiting for the robot_description topic' in
                           process.output(), 20.0)
    publish_robot_description(peer, 'planar_2link')
    manipulability = Collector(peer, Float64, '/ros_ik/manipulability')
    EchoArm(peer, chain.joint_names, [0.0, math.pi / 2])
    assert peer.spin_until(lambda: len(manipulability.messages) > 20
                           and 'frame "map" does not exist in TF' in process.output(), 15.0)
    assert process.process.poll() is None


def set_parameter(peer: RosPeer, name: str, value):
    """Set a parameter of /ros_ik; return the result."""
    result = peer.set_parameter('/ros_ik', name, value)
    assert result is not None
    return result


def test_parameters_rejected_out_of_range_and_applied_in_range(peer, start_node):
    """Check a velocity_scale outside its range is rejected; a valid one slows commands."""
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    start_node()
    rejected = set_parameter(peer, 'velocity_scale', 5.0)
    assert not rejected.successful
    assert 'velocity_scale' in rejected.reason or 'range' in rejected.reason
    assert set_parameter(peer, 'gain', 4).successful  # an integer for a double
    wobble = set_parameter(peer, 'point_orientation', 'wobble')
    assert not wobble.successful and 'one of free, hold' in wobble.reason
    accepted = set_parameter(peer, 'velocity_scale', 0.1)
    assert accepted.successful
    arm = EchoArm(peer, chain.joint_names, UR5_HOME)
    T_base_target = kinematics.tip_pose(np.array(UR5_GOAL))
    publish_until_matched(peer, target_publisher(peer), pose_target(T_base_target), arm=arm)
    assert peer.spin_until(lambda: len(arm.commands) > 50, 10.0)
    assert_within_velocity_limits(arm, chain, 0.1, UR5_HOME)
    speeds = np.abs(np.array(arm.velocities))
    assert speeds.max() > 0.09 * chain.velocity_limits.min()  # the new cap is the one in use


def test_mode_switches_at_rest_and_is_refused_with_the_reason_while_moving(peer, start_node):
    """
    Check ``mode`` at run time: refused mid-motion (saying why), taken at rest, then used.

    Before, ``mode`` was read-only: the browser view's mode switch could never work.
    """
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    start_node(mode='solve', velocity_scale=0.2)
    diagnostics = Collector(peer, DiagnosticArray, '/diagnostics')
    arm = EchoArm(peer, chain.joint_names, UR5_HOME)
    targets = target_publisher(peer)
    T_goal = kinematics.tip_pose(np.array(UR5_GOAL))
    publish_until_matched(peer, targets, pose_target(T_goal), arm=arm)
    assert peer.spin_until(lambda: len(arm.commands) > 2
                           and np.abs(arm.commands[-1] - UR5_HOME).max() > 1e-3, 10.0)
    refused = set_parameter(peer, 'mode', 'servo')
    assert not refused.successful
    assert refused.reason.startswith('mode can change only while the arm is at rest; it is '
                                     'moving in solve mode'), refused.reason
    assert peer.spin_until(lambda: tip_error(kinematics, arm.q, T_goal) < 1e-3
                           and len(arm.commands) > 1
                           and np.array_equal(arm.commands[-1], arm.commands[-2]), 30.0)
    assert set_parameter(peer, 'mode', 'servo').successful
    assert peer.spin_until(lambda: ik_status(diagnostics) is not None and status_values(
        ik_status(diagnostics)).get('mode') == 'servo', 10.0)
    T_next = kinematics.tip_pose(np.array(UR5_HOME))
    targets.publish(pose_target(T_next))
    assert peer.spin_until(lambda: tip_error(kinematics, arm.q, T_next) < 1e-3, 30.0)
    assert 'servo_recovery' in status_values(ik_status(diagnostics))  # servo's own value
    assert_within_velocity_limits(arm, chain, 0.2, UR5_HOME)


def test_robot_description_from_latched_topic(peer, start_node):
    """Check that without parameters the node waits for /robot_description, then works."""
    chain = load_bundled_chain('planar_2link')
    process = start_node('planar_2link', robot_description_file=None)
    publish_robot_description(peer, 'planar_2link')
    manipulability = Collector(peer, Float64, '/ros_ik/manipulability')
    EchoArm(peer, chain.joint_names, [0.0, math.pi / 2])
    assert peer.spin_until(lambda: len(manipulability.messages) > 3, 15.0)
    assert manipulability.last().data == pytest.approx(3.0)
    assert 'waiting for the robot_description topic' in process.output()


def test_a_xacro_robot_description_file_with_arguments(peer, start_node):
    """Check a .xacro arm with upper_length:=1.2: w = L1 L2 sin(theta2) = 1.2 * 1.5."""
    xacro_file = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              'data', 'planar_arm.urdf.xacro')
    start_node('planar_2link', robot_description_file=xacro_file,
               xacro_args='"upper_length:=1.2"', joint_limits_file=None)
    manipulability = Collector(peer, Float64, '/ros_ik/manipulability')
    EchoArm(peer, ['shoulder', 'elbow'], [0.3, math.pi / 2])
    assert peer.spin_until(lambda: len(manipulability.messages) > 3, 15.0)
    assert manipulability.last().data == pytest.approx(1.8)
