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
Inputs kept as the bytes DDS delivered, deserialized once per control cycle.

A driver publishes joint_states at 500 Hz-1 kHz; a 100 Hz control loop uses one message
of each publisher per cycle. The node takes them serialized (:mod:`ros_ik.node.polled_inputs`)
and keeps the newest message per joint set, so the others are never turned into Python
objects.

The joint set of a serialized ``sensor_msgs/JointState`` is read from its CDR bytes
(XCDR1, what every ROS 2 RMW puts on the wire for these types): a 4-byte encapsulation
header (``00 01`` little-endian, ``00 00`` big-endian, two option bytes), then, aligned
relative to the end of that header,

* ``header.stamp``: int32 ``sec``, uint32 ``nanosec`` (8 bytes);
* ``header.frame_id``: uint32 length ``L`` (with the terminating NUL), ``L`` bytes;
* ``name``: uint32 count at the next multiple of 4, then each string as ``frame_id``.

The key is the bytes of the ``name`` sequence without its padding (serializers leave
padding bytes uninitialised): messages of one joint set share it. Any
other encapsulation, or bytes that end early, are deserialized at once and keyed by their
names (correct, only slower).
"""

import struct
from typing import Dict, List, Optional, Tuple, Type

from rclpy.serialization import deserialize_message

ENCAPSULATION_BYTES = 4
STAMP_BYTES = 8
UINT32 = {b'\x00\x01': struct.Struct('<I'), b'\x00\x00': struct.Struct('>I')}


def _aligned(offset: int) -> int:
    """Return ``offset`` rounded up to a multiple of 4 (the uint32 alignment)."""
    return (offset + 3) & ~3


def joint_names_key(data: bytes) -> Optional[bytes]:
    """
    Return the ``name`` sequence of a serialized JointState (count, strings), or None.

    None for an encapsulation other than plain CDR or for bytes that end inside the
    sequence (see the module docstring for the layout).
    """
    uint32 = UINT32.get(bytes(data[:2]))
    if uint32 is None:
        return None
    body = memoryview(data)[ENCAPSULATION_BYTES:]
    try:
        (frame_length,) = uint32.unpack_from(body, STAMP_BYTES)
        offset = _aligned(STAMP_BYTES + 4 + frame_length)
        (count,) = uint32.unpack_from(body, offset)
        pieces = [body[offset:offset + 4]]
        end = offset + 4
        for _ in range(count):
            start = _aligned(end)  # each string's length is a uint32
            (length,) = uint32.unpack_from(body, start)
            end = start + 4 + length
            pieces.append(body[start:end])
    except struct.error:
        return None
    return b''.join(pieces) if end <= len(body) else None


class NewestJointStates:
    """The newest joint_states message (serialized) of each joint set, with receive times."""

    def __init__(self, message_type: Type) -> None:
        """Keep messages of ``message_type`` (sensor_msgs/JointState)."""
        self._message_type = message_type
        self._newest: Dict[object, Tuple[object, float]] = {}

    def keep(self, data: bytes, receive_time: float) -> None:
        """Keep ``data`` as the newest of its joint set, received at ``receive_time`` (s)."""
        key = joint_names_key(data)
        if key is None:
            message = deserialize_message(data, self._message_type)
            self._newest[tuple(message.name)] = (message, receive_time)
        else:
            self._newest[key] = (data, receive_time)

    def take(self) -> List[Tuple[object, float]]:
        """
        Return (message, receive time) of each joint set since the last take, oldest first.

        Oldest first: where two joint sets share a joint, the newer value is merged last.
        Forgets them.
        """
        taken = [(deserialize_message(kept, self._message_type)
                  if isinstance(kept, bytes) else kept, receive_time)
                 for kept, receive_time in sorted(self._newest.values(),
                                                  key=lambda entry: entry[1])]
        self._newest.clear()
        return taken
