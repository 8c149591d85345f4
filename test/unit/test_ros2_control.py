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
JointTrajectory horizons and the emulated joint_trajectory_controller (JTC) they feed.

The emulation against closed forms and JTC's validation rules; the node's real messages
(:mod:`ros_ik.node.serialized_commands`) from the controller in closed loop with it on
a simulated clock, through delivery jitter, lost messages and a stall of the node.
"""

from typing import List

from builtin_interfaces.msg import Duration, Time
from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from ros_ik.control.trajectory_horizon import HOLD
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS
from ros_ik.node.jtc_emulation import JointTrajectoryControllerEmulation
from ros_ik.node.messages import joint_trajectory_command
from ros_ik.trajectory.jtc_spline import spline
from ros_ik_testing.reach_loop import bundled_controller
from ros_ik_testing.ros2_control_loop import (EPOCH_NS, LoopFaults, run_random_targets,
                                              setpoint_peaks, wall_speed)
from test_controller import pose_of
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

# The goals for the setpoint JTC samples: velocity, acceleration, jerk / limit.
SETPOINT_GOALS = np.array([1.05, 1.1, 2.0])
NAMES = ['a', 'b']


def trajectory(points: List[tuple], stamp_seconds: float = 0.0, names=NAMES,
               ) -> JointTrajectory:
    """Return a JointTrajectory of (time_from_start, positions, velocities) points."""
    message = JointTrajectory(joint_names=list(names))
    stamp_ns = EPOCH_NS + int(round(stamp_seconds * 1e9)) if stamp_seconds else 0
    message.header.stamp = Time(sec=stamp_ns // 10 ** 9, nanosec=stamp_ns % 10 ** 9)
    for offset, positions, velocities in points:
        nanoseconds = int(round(offset * 1e9))
        message.points.append(JointTrajectoryPoint(
            positions=list(positions), velocities=list(velocities),
            time_from_start=Duration(sec=nanoseconds // 10 ** 9,
                                     nanosec=nanoseconds % 10 ** 9)))
    return message


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-3.0, 3.0), min_size=6, max_size=6), st.floats(0.01, 2.0))
def test_the_quintic_meets_both_end_states_and_is_a_polynomial_of_degree_five(values, T):
    """Check position, velocity, acceleration at both ends, and a vanishing 6th difference."""
    p0, v0, a0, p1, v1, a1 = (np.array([value]) for value in values)
    start, end = spline(0.0, (p0, v0, a0), T, (p1, v1, a1), 0.0), spline(
        0.0, (p0, v0, a0), T, (p1, v1, a1), T)
    for got, expected in zip((start.position, start.velocity, start.acceleration,
                              end.position, end.velocity, end.acceleration), values):
        assert got[0] == pytest.approx(expected, abs=1e-9 * max(1.0, 1.0 / T ** 2))
    samples = np.array([spline(0.0, (p0, v0, a0), T, (p1, v1, a1), t).position[0]
                        for t in np.linspace(0.0, T, 7)])
    sixth = np.diff(samples, 6)[0]
    assert abs(sixth) <= 1e-9 * max(1.0, np.abs(samples).max())
    velocity = spline(0.0, (p0, v0, a0), T, (p1, v1, a1), 0.3 * T).velocity[0]
    h = 1e-6 * T
    difference = (spline(0.0, (p0, v0, a0), T, (p1, v1, a1), 0.3 * T + h).position[0]
                  - spline(0.0, (p0, v0, a0), T, (p1, v1, a1), 0.3 * T - h).position[0]) / (
                      2 * h)
    assert velocity == pytest.approx(difference, rel=1e-5, abs=1e-5 / T)


def test_the_cubic_and_the_linear_interpolation_of_points_without_derivatives():
    """Points with velocities only: Hermite cubic; positions only: a straight line."""
    cubic = spline(0.0, (np.array([0.0]), np.array([0.0]), None), 2.0,
                   (np.array([1.0]), np.array([0.0]), None), 1.0)
    assert cubic.position[0] == pytest.approx(0.5) and cubic.velocity[0] == pytest.approx(0.75)
    line = spline(0.0, (np.array([0.0]), None, None), 2.0, (np.array([1.0]), None, None), 0.5)
    assert line.position[0] == pytest.approx(0.25) and line.velocity[0] == pytest.approx(0.5)


@pytest.mark.parametrize('message, reason', [
    (trajectory([(0.1, [0.0], [0.0])], names=['a']), 'do not match the controller joints'),
    (trajectory([(0.1, [0.0, 0.0], [0.0, 0.0])], names=['a', 'c']), 'incoming joint c'),
    (trajectory([]), 'empty trajectory'),
    (trajectory([(0.1, [0.0, 0.0], [0.0, 0.1])]), 'velocity of last trajectory point of '
     'joint b is not zero'),
    (trajectory([(0.1, [0.0, 0.0], [0.0, 0.0])], stamp_seconds=5.0), 'ends in the past'),
    (trajectory([(0.1, [0.0, 0.0], [0.0, 0.0]), (0.1, [0.1, 0.0], [0.0, 0.0])]),
     'not strictly increasing'),
    (trajectory([(0.1, [0.0, 0.0], [0.0])]), 'velocities sizes'),
])
def test_jtc_rejects_what_validate_trajectory_msg_rejects(message, reason):
    """Check each rule of JTC's validation with its default parameters."""
    controller = JointTrajectoryControllerEmulation(NAMES, np.zeros(2), EPOCH_NS)
    assert reason in controller.receive(message, now=10.0)
    assert controller.update(10.0).position.tolist() == [0.0, 0.0]  # still holding


def test_jtc_takes_a_trajectory_at_the_next_update_in_its_joint_order_and_holds_the_end():
    """Check replacement at the update, reordered joints, the spline, the hold after it."""
    controller = JointTrajectoryControllerEmulation(NAMES, np.zeros(2), EPOCH_NS)
    message = trajectory([(0.0, [0.0, 0.0], [0.0, 0.0]), (1.0, [2.0, 1.0], [0.0, 0.0])],
                         stamp_seconds=1.0, names=['b', 'a'])
    assert controller.receive(message, now=1.0) is None
    assert controller.setpoint.position.tolist() == [0.0, 0.0]  # not before the update
    assert controller.update(1.5).position == pytest.approx([0.5, 1.0])  # cubic midpoint
    assert controller.update(3.0).position == pytest.approx([1.0, 2.0])
    assert controller.update(4.0).velocity == pytest.approx([0.0, 0.0])


def test_horizons_agree_on_their_overlap_start_before_the_clock_and_end_at_rest():
    """Consecutive messages of a moving UR5 name the same instants alike; JTC takes all."""
    controller = bundled_controller('ur5', command_type='joint_trajectory')
    names = controller.arm.chain.joint_names
    home = np.array(BUNDLED_ARMS['ur5'].home)
    controller.set_target('', *pose_of(controller.arm.kinematics.tip_pose(home + 0.5)),
                          'pose')
    jtc = JointTrajectoryControllerEmulation(names, home, EPOCH_NS)
    previous, previous_time, first_time, now = None, 0.0, 0.0, 0.0
    for _ in range(60):
        controller.update_joint_state(names, jtc.update(now).position, now)
        command = controller.cycle(now).command
        horizon = command.horizon
        assert np.all(np.diff(horizon.times) >= 0.5e-6)  # distinct nanosecond stamps
        # The first messages start at the first command, ahead of the clock (JTC holds and
        # splines to it from where it is, at rest there); once the clock has passed it,
        # each message starts before the clock (JTC is inside it whenever it arrives).
        first_time = command.time if previous is None else first_time
        assert horizon.times[0] <= max(now, first_time)
        assert command.time == pytest.approx(now + controller.settings.trajectory_lead_time)
        assert np.all(horizon.velocities[-1] == 0.0) and np.all(horizon.accelerations[-1] == 0)
        assert horizon.times[-1] >= command.time + HOLD
        if previous is not None:
            shared = (horizon.times <= previous_time + 1e-12) & (horizon.times >= now - 0.02)
            assert shared.any()
            for index in np.flatnonzero(shared):
                match = np.flatnonzero(np.abs(previous.times - horizon.times[index]) < 1e-12)
                assert match.size == 1
                assert previous.positions[match[0]] == pytest.approx(horizon.positions[index],
                                                                     abs=1e-12)
        assert jtc.receive(joint_trajectory_command(names, command.horizon, EPOCH_NS),
                           now + 0.005) is None
        previous, previous_time, now = horizon, command.time, now + 0.01
    assert np.abs(previous.velocities).max() > 0.1  # it was moving


def run_targets(arm: str, mode: str, command_type: str, controller_rate: float,
                faults: LoopFaults, **settings):
    """Run 3 random reachable targets 6 s apart through the loop; return (loop, reached)."""
    controller = bundled_controller(arm, mode=mode, command_type=command_type, **settings)
    return run_random_targets(controller, np.array(BUNDLED_ARMS[arm].home), controller_rate,
                              faults, targets=3, seconds=6.0)


@pytest.mark.parametrize('arm, mode, rate, jitter', [
    ('ur5', 'solve', 500.0, 0.0), ('panda', 'solve', 1000.0, 0.005),
    ('ur5', 'servo', 1000.0, 0.002), ('panda', 'servo', 500.0, 0.005)])
def test_jtc_executes_the_horizons_within_the_limits_through_jitter(arm, mode, rate, jitter):
    """JTC at 500 Hz / 1 kHz, messages 0-5 ms late, cycles 10 % irregular: 0 rejected."""
    loop, reached = run_targets(arm, mode, 'joint_trajectory', rate,
                                LoopFaults(delivery_jitter=jitter, timer_jitter=0.1))
    assert loop.record.rejections == []
    assert np.all(setpoint_peaks(loop.record, loop.controller) <= SETPOINT_GOALS), \
        setpoint_peaks(loop.record, loop.controller)
    if mode == 'solve':
        assert reached == 3


@pytest.mark.parametrize('mode', ['solve', 'servo'])
@pytest.mark.parametrize('faults', [LoopFaults(delivery_jitter=0.005, lost_every=7),
                                    LoopFaults(delivery_jitter=0.002, stall_at=2.0,
                                               stall_seconds=0.5),
                                    LoopFaults(stall_at=2.0, stall_seconds=0.5),
                                    LoopFaults(stall_at=2.0, stall_seconds=0.5,
                                               stall_in_cycle=True)],
                         ids=['lost', 'stall', 'stall_in_step', 'stall_in_cycle'])
def test_lost_messages_and_a_stall_keep_the_setpoint_smooth_and_never_fast_forward(
        mode, faults):
    """
    Every 7th message lost, or the node stalled 0.5 s mid-motion: limits, speed, reach.

    A stall inside a cycle: its late message is withdrawn (JTC would have jumped from the
    previous message's stop to it).
    """
    loop, reached = run_targets('panda', mode, 'joint_trajectory', 500.0, faults)
    controller = loop.controller
    assert loop.withdrawn == (1 if faults.stall_in_cycle else 0)
    assert loop.record.rejections == []
    assert np.all(setpoint_peaks(loop.record, controller) <= SETPOINT_GOALS)
    scale = controller.settings.velocity_scale
    assert wall_speed(loop.record, controller, 0.0) <= 1.05 * scale
    if mode == 'solve':
        assert reached == 3


def test_a_forward_position_controller_in_step_with_the_node_sees_the_limits():
    """float64_multi_array at the controller's 500 Hz, delivered in step: within limits."""
    loop, reached = run_targets('ur5', 'solve', 'float64_multi_array', 500.0, LoopFaults(),
                                update_rate=500.0)
    assert np.all(setpoint_peaks(loop.record, loop.controller) <= SETPOINT_GOALS)
    assert reached == 3
