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
Inputs kept as the bytes DDS delivered; joint states and targets read from those bytes.

A driver publishes joint_states at 500 Hz-1 kHz; a 100 Hz control loop uses one message
of each publisher per cycle. The node takes them serialized (:mod:`ros_ik.node.polled_inputs`)
and keeps the newest message per joint set; of those it reads the positions straight from
the CDR bytes (~3 us, where ``deserialize_message`` takes ~35 us and builds lists the cycle
does not use).

The layout of a serialized ``sensor_msgs/JointState`` (XCDR1, what every ROS 2 RMW puts on
the wire for these types): a 4-byte encapsulation header (``00 01`` little-endian,
``00 00`` big-endian, two option bytes), then, aligned relative to the end of that header,

* ``header.stamp``: int32 ``sec``, uint32 ``nanosec`` (8 bytes);
* ``header.frame_id``: uint32 length ``L`` (with the terminating NUL), ``L`` bytes;
* ``name``: uint32 count at the next multiple of 4, then each string as ``frame_id``;
* ``position``: uint32 count at the next multiple of 4, then that many float64 starting at
  the next multiple of 8 (``velocity`` and ``effort`` follow; not read).

A publisher's messages differ only in their stamp and values: the bytes from
``frame_id``'s length to the end of the ``name`` sequence repeat, and with them where the
positions start. The first message of a joint set is parsed into a
:class:`JointStateLayout` (its names, those bytes, the offset of the positions); a later
message with the same bytes there is read at that offset without parsing (a comparison of
~100 bytes: a 1 kHz driver's ten messages per 100 Hz cycle cost ten comparisons, not ten
parses). Bytes that differ (another joint set, another ``frame_id``, or padding a
serializer left uninitialised) are parsed. Messages are kept per joint set, keyed by their
names. Any other encapsulation, or bytes that end early, are deserialized (correct, only
slower).

A target (``geometry_msgs/PoseStamped``, ``PointStamped``) is a header and then 7 or 3
float64 at the next multiple of 8 after ``frame_id``: read in one ``struct`` call, its stamp
in another (~3 us;
``deserialize_message`` takes 100 us or more in a cycle that has been idle, on the path
from a target to the first command).
"""

import struct
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Type

from geometry_msgs.msg import PointStamped, PoseStamped
import numpy as np
from rclpy.serialization import deserialize_message
from ros_ik.node.messages import pose_components

ENCAPSULATION_BYTES = 4
STAMP_BYTES = 8
REPEATED_FROM = ENCAPSULATION_BYTES + STAMP_BYTES  # frame_id's length: the same per publisher
LAYOUTS_KEPT = 8  # joint-set layouts remembered (a bound: any number of publishers works)
UINT32 = {b'\x00\x01': struct.Struct('<I'), b'\x00\x00': struct.Struct('>I')}
FLOAT64 = {'<I': np.dtype('<f8'), '>I': np.dtype('>f8')}  # by the uint32 format's byte order

JointSample = Tuple[Tuple[str, ...], np.ndarray, float]  # names, positions (rad or m), time
# frame_id, position (m), quaternion xyzw (None: a point), header.stamp (s, ROS clock)
TargetFields = Tuple[str, Sequence[float], Optional[Sequence[float]], float]


def _aligned(offset: int, size: int = 4) -> int:
    """Return ``offset`` rounded up to a multiple of ``size`` (a power of two)."""
    return (offset + size - 1) & ~(size - 1)


class JointStateLayout:
    """Where the messages of one publisher's joint set keep their names and positions."""

    def __init__(self, data: bytes, names: Tuple[str, ...], names_end: int,
                 uint32: struct.Struct) -> None:
        """Take the layout of ``data``, whose name sequence ends at byte ``names_end``."""
        self.names = names
        self._encapsulation = bytes(data[:2])
        self._repeated = bytes(data[REPEATED_FROM:names_end])
        self._uint32 = uint32
        self._float64 = FLOAT64[uint32.format]
        self._count_at = ENCAPSULATION_BYTES + _aligned(names_end - ENCAPSULATION_BYTES)

    def matches(self, data: bytes) -> bool:
        """Return whether ``data`` repeats this layout's bytes up to its positions."""
        return (data[REPEATED_FROM:REPEATED_FROM + len(self._repeated)] == self._repeated
                and data[:2] == self._encapsulation)

    def positions(self, data: bytes) -> Optional[np.ndarray]:
        """Return the position values of ``data`` (float64, native order), or None: cut short."""
        if self._count_at + 4 > len(data):
            return None
        (count,) = self._uint32.unpack_from(data, self._count_at)
        first = ENCAPSULATION_BYTES + _aligned(self._count_at + 4 - ENCAPSULATION_BYTES, 8)
        if first + 8 * count > len(data):
            return None
        return np.frombuffer(data, self._float64, count, first).astype(float)


def joint_state_layout(data: bytes) -> Optional[JointStateLayout]:
    """
    Return the layout of a serialized JointState, or None.

    None for an encapsulation other than plain CDR or for bytes that end inside the name
    sequence (see the module docstring for the layout). Names that are not UTF-8 are
    decoded with replacement characters (they then match no chain joint).
    """
    uint32 = UINT32.get(bytes(data[:2]))
    if uint32 is None:
        return None
    body = memoryview(data)[ENCAPSULATION_BYTES:]
    names = []
    try:
        (frame_length,) = uint32.unpack_from(body, STAMP_BYTES)
        offset = _aligned(STAMP_BYTES + 4 + frame_length)
        (count,) = uint32.unpack_from(body, offset)
        end = offset + 4
        for _ in range(count):
            start = _aligned(end)  # each string's length is a uint32
            (length,) = uint32.unpack_from(body, start)
            end = start + 4 + length
            names.append(bytes(body[start + 4:end - 1]).decode('utf-8', 'replace'))
    except struct.error:
        return None
    if end > len(body):
        return None
    return JointStateLayout(data, tuple(names), ENCAPSULATION_BYTES + end, uint32)


def joint_positions(data: bytes) -> Optional[Tuple[Tuple[str, ...], np.ndarray]]:
    """Return the names and positions of a serialized JointState, or None (not plain CDR)."""
    layout = joint_state_layout(data)
    positions = None if layout is None else layout.positions(data)
    return None if positions is None else (layout.names, positions)


def stamped_doubles(data: bytes, count: int) -> Optional[Tuple[str, Tuple[float, ...]]]:
    """
    Return ``frame_id`` and the ``count`` float64 after the header of a serialized message.

    For messages that are a ``std_msgs/Header`` and then ``count`` float64 (PoseStamped:
    7, position then quaternion xyzw; PointStamped: 3). None for an encapsulation other
    than plain CDR or bytes that end early. A ``frame_id`` that is not UTF-8 is decoded
    with replacement characters (it then names no frame).
    """
    uint32 = UINT32.get(bytes(data[:2]))
    if uint32 is None or len(data) < REPEATED_FROM + 4:
        return None
    (frame_length,) = uint32.unpack_from(data, REPEATED_FROM)
    frame_end = REPEATED_FROM + 4 + frame_length
    first = ENCAPSULATION_BYTES + _aligned(frame_end - ENCAPSULATION_BYTES, 8)
    if frame_length == 0 or first + 8 * count > len(data):
        return None
    frame_id = bytes(data[REPEATED_FROM + 4:frame_end - 1]).decode('utf-8', 'replace')
    return frame_id, struct.unpack_from(f'{uint32.format[0]}{count}d', data, first)


def header_stamp(data: bytes) -> Optional[float]:
    """Return ``header.stamp`` (s: ``sec + nanosec 1e-9``) of a serialized stamped message."""
    uint32 = UINT32.get(bytes(data[:2]))
    if uint32 is None or len(data) < REPEATED_FROM:
        return None
    sec, nanosec = struct.unpack_from(uint32.format[0] + 'iI', data, ENCAPSULATION_BYTES)
    return sec + nanosec * 1e-9


def _stamp_of(header) -> float:
    """Return a deserialized ``std_msgs/Header``'s stamp in s."""
    return header.stamp.sec + header.stamp.nanosec * 1e-9


def pose_target_fields(data: bytes) -> TargetFields:
    """Return ``(frame_id, position xyz, quaternion xyzw, stamp)`` of a serialized PoseStamped."""
    fields = stamped_doubles(data, 7)
    if fields is None:
        message = deserialize_message(data, PoseStamped)
        return ((message.header.frame_id,) + pose_components(message.pose)
                + (_stamp_of(message.header),))
    frame_id, values = fields
    return frame_id, values[:3], values[3:], header_stamp(data)


def point_target_fields(data: bytes) -> TargetFields:
    """Return ``(frame_id, position xyz, None, stamp)`` of a serialized PointStamped."""
    fields = stamped_doubles(data, 3)
    if fields is None:
        message = deserialize_message(data, PointStamped)
        point = message.point
        return (message.header.frame_id, (point.x, point.y, point.z), None,
                _stamp_of(message.header))
    return fields[0], fields[1], None, header_stamp(data)


# the layout and bytes, or no layout and the deserialized (names, positions); receive time
KeptJointState = Tuple[Optional['JointStateLayout'], object, float]


class NewestJointStates:
    """The newest joint_states message (serialized) of each joint set, with receive times."""

    def __init__(self, message_type: Type) -> None:
        """Keep messages of ``message_type`` (sensor_msgs/JointState)."""
        self._message_type = message_type
        self._layouts: List[JointStateLayout] = []  # the most recent first
        self._newest: Dict[Tuple[str, ...], KeptJointState] = {}

    def keep(self, data: bytes, receive_time: float) -> None:
        """Keep ``data`` as the newest of its joint set, received at ``receive_time`` (s)."""
        layout = self._layout(data)
        if layout is None:
            sample = self._deserialized(data)
            self._newest[sample[0]] = (None, sample, receive_time)
        else:
            self._newest[layout.names] = (layout, data, receive_time)

    def take(self) -> List[JointSample]:
        """
        Return (names, positions, receive time) of each joint set since the last take.

        Oldest first: where two joint sets share a joint, the newer value is merged last.
        Forgets them.
        """
        taken = []
        for layout, kept, receive_time in sorted(self._newest.values(),
                                                 key=lambda entry: entry[2]):
            if layout is None:
                names, positions = kept
            else:
                names, positions = layout.names, layout.positions(kept)
                if positions is None:  # ends before the last position
                    names, positions = self._deserialized(kept)
            taken.append((names, positions, receive_time))
        self._newest.clear()
        return taken

    def _layout(self, data: bytes) -> Optional[JointStateLayout]:
        """Return the remembered layout ``data`` repeats, else its own (remembered), or None."""
        for layout in self._layouts:
            if layout.matches(data):
                return layout
        layout = joint_state_layout(data)
        if layout is not None:
            self._layouts = [layout] + self._layouts[:LAYOUTS_KEPT - 1]
        return layout

    def _deserialized(self, data: bytes) -> Tuple[Tuple[str, ...], np.ndarray]:
        """Return the names and positions of ``data`` through ``deserialize_message``."""
        message = deserialize_message(data, self._message_type)
        return tuple(message.name), np.array(message.position, dtype=float)


class NewestInput:
    """
    The newest target or jog of all their topics, serialized, with its handler and time.

    Each topic's subscription (raw) calls a keeper, which only stores the bytes and the
    receive time, then calls ``on_arrival``: a flood of targets costs no deserialization,
    and an idle topic costs nothing (a polled topic costs a take every cycle). The control
    cycle reads and handles the one it takes: each target or jog preempts the ones before.
    """

    def __init__(self, clock: Callable[[], float], on_arrival: Callable[[], None]) -> None:
        """Stamp what arrives with ``clock`` (s, the node's clock); then call ``on_arrival``."""
        self._clock = clock
        self._on_arrival = on_arrival
        self._newest: Optional[Tuple[Callable, Callable, bytes, float]] = None

    def keeper(self, handler: Callable, read: Callable[[bytes], object]
               ) -> Callable[[bytes], None]:
        """Return the callback of a topic whose bytes ``read`` turns into ``handler``'s."""
        def keep(data: bytes) -> None:
            self._newest = (handler, read, data, self._clock())
            self._on_arrival()
        return keep

    def take(self) -> Optional[Tuple[Callable, Callable, bytes, float]]:
        """Return (handler, read, bytes, receive time) of the newest, and forget it."""
        newest, self._newest = self._newest, None
        return newest
