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
Inputs kept as the bytes DDS delivered; joint states read from those bytes, never deserialized.

A driver publishes joint_states at 500 Hz-1 kHz; a 100 Hz control loop uses one message
of each publisher per cycle. The node takes them serialized (:mod:`ros_ik.node.polled_inputs`)
and keeps the newest message per joint set; of those it reads the names and positions
straight from the CDR bytes (~3 us, where ``deserialize_message`` takes ~35 us and builds
lists the cycle does not use).

The layout of a serialized ``sensor_msgs/JointState`` (XCDR1, what every ROS 2 RMW puts on
the wire for these types): a 4-byte encapsulation header (``00 01`` little-endian,
``00 00`` big-endian, two option bytes), then, aligned relative to the end of that header,

* ``header.stamp``: int32 ``sec``, uint32 ``nanosec`` (8 bytes);
* ``header.frame_id``: uint32 length ``L`` (with the terminating NUL), ``L`` bytes;
* ``name``: uint32 count at the next multiple of 4, then each string as ``frame_id``;
* ``position``: uint32 count at the next multiple of 4, then that many float64 starting at
  the next multiple of 8 (``velocity`` and ``effort`` follow; not read).

The key of a joint set is the bytes of the ``name`` sequence without its padding
(serializers leave padding bytes uninitialised): messages of one joint set share it. Any
other encapsulation, or bytes that end early, are deserialized and keyed by their names
(correct, only slower).
"""

import struct
from typing import Callable, Dict, List, Optional, Tuple, Type

import numpy as np
from rclpy.serialization import deserialize_message

ENCAPSULATION_BYTES = 4
STAMP_BYTES = 8
UINT32 = {b'\x00\x01': struct.Struct('<I'), b'\x00\x00': struct.Struct('>I')}
FLOAT64 = {'<I': np.dtype('<f8'), '>I': np.dtype('>f8')}  # by the uint32 format's byte order

JointSample = Tuple[Tuple[str, ...], np.ndarray, float]  # names, positions (rad or m), time


def _aligned(offset: int, size: int = 4) -> int:
    """Return ``offset`` rounded up to a multiple of ``size`` (a power of two)."""
    return (offset + size - 1) & ~(size - 1)


NameSequence = Tuple[struct.Struct, memoryview, List[memoryview], int]


def _name_sequence(data: bytes) -> Optional[NameSequence]:
    """
    Return the uint32 codec, the body, the name sequence's pieces and its end, or None.

    Pieces: the count, then each string with its length (no padding); the end is the offset
    in the body after the last string. None for an encapsulation other than plain CDR or
    for bytes that end inside the sequence.
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
    return (uint32, body, pieces, end) if end <= len(body) else None


def joint_names_key(data: bytes) -> Optional[bytes]:
    """
    Return the ``name`` sequence of a serialized JointState (count, strings), or None.

    None for an encapsulation other than plain CDR or for bytes that end inside the
    sequence (see the module docstring for the layout).
    """
    sequence = _name_sequence(data)
    return None if sequence is None else b''.join(sequence[2])


def joint_positions(data: bytes) -> Optional[Tuple[Tuple[str, ...], np.ndarray]]:
    """
    Return the names and positions (float64, native order) of a serialized JointState.

    None where the bytes are not plain CDR or end before the last position. Names that are
    not UTF-8 are decoded with replacement characters (they then match no chain joint).
    """
    sequence = _name_sequence(data)
    if sequence is None:
        return None
    uint32, body, pieces, end = sequence
    start = _aligned(end)
    if start + 4 > len(body):
        return None
    (count,) = uint32.unpack_from(body, start)
    first = _aligned(start + 4, 8)
    if first + 8 * count > len(body):
        return None
    names = tuple(bytes(piece[4:-1]).decode('utf-8', 'replace') for piece in pieces[1:])
    positions = np.frombuffer(body, FLOAT64[uint32.format], count, first).astype(float)
    return names, positions


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
            sample = self._deserialized(data)
            self._newest[sample[0]] = (sample, receive_time)
        else:
            self._newest[key] = (data, receive_time)

    def take(self) -> List[JointSample]:
        """
        Return (names, positions, receive time) of each joint set since the last take.

        Oldest first: where two joint sets share a joint, the newer value is merged last.
        Forgets them.
        """
        taken = []
        for kept, receive_time in sorted(self._newest.values(), key=lambda entry: entry[1]):
            sample = joint_positions(kept) if isinstance(kept, bytes) else kept
            names, positions = sample or self._deserialized(kept)
            taken.append((names, positions, receive_time))
        self._newest.clear()
        return taken

    def _deserialized(self, data: bytes) -> Tuple[Tuple[str, ...], np.ndarray]:
        """Return the names and positions of ``data`` through ``deserialize_message``."""
        message = deserialize_message(data, self._message_type)
        return tuple(message.name), np.array(message.position, dtype=float)


class NewestInput:
    """
    The newest target or jog of all their topics, serialized, with its handler and time.

    Each topic's subscription (raw) calls a keeper, which only stores the bytes and the
    receive time: a flood of targets costs no deserialization, and an idle topic costs
    nothing (a polled topic costs a take every cycle). The control cycle deserializes and
    handles the one it takes: each target or jog preempts the ones before.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        """Stamp what arrives with ``clock`` (s, the node's clock)."""
        self._clock = clock
        self._newest: Optional[Tuple[Callable, Type, bytes, float]] = None

    def keeper(self, handler: Callable, message_type: Type) -> Callable[[bytes], None]:
        """Return the subscription callback of a ``message_type`` topic for ``handler``."""
        def keep(data: bytes) -> None:
            self._newest = (handler, message_type, data, self._clock())
        return keep

    def take(self) -> Optional[Tuple[Callable, Type, bytes, float]]:
        """Return (handler, message type, bytes, receive time) of the newest, and forget it."""
        newest, self._newest = self._newest, None
        return newest
