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

"""Unit tests of the serialized inputs: the joint-set key read from CDR bytes, newest kept."""

import struct

from hypothesis import given, settings, strategies as st
from rclpy.serialization import serialize_message
from ros_ik.node import serialized_inputs
from ros_ik.node.serialized_inputs import joint_names_key, NewestJointStates
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
def test_key_is_the_name_sequence(names_a, names_b, frame_a, frame_b):
    """Check the key equals for equal names (any frame_id, positions) and differs otherwise."""
    data_a = serialize_message(joint_state(names_a, frame_a))
    data_b = serialize_message(joint_state(names_b, frame_b, [7.0] * len(names_b)))
    key_a, key_b = joint_names_key(data_a), joint_names_key(data_b)
    assert key_a is not None and key_b is not None
    assert (key_a == key_b) == (names_a == names_b)
    assert struct.unpack_from('<I', key_a)[0] == len(names_a)


def test_big_endian_cdr_key_and_other_encapsulations():
    """Check a hand-built big-endian message's key; other or cut-off bytes give None."""
    def string(text: bytes) -> bytes:
        encoded = struct.pack('>I', len(text) + 1) + text + b'\x00'
        return encoded + b'\x00' * (-len(encoded) % 4)
    names = struct.pack('>I', 2) + string(b'j1') + string(b'joint_2')
    body = struct.pack('>iI', 1, 2) + string(b'base') + names + struct.pack('>I', 0)
    assert joint_names_key(b'\x00\x00\x00\x00' + body) == (
        struct.pack('>II', 2, 3) + b'j1\x00' + struct.pack('>I', 8) + b'joint_2\x00')
    little = serialize_message(joint_state(['a', 'b']))
    assert little[:2] == b'\x00\x01'
    assert joint_names_key(b'\x00\x07' + little[2:]) is None  # XCDR2: not read here
    assert joint_names_key(little[:20]) is None
    assert joint_names_key(little[:29]) is None  # inside the second name


def test_newest_per_joint_set_oldest_first():
    """Check only the newest message of each joint set is returned, in receive order."""
    newest = NewestJointStates(JointState)
    arm, rail = ['j1', 'j2'], ['rail']
    newest.keep(serialize_message(joint_state(arm, positions=[1.0, 1.0])), 1.0)
    newest.keep(serialize_message(joint_state(rail, positions=[5.0])), 1.5)
    newest.keep(serialize_message(joint_state(arm, positions=[2.0, 2.0])), 2.0)
    taken = newest.take()
    assert [(list(message.name), list(message.position), time) for message, time in taken] == [
        (rail, [5.0], 1.5), (arm, [2.0, 2.0], 2.0)]
    assert newest.take() == []


def test_messages_without_a_key_are_kept_by_their_names(monkeypatch):
    """Check bytes the key cannot read are deserialized at once and kept per joint set."""
    monkeypatch.setattr(serialized_inputs, 'joint_names_key', lambda data: None)
    newest = NewestJointStates(JointState)
    newest.keep(serialize_message(joint_state(['a'], positions=[1.0])), 1.0)
    newest.keep(serialize_message(joint_state(['b'], positions=[2.0])), 2.0)
    newest.keep(serialize_message(joint_state(['a'], positions=[3.0])), 3.0)
    assert [(list(message.name), list(message.position), time)
            for message, time in newest.take()] == [(['b'], [2.0], 2.0), (['a'], [3.0], 3.0)]
