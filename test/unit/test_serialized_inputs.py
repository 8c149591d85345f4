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

"""Unit tests of the serialized inputs: joint sets, names and positions read from CDR bytes."""

import struct

from geometry_msgs.msg import PointStamped, PoseStamped
from hypothesis import given, settings, strategies as st
import numpy as np
from rclpy.serialization import serialize_message
from ros_ik.node import serialized_inputs
from ros_ik.node.serialized_inputs import (header_stamp, joint_positions, joint_state_layout,
                                           JointStateLayout, NewestInput, NewestJointStates,
                                           point_target_fields, pose_target_fields,
                                           stamped_doubles)
from sensor_msgs.msg import JointState

NAMES = st.lists(st.text(alphabet=st.characters(blacklist_categories=('Cs',),
                                                blacklist_characters='\x00'), max_size=12),
                 max_size=9)


def joint_state(names, frame_id='', positions=None) -> JointState:
    """Return a JointState with ``names`` and positions 0.1, 0.2, ..."""
    message = JointState(name=list(names),
                         position=positions or [0.1 * (i + 1) for i in range(len(names))])
    message.header.frame_id = frame_id
    message.header.stamp.sec, message.header.stamp.nanosec = 1234, 5678
    return message


@settings(max_examples=200, deadline=None)
@given(NAMES, NAMES, st.text(max_size=20).filter(lambda text: '\x00' not in text),
       st.text(max_size=20).filter(lambda text: '\x00' not in text))
def test_a_layout_matches_the_messages_of_its_joint_set_and_frame(names_a, names_b, frame_a,
                                                                  frame_b):
    """
    Check a layout matches its publisher's later messages and no other joint set or frame.

    A later message: the same bytes with another stamp and other values (what a publisher
    sends); the layout reads its positions. A message of other names or another frame_id
    never matches (one with the same may not either: serializers may leave padding bytes
    uninitialised, and it is then parsed).
    """
    data_a = serialize_message(joint_state(names_a, frame_a))
    layout = joint_state_layout(data_a)
    assert layout is not None and layout.names == tuple(names_a)
    later = bytearray(data_a)
    later[4:12] = struct.pack('<iI', 99, 1)
    values = np.arange(len(names_a)) + 7.0
    first = data_a.rindex(np.array(joint_state(names_a).position, '<f8').tobytes())
    later[first:first + 8 * len(names_a)] = values.astype('<f8').tobytes()
    assert layout.matches(bytes(later))
    np.testing.assert_array_equal(layout.positions(bytes(later)), values)
    data_b = serialize_message(joint_state(names_b, frame_b, [7.0] * len(names_b)))
    if names_a != names_b or frame_a != frame_b:
        assert not layout.matches(data_b)


@settings(max_examples=200, deadline=None)
@given(NAMES, st.text(max_size=20).filter(lambda text: '\x00' not in text), st.data())
def test_names_and_positions_read_from_the_bytes(names, frame_id, data):
    """Check names and positions equal the message's, for any names, frame and values."""
    positions = data.draw(st.lists(st.floats(allow_nan=False), min_size=len(names),
                                   max_size=len(names)))
    message = joint_state(names, frame_id, positions)
    message.velocity = [1.0] * len(names)
    read = joint_positions(serialize_message(message))
    assert read is not None
    assert read[0] == tuple(names)
    np.testing.assert_array_equal(read[1], positions)
    assert read[1].dtype == np.float64 and read[1].flags.writeable


def test_big_endian_cdr_and_other_encapsulations():
    """Check a hand-built big-endian message's names and values; other or cut bytes: None."""
    def string(text: bytes) -> bytes:
        encoded = struct.pack('>I', len(text) + 1) + text + b'\x00'
        return encoded + b'\x00' * (-len(encoded) % 4)
    names = struct.pack('>I', 2) + string(b'j1') + string(b'joint_2')
    body = struct.pack('>iI', 1, 2) + string(b'base') + names
    body += struct.pack('>I', 2) + b'\x00' * (-(len(body) + 4) % 8) + struct.pack('>dd', 0.5, -2.0)
    data = b'\x00\x00\x00\x00' + body
    names_read, positions = joint_positions(data)
    assert names_read == ('j1', 'joint_2')
    np.testing.assert_array_equal(positions, [0.5, -2.0])
    assert joint_positions(data[:-1]) is None  # ends inside the last position
    little = serialize_message(joint_state(['a', 'b']))
    assert little[:2] == b'\x00\x01'
    assert joint_state_layout(b'\x00\x07' + little[2:]) is None  # XCDR2: not read here
    assert joint_positions(b'\x00\x07' + little[2:]) is None
    assert joint_state_layout(little[:20]) is None
    assert joint_state_layout(little[:29]) is None  # inside the second name
    assert not joint_state_layout(little).matches(data)  # big endian: another layout


FRAME_IDS = st.text(max_size=24).filter(lambda text: '\x00' not in text)


@settings(max_examples=200, deadline=None)
@given(FRAME_IDS, st.lists(st.floats(), min_size=7, max_size=7))
def test_targets_read_from_the_bytes_equal_the_deserialized(frame_id, values):
    """
    Check targets read from the bytes of a PoseStamped and a PointStamped.

    Any frame and values (NaN and inf included: the controller rejects them) give the
    message's frame_id, position, quaternion and stamp (s).
    """
    pose = PoseStamped()
    pose.header.frame_id = frame_id
    pose.header.stamp.sec, pose.header.stamp.nanosec = -3, 999
    p, o = pose.pose.position, pose.pose.orientation
    p.x, p.y, p.z, o.x, o.y, o.z, o.w = values
    point = PointStamped()
    point.header.frame_id = frame_id
    point.point.x, point.point.y, point.point.z = values[:3]
    point.header.stamp.sec, point.header.stamp.nanosec = 1_700_000_000, 250_000_000
    read_pose = pose_target_fields(serialize_message(pose))
    read_point = point_target_fields(serialize_message(point))
    assert read_pose[0] == read_point[0] == frame_id
    np.testing.assert_array_equal(read_pose[1] + read_pose[2], values)
    np.testing.assert_array_equal(read_point[1], values[:3])
    assert read_point[2] is None
    assert read_pose[3] == -3 + 999e-9
    assert read_point[3] == 1_700_000_000.25


def test_targets_in_big_endian_or_other_encapsulations():
    """Check a hand-built big-endian PointStamped; other encapsulations or cut bytes: None."""
    body = struct.pack('>iII', 1, 2, 5) + b'tool\x00'
    data = b'\x00\x00\x00\x00' + body + b'\x00' * (-len(body) % 8)
    data += struct.pack('>ddd', 0.5, -2.0, 3.0)
    assert stamped_doubles(data, 3) == ('tool', (0.5, -2.0, 3.0))
    assert header_stamp(data) == 1 + 2e-9
    assert stamped_doubles(data[:-1], 3) is None  # ends inside the last value
    little = serialize_message(PoseStamped())
    assert stamped_doubles(little, 7) == ('', (0.0,) * 6 + (1.0,))
    assert stamped_doubles(b'\x00\x07' + little[2:], 7) is None  # XCDR2: not read here
    assert stamped_doubles(little[:14], 7) is None
    assert pose_target_fields(little) == ('', (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), 0.0)


def test_newest_per_joint_set_oldest_first():
    """Check only the newest message of each joint set is returned, in receive order."""
    newest = NewestJointStates(JointState)
    arm, rail = ['j1', 'j2'], ['rail']
    newest.keep(serialize_message(joint_state(arm, positions=[1.0, 1.0])), 1.0)
    newest.keep(serialize_message(joint_state(rail, positions=[5.0])), 1.5)
    newest.keep(serialize_message(joint_state(arm, positions=[2.0, 2.0])), 2.0)
    taken = newest.take()
    assert [(names, list(positions), time) for names, positions, time in taken] == [
        (tuple(rail), [5.0], 1.5), (tuple(arm), [2.0, 2.0], 2.0)]
    assert newest.take() == []


def test_a_joint_set_is_parsed_once_per_publisher_layout(monkeypatch):
    """Check later messages of a joint set are read through its remembered layout."""
    parsed = []

    def counted(data):
        parsed.append(data)
        return joint_state_layout(data)
    monkeypatch.setattr(serialized_inputs, 'joint_state_layout', counted)
    newest = NewestJointStates(JointState)
    for value in (1.0, 2.0, 3.0):
        newest.keep(serialize_message(joint_state(['a', 'b'], positions=[value, -value])),
                    value)
    newest.keep(serialize_message(joint_state(['a', 'b'], 'other_frame', [4.0, 4.0])), 4.0)
    assert len(parsed) == 2  # the first message, then the one of another frame_id
    [(names, positions, time)] = newest.take()
    assert (names, list(positions), time) == (('a', 'b'), [4.0, 4.0], 4.0)


def test_messages_without_a_layout_are_kept_by_their_names(monkeypatch):
    """Check bytes whose layout cannot be read are deserialized at once, kept per joint set."""
    monkeypatch.setattr(serialized_inputs, 'joint_state_layout', lambda data: None)
    newest = NewestJointStates(JointState)
    newest.keep(serialize_message(joint_state(['a'], positions=[1.0])), 1.0)
    newest.keep(serialize_message(joint_state(['b'], positions=[2.0])), 2.0)
    newest.keep(serialize_message(joint_state(['a'], positions=[3.0])), 3.0)
    assert [(names, list(positions), time) for names, positions, time in newest.take()] == [
        (('b',), [2.0], 2.0), (('a',), [3.0], 3.0)]


def test_positions_the_bytes_cannot_give_are_deserialized(monkeypatch):
    """Check a kept message whose positions cannot be read is deserialized at the take."""
    monkeypatch.setattr(JointStateLayout, 'positions', lambda self, data: None)
    newest = NewestJointStates(JointState)
    newest.keep(serialize_message(joint_state(['a', 'b'], positions=[1.0, 2.0])), 1.0)
    [(names, positions, time)] = newest.take()
    assert (names, list(positions), time) == (('a', 'b'), [1.0, 2.0], 1.0)


def test_newest_input_of_all_topics_with_its_handler_and_time():
    """Check the last message kept by any topic's keeper is taken once, with its stamp."""
    now, arrivals = [1.0], []
    newest = NewestInput(lambda: now[0], lambda: arrivals.append(newest.take()))
    keep_target, keep_jog = newest.keeper('target', JointState), newest.keeper('jog', str)
    assert newest.take() is None
    keep_target(b'first')
    assert arrivals == [('target', JointState, b'first', 1.0)]  # kept before the call
    arrivals.clear()
    newest = NewestInput(lambda: now[0], lambda: arrivals.append(now[0]))
    keep_target, keep_jog = newest.keeper('target', JointState), newest.keeper('jog', str)
    keep_target(b'first')
    now[0] = 2.0
    keep_jog(b'jog')
    keep_target(b'second')
    assert arrivals == [1.0, 2.0, 2.0]
    assert newest.take() == ('target', JointState, b'second', 2.0)
    assert newest.take() is None
