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

"""Unit tests of the serialized commands: the bytes read back by rclpy as the messages meant."""

from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from rclpy.serialization import deserialize_message
from ros_ik.control.cycle_types import Command
from ros_ik.control.trajectory_horizon import Horizon
from ros_ik.node.messages import joint_trajectory_command
from ros_ik.node.serialized_commands import command_serializer
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

EPOCH_NS = 1_796_000_000_123_456_789
NAMES = st.lists(st.text(alphabet=st.characters(blacklist_categories=('Cs',),
                                                blacklist_characters='\x00'), max_size=14),
                 min_size=1, max_size=9)
VALUES = st.floats(-1e6, 1e6, allow_nan=False)


def command(q, velocity, time: float, horizon=None) -> Command:
    """Return a Command of positions ``q`` and velocities at ``time`` (s after the epoch)."""
    q = np.array(q, dtype=float)
    return Command(q=q, velocity=np.array(velocity, dtype=float), acceleration=np.zeros_like(q),
                   dt=0.01, time=time, horizon=horizon)


@settings(max_examples=200, deadline=None)
@given(NAMES, st.floats(0.0, 1e5), st.data())
def test_joint_state_bytes_read_back_as_the_command(names, time, data):
    """Check names, stamp, positions and velocities (any names, values, time), no effort."""
    q = data.draw(st.lists(VALUES, min_size=len(names), max_size=len(names)))
    velocity = data.draw(st.lists(VALUES, min_size=len(names), max_size=len(names)))
    serialize = command_serializer('joint_state', names, EPOCH_NS)
    serialize(command(np.zeros(len(names)), np.ones(len(names)), 0.0))  # slots written over
    message = deserialize_message(serialize(command(q, velocity, time)), JointState)
    stamp_ns = EPOCH_NS + int(round(time * 1e9))
    assert (message.header.stamp.sec, message.header.stamp.nanosec) == divmod(stamp_ns, 10 ** 9)
    assert message.header.frame_id == '' and list(message.name) == names
    assert list(message.position) == q and list(message.velocity) == velocity
    assert list(message.effort) == []


@settings(max_examples=100, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=9))
def test_position_array_bytes_read_back_as_the_command(q):
    """Check a Float64MultiArray of the positions, with no dimensions and offset 0."""
    serialize = command_serializer('float64_multi_array', [f'j{i}' for i in range(len(q))],
                                   EPOCH_NS)
    message = deserialize_message(serialize(command(q, np.zeros(len(q)), 3.0)),
                                  Float64MultiArray)
    assert list(message.data) == q
    assert list(message.layout.dim) == [] and message.layout.data_offset == 0


def test_trajectory_bytes_are_rclpy_serializing_the_horizon_message():
    """Check a JointTrajectory command reads back as the message of its horizon."""
    names = ['a', 'b']
    times = np.array([2.0, 2.01, 2.02])
    positions = np.array([[0.0, 1.0], [0.1, 1.1], [0.2, 1.2]])
    horizon = Horizon(times=times, positions=positions, velocities=positions * 2,
                      accelerations=positions * 3)
    serialize = command_serializer('joint_trajectory', names, EPOCH_NS)
    data = serialize(command(positions[0], positions[0] * 2, 2.0, horizon))
    assert deserialize_message(data, JointTrajectory) == joint_trajectory_command(
        names, horizon, EPOCH_NS)


@pytest.mark.parametrize('command_type', ['joint_state', 'float64_multi_array'])
def test_a_command_of_another_length_is_refused(command_type):
    """Check values of the wrong joint count raise instead of writing misplaced bytes."""
    serialize = command_serializer(command_type, ['a', 'b', 'c'], EPOCH_NS)
    with pytest.raises(ValueError, match='2 values for a command of 3 joints'):
        serialize(command([0.0, 1.0], [0.0, 0.0], 1.0))
