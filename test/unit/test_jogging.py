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

"""Jogging through the ROS-free controller: twist frames, joint jogs, timeout, priority."""

from typing import List

from geometry_msgs.msg import TwistStamped
import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from ros_ik.control.controller import IkController
from ros_ik.control.cycle_types import Command
from ros_ik.node.messages import vector

from ros_ik_testing.reach_loop import bundled_controller
from test_controller import assert_commands_within_limits, pose_of, run_loop

UR5_START = np.array([0.3, -1.2, 1.4, -1.6, -1.3, 0.4])
PERIOD = 0.01


def jog_loop(controller: IkController, q: np.ndarray, seconds: float, start: float,
             send) -> List[Command]:
    """Cycle a perfect arm for ``seconds``, calling ``send(now)`` before each cycle."""
    names = controller.arm.chain.joint_names
    commands = []
    for index in range(int(round(seconds / PERIOD))):
        now = start + index * PERIOD
        send(now)
        controller.update_joint_state(names, q, now)
        command = controller.cycle(now).command
        commands.append(command)
        q = command.q
    return commands


@pytest.mark.parametrize('frame', ['base_link', 'tool0', 'forearm_link', ''])
def test_a_twist_moves_the_tool_along_it_in_its_frame(frame):
    """Check the tool's velocity (finite differences of FK) is R_base_frame v, in any frame."""
    controller = bundled_controller('ur5')
    kinematics = controller.arm.kinematics
    v = np.array([0.03, -0.02, 0.04])
    commands = jog_loop(controller, UR5_START, 1.5, 0.0,
                        lambda now: controller.set_twist(frame, v, (0, 0, 0), now))
    q_before, q_after = commands[-11].q, commands[-1].q
    frame_name = frame or 'tool0'
    R = kinematics.frame_pose(q_before, frame_name)[:3, :3]
    measured = (kinematics.tip_pose(q_after)[:3, 3]
                - kinematics.tip_pose(q_before)[:3, 3]) / (10 * PERIOD)
    np.testing.assert_allclose(measured, R @ v, atol=2e-3)
    angular = kinematics.tip_pose(q_after)[:3, :3] @ kinematics.tip_pose(q_before)[:3, :3].T
    assert np.arccos(np.clip((np.trace(angular) - 1) / 2, -1, 1)) < 1e-3  # no rotation
    assert_commands_within_limits(controller, commands, UR5_START)
    assert controller.report().values['input'].startswith('jog (twist')


def test_joint_jog_moves_the_named_joints_only_and_slides_to_a_limit():
    """Check a joint jog: named joints move at their speed, a joint at its limit stops."""
    controller = bundled_controller('ur5')
    chain = controller.arm.chain
    start = UR5_START.copy()
    start[2] = chain.upper[2] - 0.05
    commands = jog_loop(controller, start, 2.0, 0.0, lambda now: controller.set_joint_jog(
        ['shoulder_pan_joint', 'elbow_joint'], [0.3, 0.5], now))
    last = commands[-1]
    assert last.velocity[0] == pytest.approx(0.3, abs=1e-6)
    assert last.q[2] == pytest.approx(chain.upper[2], abs=1e-9) and last.velocity[2] == 0.0
    np.testing.assert_allclose(last.q[[1, 3, 4, 5]], start[[1, 3, 4, 5]], atol=1e-12)
    assert_commands_within_limits(controller, commands, start)


def test_a_stream_that_stops_brings_the_arm_to_rest_within_the_limits():
    """Check jog_timeout: commands stop, the arm decelerates under the limits and rests."""
    controller = bundled_controller('ur5', jog_timeout=0.1)
    commands = jog_loop(controller, UR5_START, 1.0, 0.0, lambda now: controller.set_twist(
        'base_link', (0.1, 0.0, 0.0), (0.0, 0.0, 0.3), now))
    assert np.abs(commands[-1].velocity).max() > 0.05
    rest = jog_loop(controller, commands[-1].q, 2.0, 1.0, lambda now: None)
    assert np.all(rest[-1].velocity == 0.0)
    assert controller.status.message.startswith('jog over')
    assert_commands_within_limits(controller, commands + rest, UR5_START)


def test_the_newest_input_drives_the_arm():
    """Check priority: a jog takes over from a target, a new target from the jog."""
    controller = bundled_controller('ur5')
    names = controller.arm.chain.joint_names
    T_goal = controller.arm.kinematics.tip_pose(UR5_START + 0.2)
    controller.set_target('', *pose_of(T_goal), 'pose')
    controller.update_joint_state(names, UR5_START, 0.0)
    controller.cycle(0.0)
    assert controller.report().values['input'] == 'target'
    controller.set_twist('', (0.0, 0.0, 0.05), (0.0, 0.0, 0.0), 0.01)
    controller.cycle(0.01)
    assert controller.report().values['input'] == 'jog (twist in tool0)'
    controller.set_target('', *pose_of(T_goal), 'pose')
    q, _ = run_loop(controller, controller.cycle(0.02).command.q, 5.0, start=0.03)
    assert controller.report().values['input'] == 'target'
    assert controller.report().message == 'target reached'


def test_a_twist_carrying_python_ints_bits_is_refused_and_the_jog_goes_on():
    """
    Check ``linear.z = 1`` (an int) through rclpy is refused, not jogged at 5e-324 m/s.

    rclpy's setters take the int (field checks off by default) and serialization writes its
    bits; the running jog keeps its twist and the tool keeps moving along it.
    """
    controller = bundled_controller('ur5')
    kinematics = controller.arm.kinematics
    assert controller.set_twist('base_link', (0.0, 0.0, 0.05), (0.0, 0.0, 0.0), 0.0) == []
    message = TwistStamped()
    message.header.frame_id = 'base_link'
    message.twist.linear.z = 1
    received = deserialize_message(serialize_message(message), TwistStamped)
    if received.twist.linear.z == 1.0:
        pytest.skip('this rclpy serializes an int in a float64 field as its value')

    def send(now: float) -> None:
        notices = controller.set_twist(received.header.frame_id,
                                       vector(received.twist.linear),
                                       vector(received.twist.angular), now)
        assert [notice.key for notice in notices] == ['jog:int_bits']
        assert 'subnormal values [0.0, 0.0, 5e-324, 0.0, 0.0, 0.0]' in notices[0].message
        assert 'write 1.0, not 1' in notices[0].message
    commands = jog_loop(controller, UR5_START, 0.3, 0.01, send)
    rise = kinematics.tip_pose(commands[-1].q)[2, 3] - kinematics.tip_pose(UR5_START)[2, 3]
    assert rise > 0.005  # still the first jog's 0.05 m/s upward, braking after its timeout


def test_jogging_through_a_wrist_singularity_neither_halts_nor_spikes():
    """Check a tool line through the UR5's wrist singularity (q5 = 0): moving, in limits."""
    controller = bundled_controller('ur5')
    kinematics = controller.arm.kinematics
    q_singular = np.array([0.2, -1.3, 1.6, -1.9, 0.0, 0.3])
    direction = kinematics.tip_pose(q_singular)[:3, :3] @ np.array([0.0, 1.0, 0.0])
    solution = controller.arm.solver.solve(
        _shifted(kinematics.tip_pose(q_singular), -0.1 * direction), q_singular + 0.05)
    assert solution.success
    commands = jog_loop(controller, solution.q, 4.0, 0.0, lambda now: controller.set_twist(
        'base_link', 0.05 * direction, (0.0, 0.0, 0.0), now))
    tips = np.array([kinematics.tip_pose(command.q)[:3, 3] for command in commands])
    progress = (tips - tips[0]) @ direction
    assert np.all(np.diff(progress[20::25]) > 0.0)  # never halts
    assert progress[-1] > 0.15  # through the singular pose and past it
    assert_commands_within_limits(controller, commands, solution.q)


def _shifted(T: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Return ``T`` moved by ``offset`` (m, base frame)."""
    shifted = T.copy()
    shifted[:3, 3] += offset
    return shifted


def test_after_the_stream_stops_the_arm_stops_within_the_braking_distance():
    """Check the rest position is where the hardest stop from the jog's last state ends."""
    controller = bundled_controller('ur5', jog_timeout=0.1)
    commands = jog_loop(controller, UR5_START, 1.0, 0.0, lambda now: controller.set_twist(
        'base_link', (0.1, 0.05, 0.0), (0.0, 0.0, 0.0), now))
    last_jog = jog_loop(controller, commands[-1].q, 0.11, 1.0, lambda now: None)[-1]
    brake = controller.stepper.generator(controller.settings).stopping_positions(
        controller.stream.state)
    rest = jog_loop(controller, last_jog.q, 2.0, 1.11, lambda now: None)
    np.testing.assert_allclose(rest[-1].q, brake, atol=1e-9)
    assert np.all(rest[-1].velocity == 0.0)
