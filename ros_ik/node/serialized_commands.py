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
Joint commands as the bytes the node publishes (rclpy publishes ``bytes`` as they are).

A command of a position-streamed arm goes out at the controller's rate (up to 1 kHz).
Building a ``sensor_msgs/JointState`` in Python and letting rclpy serialize it costs
~70 us, most of it converting the same joint names again. Here the bytes of everything
that never changes (names, lengths, padding) are laid out once per chain, and each command
writes only its stamp and its float64 values into a copy (~3 us).

Layout (XCDR1, little endian, the encapsulation every ROS 2 RMW uses for these types:
``00 01 00 00``, then offsets relative to the end of those 4 bytes, each value aligned to
its size):

* ``sensor_msgs/JointState``: ``header.stamp`` (int32 ``sec``, uint32 ``nanosec``),
  ``header.frame_id`` (uint32 length with the NUL, the bytes, NUL: here empty), ``name``
  (uint32 count, then each string as ``frame_id``), ``position``, ``velocity`` and
  ``effort`` (each a uint32 count, then float64 values at the next multiple of 8; effort
  empty);
* ``std_msgs/Float64MultiArray``: ``layout.dim`` (uint32 count, here 0),
  ``layout.data_offset`` (uint32, 0), ``data`` (uint32 count, float64 values).

``JointTrajectory`` commands (a horizon of points, sent at lower rates) are serialized by
rclpy from the message :func:`ros_ik.node.messages.joint_trajectory_command` builds.
"""

import struct
from typing import Callable, Optional, Sequence

import numpy as np
from rclpy.serialization import serialize_message
from ros_ik.control.cycle_types import Command
from ros_ik.node.messages import (clock_nanoseconds, joint_trajectory_command,
                                  split_nanoseconds)

ENCAPSULATION = b'\x00\x01\x00\x00'  # CDR, little endian, no options
UINT32 = struct.Struct('<I')
STAMP = struct.Struct('<iI')
FLOAT64 = np.dtype('<f8')

CommandSerializer = Callable[[Command], bytes]


def _pad(body: bytearray, size: int) -> None:
    """Append zero bytes to ``body`` up to the next multiple of ``size``."""
    body.extend(b'\x00' * (-len(body) % size))


def _append_string(body: bytearray, text: str) -> None:
    """Append a CDR string: uint32 length with the terminating NUL, UTF-8 bytes, NUL."""
    _pad(body, 4)
    encoded = text.encode('utf-8') + b'\x00'
    body.extend(UINT32.pack(len(encoded)))
    body.extend(encoded)


def _append_float64_slot(body: bytearray, count: int) -> int:
    """Append a float64 sequence of ``count`` zeros; return the offset of its first value."""
    _pad(body, 4)
    body.extend(UINT32.pack(count))
    _pad(body, 8)
    first = len(body)
    body.extend(bytes(8 * count))
    return first


class _Template:
    """A message's bytes with slots: a stamp (optional) and float64 arrays to fill in."""

    def __init__(self, body: bytearray, stamp_at: Optional[int], slots: Sequence[int],
                 count: int) -> None:
        """Keep ``body`` (no encapsulation), where its variable parts begin, values per slot."""
        self._bytes = bytearray(ENCAPSULATION) + body
        self._stamp_at = None if stamp_at is None else len(ENCAPSULATION) + stamp_at
        self._slots = [len(ENCAPSULATION) + slot for slot in slots]
        self._count = count

    def filled(self, stamp_ns: int, arrays: Sequence[np.ndarray]) -> bytes:
        """Return the bytes with the stamp (ns of the clock) and ``arrays`` (float64) written."""
        data = self._bytes
        if self._stamp_at is not None:
            STAMP.pack_into(data, self._stamp_at, *split_nanoseconds(stamp_ns))
        for slot, values in zip(self._slots, arrays):
            if len(values) != self._count:
                raise ValueError(f'{len(values)} values for a command of {self._count} joints')
            data[slot:slot + 8 * self._count] = np.asarray(values, dtype=FLOAT64).tobytes()
        return bytes(data)


def _joint_state_template(joint_names: Sequence[str]) -> _Template:
    """Return the JointState template: empty frame_id, names, position and velocity slots."""
    body = bytearray(bytes(STAMP.size))
    _append_string(body, '')
    _pad(body, 4)
    body.extend(UINT32.pack(len(joint_names)))
    for name in joint_names:
        _append_string(body, name)
    position = _append_float64_slot(body, len(joint_names))
    velocity = _append_float64_slot(body, len(joint_names))
    _append_float64_slot(body, 0)  # effort
    return _Template(body, 0, (position, velocity), len(joint_names))


def _position_array_template(joint_count: int) -> _Template:
    """Return the Float64MultiArray template: no dimensions, offset 0, the data slot."""
    body = bytearray(UINT32.pack(0) + UINT32.pack(0))
    return _Template(body, None, (_append_float64_slot(body, joint_count),), joint_count)


def command_serializer(command_type: str, joint_names: Sequence[str],
                       epoch_ns: int) -> CommandSerializer:
    """
    Return a function giving the bytes of a command of ``command_type`` for this chain.

    ``command.time`` is in s after ``epoch_ns`` (ns of the node's clock), the JointState's
    header stamp; positions and velocities are in chain joint order (rad or m, and per s).
    """
    if command_type == 'joint_state':
        template = _joint_state_template(joint_names)
        return lambda command: template.filled(
            clock_nanoseconds(epoch_ns, command.time), (command.q, command.velocity))
    if command_type == 'float64_multi_array':
        template = _position_array_template(len(joint_names))
        return lambda command: template.filled(0, (command.q,))
    return lambda command: serialize_message(
        joint_trajectory_command(joint_names, command.horizon, epoch_ns))
