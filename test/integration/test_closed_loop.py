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
Closed loop with the strict simulated arm: ik_node and sim_arm as real processes over DDS.

sim_arm (strict) faults like a real controller on a command beyond its velocity or
acceleration limits; every test checks it never did, and checks the command stream itself
(velocity, acceleration and jerk from the command stamps) against the limits. The faults
come from a real driver's life: late and slow joint states, an outage, bad targets, an
encoder past its limit, a continuous joint across +-pi.
"""

import math
from typing import List

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PointStamped, PoseStamped, TwistStamped
from loop_messages import ik_status, pose_target, status_values
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.control.command_stream import MAX_STEP_PERIODS
from ros_ik.control.motion_limit_sources import LimitDefaults, resolve_motion_limits
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, load_bundled_chain)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.ik_solver import IkSolver
from ros_ik.kinematics.transforms import pose_error, rpy_to_matrix
from ros_ik.kinematics.urdf_loader import load_urdf_file
from ros_ik.tools.node_processes import ProcessGroup, RosPeer
from ros_ik.trajectory.stream_check import divided_differences, stream_peaks_from_rest
from ros_ik_testing.small_chains import POLAR_ARM_URDF
from ros_ik_testing.stall_faults import stall_fault_reason
from sensor_msgs.msg import JointState
from std_msgs.msg import UInt32

RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
# The stream is checked whole: 10 s of commands (100 Hz) wait while this process is busy (a
# 100k-waypoint Path takes 0.5 s to publish on a quiet machine; with 1 s kept, a Jazzy CI
# run lost commands meanwhile and read the gap as a stall the node had not reported).
EVERY_COMMAND = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
VELOCITY_SCALE = 0.5


class Loop:
    """The strict sim_arm and ik_node for one arm, and what the test side sees of them."""

    def __init__(self, peer: RosPeer, processes: ProcessGroup, folder, urdf_path: str,
                 base_link: str, tip_link: str,
                 initial: np.ndarray, limits_file: str = '', task_axes: str = '',
                 sim: dict = None, ik: dict = None) -> None:
        """Start both processes; subscribe to commands, joint_states, faults, diagnostics."""
        self.peer = peer
        self.chain = load_urdf_file(urdf_path, base_link, tip_link)
        self.kinematics = ChainKinematics(self.chain)
        self.limits = resolve_motion_limits(self.chain, limits_file,
                                            LimitDefaults.of(Settings()), {}).limits
        model = {'robot_description_file': urdf_path, 'base_link': base_link,
                 'tip_link': tip_link}
        if limits_file:
            model['joint_limits_file'] = limits_file
        ik_parameters = {**model, 'velocity_scale': VELOCITY_SCALE, 'diagnostics_period': 0.1,
                         **(ik or {})}
        if task_axes:
            ik_parameters['task_axes'] = f'"{task_axes}"'
        start = '[' + ', '.join(repr(float(v)) for v in initial) + ']'
        self.processes = [
            processes.start('sim_arm', {**model, 'initial_positions': start, 'strict': True,
                                        **(sim or {})}, str(folder / 'sim.log'),
                            ['-r', 'joint_commands:=/ros_ik/joint_commands']),
            processes.start('ik_node', ik_parameters, str(folder / 'ik.log'))]
        self.epoch = int(peer.node.get_clock().now().nanoseconds * 1e-9)
        self.stamps: List[float] = []
        self.commands: List[np.ndarray] = []
        self.velocities: List[np.ndarray] = []
        self.q = None
        self.faults: List[int] = []
        self.status = None
        node = peer.node
        commands = node.create_subscription(JointState, '/ros_ik/joint_commands',
                                            self._on_command, EVERY_COMMAND)
        node.create_subscription(JointState, 'joint_states', self._on_state, RELIABLE)
        node.create_subscription(UInt32, '/sim_arm/faults',
                                 lambda message: self.faults.append(message.data), LATCHED)
        node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                 RELIABLE)
        self.poses = node.create_publisher(PoseStamped, '/ros_ik/target_pose', LATCHED)
        self.points = node.create_publisher(PointStamped, '/ros_ik/target_point', LATCHED)
        # The whole stream is checked from its start: hear ik_node before it can move.
        assert peer.spin_until(lambda: self.q is not None and self.faults
                               and self.poses.get_subscription_count() > 0
                               and commands.get_publisher_count() > 0
                               and self.status is not None, 30.0)

    def _on_command(self, message: JointState) -> None:
        stamp = message.header.stamp
        self.stamps.append((stamp.sec - self.epoch) + stamp.nanosec * 1e-9)
        self.commands.append(np.array(message.position))
        self.velocities.append(np.array(message.velocity))

    def _on_state(self, message: JointState) -> None:
        self.q = np.array(message.position)

    def _on_diagnostics(self, message: DiagnosticArray) -> None:
        self.status = ik_status(message, self.status)

    def send_pose(self, T_base_target: np.ndarray) -> None:
        """Publish a full-pose target in the base frame."""
        self.poses.publish(pose_target(T_base_target, self.chain.base_link))

    def send_point(self, position: np.ndarray) -> None:
        """Publish a point target (x, y, z) in the base frame."""
        message = PointStamped()
        message.header.frame_id = self.chain.base_link
        message.point.x, message.point.y, message.point.z = (float(v) for v in position)
        self.points.publish(message)

    def error(self, T_base_target: np.ndarray, rows=range(6)) -> float:
        """Return the larger of the position and rotation error on ``rows``."""
        e_p, e_o = pose_error(T_base_target, self.kinematics.tip_pose(self.q))
        error = np.concatenate([e_p, e_o])[list(rows)]
        return float(max(np.linalg.norm(error[:3]), np.linalg.norm(error[3:])
                         if len(error) > 3 else 0.0))

    def check_stream(self, start: np.ndarray, beyond: np.ndarray = None) -> None:
        """
        Check no fault and the whole command stream (from rest at ``start``) in limits.

        A gap between stamps longer than the node's stall gap (``MAX_STEP_PERIODS``) is a
        stall of a process on a busy machine, which the node must have reported: the arm
        held the last command meanwhile, so the stream after it is checked from rest there.
        A stall mid-motion stops a position-streamed arm dead (no command can bridge it;
        joint_trajectory horizons do): where every fault of the strict arm came right after
        a stall the node reported, the machine, not the node, made it, and the test is
        skipped, saying so.
        """
        limits = self.limits
        period = 0.01
        first_step = np.abs(self.commands[0] - start).max()
        assert first_step < 1e-3, f'the first command heard is {first_step:.3g} from the start'
        upper = limits.upper if beyond is None else limits.upper + beyond
        peaks, stalls = stream_peaks_from_rest(self.stamps, self.commands, start, period,
                                               MAX_STEP_PERIODS * period, limits.lower, upper)
        if stalls:
            assert 'the control loop stalled for' in self.processes[1].output()
            self.skip_if_faulted_by_a_stall()
        ratios = peaks.ratios(VELOCITY_SCALE * limits.velocity, limits.acceleration,
                              limits.jerk)
        times = np.array([self.stamps[0] - 2 * period, self.stamps[0] - period] + self.stamps)
        positions = np.array([start, start] + self.commands)
        assert np.all(ratios <= 1.0 + 1e-6), (ratios, self._worst_step(times, positions),
                                              self.processes[1].output()[-3000:])
        assert np.all(peaks.beyond_bounds <= 1e-12)
        assert self.faults[-1] == 0, self.processes[0].output()

    def skip_if_faulted_by_a_stall(self) -> None:
        """Skip the test, saying so, where each fault of the strict arm followed a stall."""
        reason = stall_fault_reason(self.processes[1].output(), self.processes[0].output())
        if reason:
            pytest.skip(reason)

    def wait_for(self, condition, timeout: float) -> None:
        """Wait for ``condition()``; fail after ``timeout`` s, or skip after a stall fault."""
        if not self.peer.spin_until(condition, timeout):
            self.skip_if_faulted_by_a_stall()
            raise AssertionError(f'not within {timeout} s: {self.status}')

    def _worst_step(self, times: np.ndarray, positions: np.ndarray) -> str:
        """Describe the command step with the largest speed / limit (for a failure)."""
        speeds = np.abs(divided_differences(times, positions, 1)) / (
            VELOCITY_SCALE * self.limits.velocity)
        k = int(np.argmax(speeds.max(axis=1)))  # samples k, k + 1 (2: the first command)
        return (f'worst step: into command {k - 1} of {len(self.commands)} (stamps '
                f'{times[k]:.4f} -> {times[k + 1]:.4f} s), speed/limit '
                f'{speeds[k].max():.3g}, from {positions[k]} to {positions[k + 1]}')

    def close(self) -> None:
        """Stop both processes."""
        for process in self.processes:
            process.stop()


def bundled_loop(peer, processes, folder, arm_name: str, initial=None, **options) -> Loop:
    """Return a Loop of a bundled arm with its published limits."""
    arm = BUNDLED_ARMS[arm_name]
    start = np.array(arm.home) if initial is None else initial
    return Loop(peer, processes, folder, bundled_urdf_path(arm_name), arm.base_link,
                arm.tip_link, start,
                bundled_joint_limits_path(arm_name), **options)


PANDA_GOAL_OFFSET = np.array([0.5, 0.3, -0.4, 0.4, 0.5, -0.3, 0.6])


@pytest.mark.parametrize('driver', [{'state_delay': 0.1}, {'state_rate': 10.0}],
                         ids=['100ms_late', '10Hz'])
@pytest.mark.parametrize('mode', ['solve', 'servo'])
def test_late_or_slow_joint_states_still_reach_smoothly(peer, processes, tmp_path, driver,
                                                        mode):
    """
    Check a Panda driver 100 ms late or at 10 Hz: reached, no lag braking, no fault.

    Late joint states alone never read as a lagging arm. A stall of the node's process on a
    busy machine may: the driver moved the last JointState command on with its velocity
    meanwhile (0.1 s, as drivers do), and the node, resuming from that command at rest,
    then measured the arm 0.155 rad beyond it (once in CI). Braking is right then; it
    must follow a stall the node reported.
    """
    loop = bundled_loop(peer, processes, tmp_path, 'panda', sim=driver, ik={'mode': mode})
    try:
        home = np.array(BUNDLED_ARMS['panda'].home)
        T_base_target = loop.kinematics.tip_pose(home + PANDA_GOAL_OFFSET)
        loop.send_pose(T_base_target)
        loop.wait_for(lambda: loop.error(T_base_target) < 1e-3, 30.0)
        loop.check_stream(home)
        output = loop.processes[1].output()
        lag_at = output.find('lags the commands')
        if lag_at >= 0:
            stall_at = output.find('the control loop stalled for')
            assert 0 <= stall_at < lag_at, output[-3000:]
    finally:
        loop.close()


def test_joint_states_stopping_then_resuming(peer, processes, tmp_path):
    """Check an outage mid-motion: brake to rest and hold (ERROR), then resume, no fault."""
    loop = bundled_loop(peer, processes, tmp_path, 'ur5', ik={'joint_state_timeout': 0.2})
    try:
        home = np.array(BUNDLED_ARMS['ur5'].home)
        goal = home + np.array([1.2, 0.4, -0.5, 0.6, 0.8, -1.0])
        T_base_target = loop.kinematics.tip_pose(goal)
        loop.send_pose(T_base_target)
        assert peer.spin_until(lambda: loop.velocities and np.abs(
            loop.velocities[-1]).max() > 0.5, 10.0)
        assert peer.set_parameter('/sim_arm', 'publish_states', False).successful
        assert peer.spin_until(lambda: loop.status is not None
                               and 'stale' in loop.status.message, 5.0)
        assert peer.spin_until(lambda: np.all(loop.velocities[-1] == 0.0), 5.0)
        held = len(loop.commands)
        assert peer.spin_until(lambda: len(loop.commands) > held + 20, 5.0)
        assert all(np.array_equal(q, loop.commands[held - 1]) for q in loop.commands[held:])
        assert loop.error(T_base_target) > 1e-2  # stopped short of the target
        assert peer.set_parameter('/sim_arm', 'publish_states', True).successful
        loop.wait_for(lambda: loop.error(T_base_target) < 1e-3, 30.0)
        loop.check_stream(home)
    finally:
        loop.close()


@pytest.mark.parametrize('mode', ['solve', 'servo'])
def test_non_finite_and_huge_targets_are_refused_mid_motion(peer, processes, tmp_path, mode):
    """
    Check NaN, inf and 1e308 targets while moving: warned, ignored, no fault.

    The last refused (inf) stands on /diagnostics as an ERROR with its reason while the arm
    goes on to the good target; its log line is not lost to the throttle.
    """
    loop = bundled_loop(peer, processes, tmp_path, 'ur5', ik={'mode': mode})
    try:
        home = np.array(BUNDLED_ARMS['ur5'].home)
        T_base_target = loop.kinematics.tip_pose(home + np.array([0.6, 0.3, -0.4, 0.3,
                                                                  0.4, -0.5]))
        loop.send_pose(T_base_target)
        assert peer.spin_until(lambda: len(loop.commands) > 10, 10.0)
        for position in ((1e308, 0.0, 0.5), (math.nan, 0.0, 0.5), (math.inf, 1.0, 0.5)):
            bad = PoseStamped()
            bad.header.frame_id = 'base_link'
            bad.pose.position.x, bad.pose.position.y, bad.pose.position.z = position
            bad.pose.orientation.w = 1.0
            loop.poses.publish(bad)
            peer.spin_until(lambda: False, 0.05)
        loop.wait_for(lambda: loop.error(T_base_target) < 1e-3, 30.0)
        assert all(np.all(np.isfinite(q)) for q in loop.commands)
        loop.check_stream(home)
        refused = 'target ignored: target position is not finite: [inf, 1.0, 0.5]'
        loop.wait_for(lambda: loop.status is not None and loop.status.message.startswith(
            f'newest input refused: {refused}'), 10.0)
        assert loop.status.level == DiagnosticStatus.ERROR
        assert status_values(loop.status)['refused_input'] == refused
        # One warning per kind of problem per 2 s, the newest held back logged once its kind
        # is due again: NaN and inf share one kind (not finite), a coordinate beyond 10 km
        # has its own. Only the newest target waits for a cycle: on a busy machine two bad
        # ones may arrive within one cycle and the first is never read; the last one (inf)
        # always is, and is logged at once or up to 2 s later.
        loop.wait_for(lambda: refused in loop.processes[1].output(), 10.0)
        output = loop.processes[1].output()
        assert output.count('target ignored: target position is not finite') <= 2
        assert output.count('is beyond 10000 m from the frame origin') <= 1
    finally:
        loop.close()


def test_a_joint_reported_past_its_limit_is_brought_inside(peer, processes, tmp_path):
    """
    Check a UR5 elbow encoder 3 mrad past its limit: no jump, moved inside, no fault.

    The elbow at pi folds the forearm onto the upper arm, a self-collision: collision
    checking is disabled here, this is about the joint limit alone.
    """
    chain_upper = load_bundled_chain('ur5').upper[2]  # the elbow's limit, pi
    start = np.array(BUNDLED_ARMS['ur5'].home)
    start[2] = chain_upper + 0.003
    loop = bundled_loop(peer, processes, tmp_path, 'ur5', initial=start,
                        ik={'collision_checking': 'disabled'})
    try:
        goal = np.array(BUNDLED_ARMS['ur5'].home) + np.array([0.3, 0.2, 0.0, 0.2, 0.3, 0.1])
        T_base_target = loop.kinematics.tip_pose(goal)
        loop.send_pose(T_base_target)
        loop.wait_for(lambda: loop.error(T_base_target) < 1e-3, 30.0)
        assert loop.commands[0][2] > chain_upper  # the stream starts where the arm is
        assert loop.commands[-1][2] <= chain_upper
        loop.check_stream(start, beyond=np.array([0, 0, 0.003, 0, 0, 0]))
    finally:
        loop.close()


@pytest.mark.parametrize('mode', ['solve', 'servo'])
def test_a_continuous_joint_goes_the_short_way_across_pi(peer, processes, tmp_path, mode):
    """Check a wheel at 3.0 rad sent to -3.0 rad: +0.28 rad through pi, not -6 rad back."""
    urdf = tmp_path / 'wheel.urdf'
    urdf.write_text(POLAR_ARM_URDF)
    loop = Loop(peer, processes, tmp_path, str(urdf), 'base', 'tip', np.array([3.0, 0.2]),
                task_axes='x y', ik={'mode': mode})
    try:
        T_base_target = loop.kinematics.tip_pose(np.array([-3.0, 0.3]))
        loop.send_point(T_base_target[:3, 3])
        loop.wait_for(lambda: loop.error(T_base_target, rows=(0, 1)) < 1e-3, 30.0)
        wheel = np.array([q[0] for q in loop.commands])
        assert wheel.min() >= 3.0 - 1e-6 and wheel.max() <= 2 * math.pi - 3.0 + 1e-3
        loop.check_stream(np.array([3.0, 0.2]))
    finally:
        loop.close()


def test_a_twist_stream_drives_the_tool_straight_then_stops_at_rest(
        peer, processes, tmp_path):
    """Check ~/delta_twist_cmds at 50 Hz: a straight line, then rest within braking distance."""
    loop = bundled_loop(peer, processes, tmp_path, 'ur5', ik={'jog_timeout': 0.1})
    try:
        home = np.array(BUNDLED_ARMS['ur5'].home)
        twists = peer.node.create_publisher(TwistStamped, '/ros_ik/delta_twist_cmds', 1)
        assert peer.spin_until(lambda: twists.get_subscription_count() > 0, 10.0)
        message = TwistStamped()
        message.header.frame_id = 'base_link'
        message.twist.linear.x, message.twist.linear.z = 0.05, -0.03
        sending = [True]
        peer.node.create_timer(0.02, lambda: sending[0] and twists.publish(message))
        start_tip = loop.kinematics.tip_pose(loop.q)[:3, 3]
        assert peer.spin_until(lambda: len(loop.commands) > 150, 10.0)
        sending[0] = False
        # The jog's peak speed per joint: a joint nearly still at this instant may still
        # speed up a little while the last twists are taken.
        q_stopped = loop.commands[-1]
        v_stopped = np.abs(np.array(loop.velocities)).max(axis=0)
        assert peer.spin_until(lambda: np.all(loop.velocities[-1] == 0.0), 5.0)
        # Within the deceleration distance: at most jog_timeout (0.1 s) plus the last twist's
        # period and some latency (0.07 s) at the jog speed, then a jerk-limited stop, no
        # faster than that speed and no longer than v/a + a/j.
        limits = loop.limits
        stop = v_stopped * (0.17 + v_stopped / limits.acceleration
                            + limits.acceleration / limits.jerk)
        assert np.all(np.abs(loop.commands[-1] - q_stopped) <= stop + 1e-9), (
            np.abs(loop.commands[-1] - q_stopped), stop)
        tips = np.array([loop.kinematics.tip_pose(q)[:3, 3] for q in loop.commands])
        direction = np.array([0.05, 0.0, -0.03]) / np.linalg.norm([0.05, 0.0, -0.03])
        offsets = tips - start_tip
        deviation = np.linalg.norm(offsets - np.outer(offsets @ direction, direction), axis=1)
        print(f'tool path deviation from the line: {1e3 * deviation.max():.3f} mm over '
              f'{1e3 * (offsets[-1] @ direction):.1f} mm')
        assert deviation.max() < 2e-3 and offsets[-1] @ direction > 0.05
        loop.check_stream(home)
    finally:
        loop.close()


def test_jogging_through_a_wrist_singularity_over_dds(peer, processes, tmp_path):
    """Check a twist stream through the UR5's wrist singularity: no halt, no fault, limits."""
    kinematics = ChainKinematics(load_bundled_chain('ur5'))
    q_singular = np.array([0.2, -1.3, 1.6, -1.9, 0.0, 0.3])  # q5 = 0
    T_singular = kinematics.tip_pose(q_singular)
    direction = T_singular[:3, :3] @ np.array([0.0, 1.0, 0.0])
    T_start = T_singular.copy()
    T_start[:3, 3] -= 0.1 * direction
    start = IkSolver(kinematics).solve(T_start, q_singular + 0.05)
    assert start.success
    loop = bundled_loop(peer, processes, tmp_path, 'ur5', initial=start.q)
    try:
        twists = peer.node.create_publisher(TwistStamped, '/ros_ik/delta_twist_cmds', 1)
        assert peer.spin_until(lambda: twists.get_subscription_count() > 0, 10.0)
        message = TwistStamped()
        message.header.frame_id = 'base_link'
        message.twist.linear.x, message.twist.linear.y, message.twist.linear.z = (
            float(v) for v in 0.05 * direction)
        peer.node.create_timer(0.02, lambda: twists.publish(message))
        assert peer.spin_until(lambda: len(loop.commands) > 400, 15.0)
        tips = np.array([kinematics.tip_pose(q)[:3, 3] for q in loop.commands])
        progress = (tips - tips[0]) @ direction
        assert np.all(np.diff(progress[50::25]) > 0.0)  # never halts
        assert progress[-1] > 0.15  # through the singular pose and past it
        loop.check_stream(start.q)
    finally:
        loop.close()


def test_a_five_joint_arm_reaches_points_ok_and_takes_full_poses_to_the_closest(
        peer, processes, tmp_path):
    """
    Check the SO-101-class arm over DDS in its recommended axes, then on a full pose.

    In task_axes x y z every reachable point is reached with OK status and no singularity
    warning; restarted on a full pose, the node says at start-up which axes to choose and
    takes an unreachable pose to the closest one (WARN, not ERROR), every command within
    the limits.
    """
    arm = BUNDLED_ARMS['so101']
    home = np.array(arm.home)
    loop = bundled_loop(peer, processes, tmp_path, 'so101', task_axes='x y z')
    try:
        rng = np.random.default_rng(8)
        chain = loop.chain
        for goal in rng.uniform(0.7 * chain.lower, 0.7 * chain.upper, size=(3, 5)):
            T_base_target = loop.kinematics.tip_pose(goal)
            loop.send_point(T_base_target[:3, 3])
            loop.wait_for(lambda: loop.error(T_base_target, rows=(0, 1, 2)) < 1e-3
                          and loop.status.message == 'target reached', 30.0)
            assert loop.status.level == DiagnosticStatus.OK  # no singularity warning either
        loop.check_stream(home)
        assert 'task_axes' not in loop.processes[1].output()
    finally:
        loop.close()
    loop = bundled_loop(peer, processes, tmp_path, 'so101', task_axes='x y z rx ry rz')
    try:
        T_base_target = loop.kinematics.tip_pose(home + np.array([0.3, 0.2, -0.3, 0.2, 0.4]))
        T_base_target[:3, :3] = T_base_target[:3, :3] @ rpy_to_matrix(0.0, 0.0, 0.3)
        loop.send_pose(T_base_target)
        loop.wait_for(lambda: loop.status is not None and 'closest pose' in loop.status.message
                      and len(loop.velocities) > 0 and np.all(loop.velocities[-1] == 0.0), 30.0)
        assert loop.status.level == DiagnosticStatus.WARN
        output = loop.processes[1].output()
        assert 'task_axes:="x y z"' in output and 'IK failed' not in output
        loop.check_stream(home)
    finally:
        loop.close()
