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
A Cartesian path as it arrives: validated waypoints, each in its own frame, and its options.

Waypoints come as positions (k, 3) in m and quaternions (k, 4) ``(x, y, z, w)``, each with
its frame (a ``PoseStamped``'s own ``frame_id``, else the path's) and stamp (s, ROS time;
0: the latest transform). The whole path is refused, naming the first bad waypoint, when it
is empty, longer than ``MAX_WAYPOINTS``, or any waypoint has a NaN or inf, a coordinate
beyond ``MAX_TARGET_COORDINATE``, a subnormal value (a Python int's bits) or a zero
quaternion; quaternions off unit norm are normalised (a warning). Validation is vectorised:
a path of ``MAX_WAYPOINTS`` costs about a millisecond.

In the base frame (:func:`base_waypoints`) consecutive waypoints closer than
``REPEATED_WAYPOINT`` (m and rad) are one: repeated waypoints are skipped.
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from ros_ik.control.targets import (INT_BITS_HINT, MAX_TARGET_COORDINATE,
                                    QUATERNION_NORM_TOLERANCE, SMALLEST_NORMAL,
                                    ZERO_QUATERNION_NORM)
from ros_ik.kinematics.transforms import quaternions_to_matrices, rotation_vector

MAX_WAYPOINTS = 10000
REPEATED_WAYPOINT = 1e-6  # m and rad: consecutive waypoints this close are one


@dataclass(frozen=True)
class PathOptions:
    """
    What a path's sender asks besides its waypoints.

    ``linear_speed`` (m/s) and ``angular_speed`` (rad/s): lower tool speed caps for this
    path (0: the node's ``max_linear_speed`` / ``max_angular_speed``); ``request``: the
    action goal it answers (None: the topic).
    """

    linear_speed: float = 0.0
    angular_speed: float = 0.0
    request: Optional[object] = None


@dataclass
class PathInput:
    """
    A validated path: per waypoint its frame, pose in that frame (k, 4, 4) and stamp.

    ``T_base_waypoints`` is set once every waypoint is in the base frame; ``tf_poses``
    keeps ``T_base_frame`` of each (TF frame, stamp) once looked up.
    """

    frames: Tuple[str, ...]
    T_frame_waypoints: np.ndarray
    stamps: Tuple[float, ...]
    options: PathOptions
    sequence: int = 0
    T_base_waypoints: Optional[np.ndarray] = None
    tf_poses: Dict[Tuple[str, float], np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class PathCheck:
    """The waypoints' poses (k, 4, 4), or why the path is refused (``problem``: its kind)."""

    poses: Optional[np.ndarray]
    error: str = ''
    warning: str = ''
    problem: str = ''


def _first(bad: np.ndarray) -> int:
    """Return the index of the first waypoint flagged in ``bad`` (k, ...)."""
    return int(np.flatnonzero(bad.reshape(len(bad), -1).any(axis=1))[0])


def check_waypoints(positions: np.ndarray, quaternions: np.ndarray) -> PathCheck:
    """Validate waypoints (k, 3) and (k, 4); return their poses or the refusal."""
    positions = np.asarray(positions, dtype=float).reshape(-1, 3)
    quaternions = np.asarray(quaternions, dtype=float).reshape(-1, 4)
    count = len(positions)
    if count == 0:
        return PathCheck(None, 'path ignored: it has no waypoints', problem='empty')
    if count > MAX_WAYPOINTS:
        return PathCheck(None, f'path ignored: {count} waypoints, at most {MAX_WAYPOINTS} '
                               'are taken (split it)', problem='too_long')
    values = np.hstack([positions, quaternions])
    if not np.isfinite(values).all():
        index = _first(~np.isfinite(values))
        return PathCheck(None, f'path ignored: waypoint {index} is not finite: '
                               f'{values[index].tolist()}', problem='not_finite')
    if (np.abs(positions) > MAX_TARGET_COORDINATE).any():
        index = _first(np.abs(positions) > MAX_TARGET_COORDINATE)
        return PathCheck(None, f'path ignored: waypoint {index} at {positions[index].tolist()} '
                               f'is beyond {MAX_TARGET_COORDINATE:g} m from its frame origin',
                         problem='position_range')
    subnormal = (np.abs(values) > 0.0) & (np.abs(values) < SMALLEST_NORMAL)
    if subnormal.any():
        index = _first(subnormal)
        return PathCheck(None, f'path ignored: waypoint {index} has subnormal values '
                               f'{values[index].tolist()}: {INT_BITS_HINT}', problem='int_bits')
    norms = np.linalg.norm(quaternions, axis=1)
    if (norms < ZERO_QUATERNION_NORM).any():
        index = _first(norms < ZERO_QUATERNION_NORM)
        return PathCheck(None, f'path ignored: waypoint {index} has a zero quaternion; set '
                               'w = 1 for no rotation', problem='zero_quaternion')
    off = np.abs(norms - 1.0) > QUATERNION_NORM_TOLERANCE
    warning = (f'path: {int(off.sum())} waypoint quaternions (the first: waypoint '
               f'{_first(off)}, norm {norms[_first(off)]:.6g}) normalised' if off.any() else '')
    poses = np.zeros((count, 4, 4))
    poses[:, :3, :3] = quaternions_to_matrices(quaternions / norms[:, None])
    poses[:, :3, 3] = positions
    poses[:, 3, 3] = 1.0
    return PathCheck(poses, warning=warning)


def distinct_waypoints(T_base_waypoints: np.ndarray, position_only: bool
                       ) -> Tuple[np.ndarray, np.ndarray]:
    """Return the waypoints (k, 4, 4) that differ from the one before, and their indices."""
    poses = np.asarray(T_base_waypoints, dtype=float)
    if len(poses) < 2:
        return poses, np.arange(len(poses))
    moved = np.linalg.norm(np.diff(poses[:, :3, 3], axis=0), axis=1) > REPEATED_WAYPOINT
    if not position_only:
        turned = np.linalg.norm(rotation_vector(
            np.swapaxes(poses[:-1, :3, :3], 1, 2) @ poses[1:, :3, :3]), axis=1)
        moved |= turned > REPEATED_WAYPOINT
    kept = np.flatnonzero(np.concatenate([[True], moved]))
    return poses[kept], kept


def waypoint_frames(frame_ids: Sequence[str], path_frame: str) -> Tuple[str, ...]:
    """Return each waypoint's frame: its own ``frame_id``, else the path's."""
    return tuple(frame or path_frame for frame in frame_ids)


def base_waypoints(path: PathInput, chain_frame_pose: Callable[[str], np.ndarray],
                   tf_poses: Dict[Tuple[str, float], np.ndarray]) -> np.ndarray:
    """
    Return the waypoints in the base frame (k, 4, 4): ``T_base_frame T_frame_waypoint``.

    ``chain_frame_pose(frame)``: FK of a chain frame at the commanded joints; ``tf_poses``:
    ``T_base_frame`` of every (TF frame, stamp) of the path, looked up before.
    """
    frames: Dict[Tuple[str, float], np.ndarray] = {}
    T_base_frames = np.empty((len(path.frames), 4, 4))
    for index, key in enumerate(zip(path.frames, path.stamps)):
        if key not in frames:
            frames[key] = tf_poses[key] if key in tf_poses else chain_frame_pose(key[0])
        T_base_frames[index] = frames[key]
    return T_base_frames @ path.T_frame_waypoints
