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
``nav_msgs/Path`` messages as the controller takes paths: frames, arrays, stamps.

Each waypoint is a ``PoseStamped``: its own ``header.frame_id`` and stamp, else (empty
frame) the path's header. A serialized path longer than ``MAX_WAYPOINTS`` is refused from
its waypoint count in the bytes (XCDR1: after the 4-byte encapsulation header, the path's
stamp (8 bytes) and ``frame_id`` (uint32 length and its bytes), the sequence's uint32
count at the next multiple of 4), before a hundred thousand poses are deserialized.
"""

import struct
from typing import Tuple, Union

from nav_msgs.msg import Path
import numpy as np
from rclpy.serialization import deserialize_message
from ros_ik.control.path_input import MAX_WAYPOINTS

# per waypoint: frames (k,), positions (k, 3) m, quaternions (k, 4) xyzw, stamps (k,) s
PathFields = Tuple[Tuple[str, ...], np.ndarray, np.ndarray, np.ndarray]
UINT32 = {b'\x00\x01': '<I', b'\x00\x00': '>I'}


def stamp_seconds(stamp) -> float:
    """Return a ``builtin_interfaces/Time`` in seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def path_fields(message: Path) -> PathFields:
    """Return each waypoint's frame, position, quaternion and stamp (path's where empty)."""
    path_frame, path_stamp = message.header.frame_id, stamp_seconds(message.header.stamp)
    poses = message.poses
    frames = tuple(pose.header.frame_id or path_frame for pose in poses)
    stamps = np.array([stamp_seconds(pose.header.stamp) if pose.header.frame_id
                       else path_stamp for pose in poses], dtype=float)
    positions = np.array([(pose.pose.position.x, pose.pose.position.y, pose.pose.position.z)
                          for pose in poses], dtype=float).reshape(-1, 3)
    quaternions = np.array([(pose.pose.orientation.x, pose.pose.orientation.y,
                             pose.pose.orientation.z, pose.pose.orientation.w)
                            for pose in poses], dtype=float).reshape(-1, 4)
    return frames, positions, quaternions, stamps


def waypoint_count(data: bytes) -> int:
    """Return the waypoint count of a serialized Path (-1 where the bytes say otherwise)."""
    uint32 = UINT32.get(bytes(data[:2]))
    if uint32 is None or len(data) < 16:
        return -1
    frame_bytes = struct.unpack_from(uint32, data, 12)[0]
    count_at = 4 + ((12 + frame_bytes + 3) & ~3)
    if count_at + 4 > len(data):
        return -1
    return struct.unpack_from(uint32, data, count_at)[0]


def read_path(data: bytes) -> Union[PathFields, int]:
    """Return a serialized Path's fields, or its waypoint count when that is too many."""
    count = waypoint_count(data)
    if count > MAX_WAYPOINTS:
        return count
    return path_fields(deserialize_message(data, Path))
