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
position_stream_bridge as a process: JointTrajectory in, the controller's setpoint out.

The test plays the arm: it publishes ``joint_states`` at [0, 0], where the stream must
start.
"""

import time

from builtin_interfaces.msg import Duration
import numpy as np
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.node.jtc_emulation import JointTrajectoryControllerEmulation
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

TIMEOUT = 30.0  # s: the bridge's start-up and a 1 s trajectory
QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
NAMES = ['a', 'b']
STARTED = "the stream starts at the arm's measured position"


def trajectory(start_ns: int, points, last_velocity: float = 0.0) -> JointTrajectory:
    """
    Return a JointTrajectory starting at ``start_ns`` of (seconds, positions) points.

    Velocities: 0 at the first point, ``last_velocity`` at the last, 0.5 between.
    """
    message = JointTrajectory(joint_names=NAMES)
    message.header.stamp.sec, message.header.stamp.nanosec = divmod(start_ns, 10 ** 9)
    for index, (seconds, positions) in enumerate(points):
        velocity = last_velocity if index == len(points) - 1 else 0.5 if index else 0.0
        message.points.append(JointTrajectoryPoint(
            positions=list(positions), velocities=[velocity] * len(NAMES),
            time_from_start=Duration(sec=int(seconds),
                                     nanosec=int(round(seconds % 1 * 1e9)))))
    return message


def arm_at_rest(peer, positions):
    """Publish the arm's ``joint_states`` at ``positions`` every 10 ms; return the timer."""
    publisher = peer.node.create_publisher(JointState, 'joint_states', 10)
    return peer.node.create_timer(0.01, lambda: publisher.publish(
        JointState(name=NAMES, position=list(positions))))


def publish_until_started(peer, publisher, bridge, horizon) -> JointTrajectory:
    """
    Publish ``horizon(start_ns)`` (starting 1 s ahead) until the bridge starts its stream.

    Until the bridge has heard ``joint_states`` it drops horizons; return the last one
    published. The bridge may have started on the one before (its log line read late, on a
    loaded machine): the last one then replaces it while both still rest at their start.
    """
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        message = horizon(time.time_ns() + 1_000_000_000)
        publisher.publish(message)
        if peer.spin_until(lambda: STARTED in bridge.output(), 0.1):
            return message
    raise AssertionError(f'the stream did not start: {bridge.output()}')


def test_the_stream_is_the_controllers_setpoint_at_each_stamp(peer, processes, tmp_path):
    """Check a JointState stream: every sample on JTC's spline at its stamp, rejects logged."""
    bridge = processes.start('position_stream_bridge', {'rate': 200.0},
                             str(tmp_path / 'bridge.log'))
    stream, arrays = [], []
    peer.node.create_subscription(JointState, 'joint_commands', stream.append, QOS)
    peer.node.create_subscription(Float64MultiArray, 'commands', arrays.append, QOS)
    publisher = peer.node.create_publisher(JointTrajectory, 'joint_trajectory', QOS)
    arm_at_rest(peer, [0.0, 0.0])
    assert peer.spin_until(lambda: publisher.get_subscription_count() > 0, TIMEOUT)
    message = publish_until_started(peer, publisher, bridge, lambda start_ns: trajectory(
        start_ns, [(0.0, [0.0, 0.0]), (0.5, [0.2, -0.1]), (1.0, [0.4, -0.2])]))
    assert peer.spin_until(lambda: stream and abs(stream[-1].position[0] - 0.4) < 1e-12,
                           TIMEOUT)
    publisher.publish(trajectory(time.time_ns(), [(0.1, [0.5, 0.5])], last_velocity=1.0))
    assert peer.spin_until(lambda: 'rejected trajectory: velocity of last trajectory point'
                           in bridge.output(), TIMEOUT), bridge.output()
    reference = JointTrajectoryControllerEmulation(NAMES, [0.0, 0.0], 0)
    assert reference.receive(message, 0.0) is None
    reference.update(0.0)
    moving = [sample for sample in stream if 0.0 < sample.position[0] < 0.4]
    assert len(moving) > 50  # 1 s at 200 Hz, some late
    for sample in moving:
        assert list(sample.name) == NAMES
        stamp = sample.header.stamp.sec + sample.header.stamp.nanosec * 1e-9
        setpoint = reference.update(stamp)
        np.testing.assert_allclose(sample.position, setpoint.position, atol=1e-6)
        np.testing.assert_allclose(sample.velocity, setpoint.velocity, atol=1e-5)
    stamps = [sample.header.stamp.sec + sample.header.stamp.nanosec * 1e-9
              for sample in stream]
    assert np.all(np.diff(stamps) > 0.0)
    np.testing.assert_allclose(stream[-1].position, [0.4, -0.2], atol=1e-12)
    assert arrays == []  # the JointState stream only


def test_the_stream_starts_only_at_the_arm(peer, processes, tmp_path):
    """A horizon starting 0.3 rad from the arm is dropped; one at the arm starts the stream."""
    bridge = processes.start('position_stream_bridge', {'command_type': 'float64_multi_array'},
                             str(tmp_path / 'bridge.log'))
    arrays = []
    peer.node.create_subscription(Float64MultiArray, 'commands', arrays.append, QOS)
    publisher = peer.node.create_publisher(JointTrajectory, 'joint_trajectory', QOS)
    arm_at_rest(peer, [0.3, 0.0])
    assert peer.spin_until(lambda: publisher.get_subscription_count() > 0, TIMEOUT)
    deadline = time.monotonic() + TIMEOUT
    while 'dropped, waiting for one that starts at the arm' not in bridge.output():
        assert time.monotonic() < deadline, bridge.output()
        publisher.publish(trajectory(time.time_ns(), [(0.0, [0.0, 0.0]), (1.0, [0.0, 0.0])]))
        peer.spin_for(0.1)
    assert 'would start the stream 0.3 from the arm on a' in bridge.output(), bridge.output()
    assert STARTED not in bridge.output() and arrays == []
    publish_until_started(peer, publisher, bridge, lambda start_ns: trajectory(
        start_ns, [(0.0, [0.3, 0.0]), (1.0, [0.5, 0.0])]))
    assert peer.spin_until(lambda: arrays and abs(arrays[-1].data[0] - 0.5) < 1e-12, TIMEOUT)
    first = np.array(arrays[0].data)
    np.testing.assert_allclose(first, [0.3, 0.0], atol=1e-9)  # the stream starts at the arm


def test_a_restart_starts_the_stream_again_at_the_arm(peer, processes, tmp_path):
    """
    A horizon that does not continue the stream starts it again at the arm, or is dropped.

    The stream holds [0, 0]; a horizon at [0.8, 0] with the arm still at [0, 0] is dropped
    (the stream stays); with the arm measured at [0.3, 0] (it stopped away from the
    commands) a horizon from there to [0.5, 0] starts the stream again at [0.3, 0], with
    no sample in between (before, JTC's spline swept there within milliseconds).
    """
    bridge = processes.start('position_stream_bridge', {'command_type': 'float64_multi_array'},
                             str(tmp_path / 'bridge.log'))
    arrays = []
    peer.node.create_subscription(Float64MultiArray, 'commands', arrays.append, QOS)
    publisher = peer.node.create_publisher(JointTrajectory, 'joint_trajectory', QOS)
    measured = arm_at_rest(peer, [0.0, 0.0])
    assert peer.spin_until(lambda: publisher.get_subscription_count() > 0, TIMEOUT)
    publish_until_started(peer, publisher, bridge, lambda start_ns: trajectory(
        start_ns, [(0.0, [0.0, 0.0]), (1.0, [0.0, 0.0])]))
    assert peer.spin_until(lambda: len(arrays) > 10, TIMEOUT)
    publisher.publish(trajectory(time.time_ns(), [(0.0, [0.8, 0.0]), (1.0, [0.8, 0.0])]))
    assert peer.spin_until(lambda: 'would start the stream 0.8 from the arm on a'
                           in bridge.output(), TIMEOUT), bridge.output()
    held = len(arrays)
    assert peer.spin_until(lambda: len(arrays) > held + 10, TIMEOUT)
    assert all(sample.data[0] == 0.0 for sample in arrays)  # the stream held its horizon
    measured.cancel()
    arm_at_rest(peer, [0.3, 0.0])
    peer.spin_for(0.1)  # the bridge hears the arm's new position
    publisher.publish(trajectory(time.time_ns(), [(0.0, [0.3, 0.0]), (0.5, [0.5, 0.0])]))
    assert peer.spin_until(lambda: arrays and abs(arrays[-1].data[0] - 0.5) < 1e-12, TIMEOUT)
    assert bridge.output().count(STARTED) == 2, bridge.output()
    moved = [sample.data[0] for sample in arrays if sample.data[0] != 0.0]
    assert moved[0] == pytest.approx(0.3, abs=1e-3)  # straight to the arm, no sweep
    assert np.all(np.diff(moved) >= -1e-12) and min(moved) >= 0.3 - 1e-9
