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
Where frames outside the chain come from: the transforms of TF, as the node provides them.

The controller resolves a frame of the chain (its base, its links, links fixed inside it)
with its own FK at the commanded joints. Any other frame is asked of a
:class:`FrameSource`: ``T_base_frame`` at a time on the ROS clock (``header.stamp`` in s;
0: the latest), or a :class:`ros_ik.kinematics.transform_buffer.FrameError` saying why not
(unknown frame, not connected, extrapolation into the past or future, stale). The node
implements it with tf2_ros where a ROS install has it, else with
:class:`ros_ik.kinematics.transform_buffer.TransformBuffer` fed by ``/tf`` and
``/tf_static`` (:class:`BufferFrames`, which tests use directly).
"""

from typing import Callable, Optional, Protocol, Tuple

import numpy as np

from ros_ik.kinematics.transform_buffer import FrameError, STALE, TransformBuffer


class FrameSource(Protocol):
    """Transforms from any TF frame to the chain's base (see the module docstring)."""

    def base_from(self, frame: str, stamp: float) -> Tuple[np.ndarray, float]:
        """
        Return ``(T_base_frame, t)``: 4x4, and the time it is for (s; 0: static).

        ``stamp`` (s, ROS time) 0 asks for the latest, which must not be stale. Raises
        :class:`ros_ik.kinematics.transform_buffer.FrameError`.
        """


def check_age(frame: str, base_frame: str, time: float, now: float, max_age: float) -> None:
    """
    Raise STALE when the latest transform of ``frame``, for ``time`` (s), is too old.

    Too old: ``now - time > max_age`` (s); a static way (``time`` 0) never is.
    """
    age = now - time
    if time != 0.0 and age > max_age:
        raise FrameError(STALE, f'the transform of "{frame}" to "{base_frame}" is stale: its '
                         f'newest is {age:.3f} s old (more than {max_age:g} s)')


class BufferFrames:
    """
    A :class:`FrameSource` over a :class:`TransformBuffer` (the node feeds it from /tf).

    ``now()``: the ROS clock (s); ``max_age()``: ``max_transform_age`` (s). The latest
    lookup of a frame is kept while the buffer does not change (a 1 kHz servo between two
    /tf messages costs a comparison and the age check).
    """

    def __init__(self, buffer: TransformBuffer, base_frame: str, now: Callable[[], float],
                 max_age: Callable[[], float]) -> None:
        """Keep the buffer, the chain's base frame, the clock and the age limit."""
        self.buffer, self.base_frame, self._now, self._max_age = buffer, base_frame, now, max_age
        self._latest: Tuple[object, Optional[Tuple[np.ndarray, float]]] = (None, None)

    def base_from(self, frame: str, stamp: float) -> Tuple[np.ndarray, float]:
        """Return ``(T_base_frame, t)`` (see :class:`FrameSource`)."""
        if stamp != 0.0:
            return self.buffer.lookup(self.base_frame, frame, stamp)
        key = (frame, self.buffer.version)
        kept_key, kept = self._latest
        if kept_key == key:
            check_age(frame, self.base_frame, kept[1], self._now(), self._max_age())
            return kept
        result = self.buffer.lookup(self.base_frame, frame, 0.0, self._now(), self._max_age())
        self._latest = (key, result)
        return result
