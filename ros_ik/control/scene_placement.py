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
Scene objects given in TF frames, placed in the chain's base frame.

An object of the collision scene YAML may give its pose in a TF frame (``frame: world``):
``T_base_object = T_base_frame T_frame_object`` with ``T_base_frame`` the frame's latest
transform (:class:`FrameSource`), taken once when the scene is placed. The scene is a
snapshot: an object in a frame that moves later stays where it was placed (attach objects
that move with the robot to a link instead, ``link:``).
"""

from dataclasses import replace
from typing import List, Optional, Sequence

from ros_ik.collision.scene import SceneObject
from ros_ik.control.frame_source import FrameSource
from ros_ik.kinematics.transform_buffer import frame_name, FrameError, UNKNOWN_FRAME


def needs_placement(scene: Sequence[SceneObject], base_frame: str) -> bool:
    """Return whether an object of ``scene`` is in a TF frame other than the base."""
    return any(frame_name(item.frame) not in ('', base_frame) for item in scene)


def placed_scene(scene: Sequence[SceneObject], frames: Optional[FrameSource],
                 base_frame: str) -> List[SceneObject]:
    """
    Return ``scene`` with every object in the base frame (``frame`` '').

    Raises :class:`ros_ik.kinematics.transform_buffer.FrameError` naming the object for a
    frame TF cannot place now (or without TF).
    """
    placed = []
    for item in scene:
        frame = frame_name(item.frame)
        if frame not in ('', base_frame):
            if frames is None:
                raise FrameError(UNKNOWN_FRAME, f'object "{item.name}" is in frame "{frame}" '
                                 'and there is no TF')
            try:
                T_base_frame = frames.base_from(frame, 0.0)[0]
            except FrameError as error:
                raise FrameError(error.kind, f'object "{item.name}": {error}') from None
            shape = item.shape
            item = replace(item, shape=replace(
                shape, T_frame_shape=T_base_frame @ shape.T_frame_shape))
        placed.append(replace(item, frame=''))
    return placed
