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
A transform tree over time, looked up as tf2 does: frames, parents, stamped transforms.

Each frame has one parent; the transform ``T_parent_child`` (translation m, unit
quaternion xyzw) is either static (valid at every time, ``/tf_static``) or dynamic, a
history of stamped transforms (``/tf``) kept for ``cache_time`` s behind its newest one.
Times are seconds on the ROS clock (``header.stamp``).

:meth:`TransformBuffer.lookup` returns ``T_target_source`` (4x4: a point ``p`` in the
source frame is ``T_target_source p`` in the target frame) through the frames' nearest
common ancestor ``a``: ``T_target_source = T_a_target^-1 T_a_source``. At a time ``t > 0``
each dynamic transform on the way is interpolated between the two stamps around ``t``
(translation linearly, rotation by slerp); ``t`` before the oldest or after the newest
stamp is an extrapolation, refused as tf2 refuses it. At ``t = 0`` (the latest) every
transform is taken at the latest time all of them have (tf2's latest common time), and
that time is returned with the transform; a dynamic transform older than ``max_age`` s at
``now`` is stale there (tf2 would use it however old; a servo target in a moving frame
must not follow a frame that stopped updating). Frame names with a leading ``/`` are the
same frame without it, as in tf2.

Failures raise :class:`FrameError` with a ``kind`` (:data:`UNKNOWN_FRAME`,
:data:`NOT_CONNECTED`, :data:`EXTRAPOLATION_PAST`, :data:`EXTRAPOLATION_FUTURE`,
:data:`STALE`) and a message naming the frames.
"""

import bisect
from dataclasses import dataclass, field
import math
from typing import Dict, List, Sequence, Tuple

import numpy as np

from ros_ik.kinematics.transforms import pose_matrix

UNKNOWN_FRAME = 'unknown_frame'
NOT_CONNECTED = 'not_connected'
EXTRAPOLATION_PAST = 'extrapolation_past'
EXTRAPOLATION_FUTURE = 'extrapolation_future'
STALE = 'stale'
CACHE_TIME = 10.0  # s of dynamic transforms kept behind each frame's newest (tf2's default)
MAX_DEPTH = 1000  # frames from a frame to its root: more is a loop in the parents
TIME_TOLERANCE = 1e-9  # s: a lookup this close outside a history's ends is at the end


class FrameError(Exception):
    """A lookup that failed: ``kind`` names the reason (module constants), the text the frames."""

    def __init__(self, kind: str, message: str) -> None:
        """Keep the reason's kind and the message."""
        super().__init__(message)
        self.kind = kind


def frame_name(frame_id: str) -> str:
    """Return a frame name without tf2's optional leading ``/``."""
    return frame_id[1:] if frame_id.startswith('/') else frame_id


def slerp(q0: np.ndarray, q1: np.ndarray, ratio: float) -> np.ndarray:
    """
    Return the unit quaternion (xyzw) ``ratio`` (0..1) of the way from ``q0`` to ``q1``.

    The short way (``q1`` negated when ``q0 . q1 < 0``); linear and normalised when the two
    are within 1e-6 rad of each other.
    """
    dot = float(q0 @ q1)
    if dot < 0.0:
        q1, dot = -q1, -dot
    if dot > 1.0 - 1e-12:
        q = q0 + ratio * (q1 - q0)
        return q / np.linalg.norm(q)
    theta = math.acos(min(dot, 1.0))
    return (math.sin((1.0 - ratio) * theta) * q0 + math.sin(ratio * theta) * q1) / math.sin(theta)


@dataclass
class _History:
    """The dynamic transforms of one frame to its parent: times (s) ascending."""

    parent: str
    times: List[float] = field(default_factory=list)
    translations: List[np.ndarray] = field(default_factory=list)
    rotations: List[np.ndarray] = field(default_factory=list)

    def add(self, time: float, translation: np.ndarray, rotation: np.ndarray,
            cache_time: float) -> None:
        """Insert a transform at ``time``; drop those older than ``cache_time`` s behind."""
        index = bisect.bisect_left(self.times, time)
        if index < len(self.times) and self.times[index] == time:
            self.translations[index], self.rotations[index] = translation, rotation
        else:
            self.times.insert(index, time)
            self.translations.insert(index, translation)
            self.rotations.insert(index, rotation)
        expired = bisect.bisect_left(self.times, self.times[-1] - cache_time)
        if expired:
            del self.times[:expired], self.translations[:expired], self.rotations[:expired]

    def at(self, time: float) -> Tuple[np.ndarray, np.ndarray]:
        """Return (translation, quaternion) at ``time`` within the history (interpolated)."""
        times = self.times
        index = bisect.bisect_right(times, time)
        if index == 0:
            return self.translations[0], self.rotations[0]
        if index == len(times):
            return self.translations[-1], self.rotations[-1]
        t0, t1 = times[index - 1], times[index]
        ratio = (time - t0) / (t1 - t0)
        translation = ((1.0 - ratio) * self.translations[index - 1]
                       + ratio * self.translations[index])
        return translation, slerp(self.rotations[index - 1], self.rotations[index], ratio)


class TransformBuffer:
    """The transform tree of ``/tf`` and ``/tf_static`` (see the module docstring)."""

    def __init__(self, cache_time: float = CACHE_TIME) -> None:
        """Start empty; dynamic transforms are kept ``cache_time`` s behind their newest."""
        self.cache_time = cache_time
        self._static: Dict[str, Tuple[str, np.ndarray]] = {}  # child -> (parent, T)
        self._dynamic: Dict[str, _History] = {}  # child -> its history
        self._parents: Dict[str, str] = {}
        self.version = 0  # counts the transforms set: a lookup's result stays while it does
        # counts the changes of the tree's shape and of its static transforms: a way of
        # static transforms only looks up the same while it does (new /tf data elsewhere
        # leaves it alone)
        self._structure = 0
        self._static_ways: Dict[Tuple[str, str], Tuple[int, np.ndarray]] = {}

    def set_transform(self, parent: str, child: str, time: float,
                      translation: Sequence[float], quaternion_xyzw: Sequence[float],
                      static: bool) -> str:
        """
        Add ``T_parent_child`` at ``time`` (s; static: every time); return a problem or ''.

        Refused: empty or equal frame names, non-finite values, a zero quaternion (others
        are normalised). A frame that gets another parent drops its old transforms, and a
        static transform replaces a dynamic one of the same frame and the other way round.
        """
        parent, child = frame_name(parent), frame_name(child)
        if not parent or not child or parent == child:
            return f'transform "{parent}" -> "{child}" ignored: it needs two distinct frames'
        values = np.array([*translation, *quaternion_xyzw, time], dtype=float)
        norm = float(np.linalg.norm(values[3:7]))
        if values.shape != (8,) or not np.all(np.isfinite(values)) or norm < 1e-6:
            return (f'transform "{parent}" -> "{child}" ignored: not finite or a zero '
                    'quaternion')
        translation, rotation = values[:3], values[3:7] / norm
        if self._parents.get(child) != parent:
            self._static.pop(child, None)
            self._dynamic.pop(child, None)
        if static or self._parents.get(child) != parent or child in self._static:
            self._structure += 1
        self._parents[child] = parent
        if static:
            self._dynamic.pop(child, None)
            self._static[child] = (parent, pose_matrix(translation, rotation))
        else:
            self._static.pop(child, None)
            history = self._dynamic.setdefault(child, _History(parent))
            history.add(float(time), translation, rotation, self.cache_time)
        self.version += 1
        return ''

    def knows(self, frame_id: str) -> bool:
        """Return whether ``frame_id`` is a frame of the tree (a child or a parent)."""
        frame = frame_name(frame_id)
        return frame in self._parents or frame in self._parents.values()

    def lookup(self, target_frame: str, source_frame: str, time: float = 0.0,
               now: float = 0.0, max_age: float = math.inf) -> Tuple[np.ndarray, float]:
        """
        Return ``(T_target_source, t)``: the transform and the time it is for (s).

        ``time`` 0: the latest common time, stale when a dynamic transform on the way is
        older than ``max_age`` s at ``now``; ``t`` 0 for a static way. Raises
        :class:`FrameError`.
        """
        target, source = frame_name(target_frame), frame_name(source_frame)
        if target == source:
            return np.eye(4), time
        kept = self._static_ways.get((target, source))
        if kept is not None and kept[0] == self._structure:
            return kept[1], time
        for frame in (source, target):  # the frame asked about first
            if not self.knows(frame):
                raise FrameError(UNKNOWN_FRAME, f'frame "{frame}" does not exist in TF (never '
                                 'published on /tf or /tf_static)')
        source_way, target_way = self._way_to_root(source), self._way_to_root(target)
        common = next((frame for frame in source_way if frame in set(target_way)), None)
        if common is None:
            raise FrameError(NOT_CONNECTED, f'frames "{target}" and "{source}" are not '
                             f'connected in TF: their roots are "{target_way[-1]}" and '
                             f'"{source_way[-1]}"')
        edges = (source_way[:source_way.index(common)]
                 + target_way[:target_way.index(common)])
        at = self._time_of(edges, target, source, time, now, max_age)
        T_common_source = self._to_ancestor(source_way, common, at)
        T_common_target = self._to_ancestor(target_way, common, at)
        R, p = T_common_target[:3, :3], T_common_target[:3, 3]
        T_target_common = np.eye(4)
        T_target_common[:3, :3] = R.T
        T_target_common[:3, 3] = -R.T @ p
        T_target_source = T_target_common @ T_common_source
        if not any(child in self._dynamic for child in edges):
            T_target_source.flags.writeable = False  # kept: shared by later lookups
            self._static_ways[(target, source)] = (self._structure, T_target_source)
        return T_target_source, at

    def _way_to_root(self, frame: str) -> List[str]:
        """Return ``frame`` and its ancestors up to its root; raise on a loop."""
        way = [frame]
        while way[-1] in self._parents:
            if len(way) > MAX_DEPTH:
                raise FrameError(NOT_CONNECTED, f'the parents of frame "{frame}" form a loop')
            way.append(self._parents[way[-1]])
        return way

    def _time_of(self, edges: List[str], target: str, source: str, time: float, now: float,
                 max_age: float) -> float:
        """
        Return the time every dynamic edge on the way is taken at (checked: see lookup).

        ``edges``: the child frames of the transforms on the way.
        """
        histories = [(child, self._dynamic[child]) for child in edges if child in self._dynamic]
        if not histories:
            return time
        if time == 0.0:
            child, history = min(histories, key=lambda entry: entry[1].times[-1])
            latest = history.times[-1]
            if now - latest > max_age:
                raise FrameError(STALE, f'the transform "{history.parent}" -> "{child}" is '
                                 f'stale: its newest is {now - latest:.3f} s old (more than '
                                 f'{max_age:g} s), so "{source}" in "{target}" is not known '
                                 'now')
            time = latest
        for child, history in histories:
            if time < history.times[0] - TIME_TOLERANCE:
                raise FrameError(EXTRAPOLATION_PAST, f'"{source}" in "{target}" at {time:.3f} '
                                 f's would extrapolate into the past: the oldest transform '
                                 f'"{history.parent}" -> "{child}" is at '
                                 f'{history.times[0]:.3f} s')
            if time > history.times[-1] + TIME_TOLERANCE:
                raise FrameError(EXTRAPOLATION_FUTURE, f'"{source}" in "{target}" at '
                                 f'{time:.3f} s would extrapolate into the future: the newest '
                                 f'transform "{history.parent}" -> "{child}" is at '
                                 f'{history.times[-1]:.3f} s')
        return time

    def _to_ancestor(self, way: List[str], ancestor: str, time: float) -> np.ndarray:
        """Return ``T_ancestor_frame`` of ``way[0]`` (frames up to ``ancestor``) at ``time``."""
        T = np.eye(4)
        for child in way[:way.index(ancestor)]:
            static = self._static.get(child)
            if static is not None:
                T_parent_child = static[1]
            else:
                translation, rotation = self._dynamic[child].at(time)
                T_parent_child = pose_matrix(translation, rotation)
            T = T_parent_child @ T
        return T
