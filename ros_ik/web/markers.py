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
RViz markers drawn in the web page: the IK node's goal, ellipsoid, closest pair and scene.

Each ``(ns, id)`` is one scene node under ``/markers``; a marker is redrawn when it
changes and removed on ``DELETE``/``DELETEALL`` or when an array no longer holds it (the
IK node publishes whole arrays). Types drawn: ARROW (a frame with axes, as a pose goal),
SPHERE (an ellipsoid: a unit sphere scaled by ``scale`` / 2), CUBE, CYLINDER, LINE_LIST
and LINE_STRIP. Poses are taken in the base frame (the IK node's marker frame).
"""

from typing import Dict, Sequence, Tuple

import numpy as np

ARROW, CUBE, SPHERE, CYLINDER, LINE_STRIP, LINE_LIST = 0, 1, 2, 3, 4, 5
DELETE, DELETEALL = 2, 3


def _pose(marker) -> dict:
    """Return a marker's pose as viser's position and (w, x, y, z) keywords."""
    p, q = marker.pose.position, marker.pose.orientation
    norm = np.sqrt(q.w ** 2 + q.x ** 2 + q.y ** 2 + q.z ** 2)
    quaternion = (q.w / norm, q.x / norm, q.y / norm, q.z / norm) if norm > 0 else (
        1.0, 0.0, 0.0, 0.0)
    return {'position': (p.x, p.y, p.z), 'wxyz': quaternion}


def _colour(marker) -> Tuple[int, int, int]:
    colour = marker.color
    return tuple(int(round(255 * min(max(v, 0.0), 1.0))) for v in (colour.r, colour.g, colour.b))


class MarkerDrawing:
    """The markers currently drawn in a viser scene, by ``(ns, id)``."""

    def __init__(self, scene, root: str) -> None:
        """Draw under ``root`` in ``scene`` (a viser SceneApi)."""
        self._scene = scene
        self._root = root
        self._drawn: Dict[Tuple[str, int], tuple] = {}  # key -> (signature, handle)

    def draw(self, markers: Sequence) -> None:
        """Draw an array of markers; the ones drawn before and not in it are removed."""
        if any(marker.action == DELETEALL for marker in markers):
            self._remove(list(self._drawn))
        wanted = {}
        for marker in markers:
            if marker.action in (DELETE, DELETEALL):
                continue
            wanted[(marker.ns, marker.id)] = marker
        self._remove([key for key in self._drawn if key not in wanted])
        for key, marker in wanted.items():
            signature = self._signature(marker)
            if key in self._drawn and self._drawn[key][0] == signature:
                continue
            if key in self._drawn:
                self._drawn[key][1].remove()
            handle = self._add(f'{self._root}/{key[0]}_{key[1]}', marker)
            if handle is not None:
                self._drawn[key] = (signature, handle)

    def _remove(self, keys) -> None:
        for key in keys:
            self._drawn.pop(key)[1].remove()

    @staticmethod
    def _signature(marker) -> tuple:
        """Return what the drawing of a marker depends on (to skip unchanged ones)."""
        pose = _pose(marker)
        return (marker.type, pose['position'], pose['wxyz'],
                (marker.scale.x, marker.scale.y, marker.scale.z), _colour(marker),
                tuple((point.x, point.y, point.z) for point in marker.points))

    def _add(self, name: str, marker):
        """Add one marker to the scene; return its handle (None: a type not drawn)."""
        scene, pose, colour = self._scene, _pose(marker), _colour(marker)
        scale = marker.scale
        opacity = float(marker.color.a) if 0.0 < marker.color.a < 1.0 else None
        if marker.type == ARROW:
            return scene.add_frame(name, axes_length=max(scale.x, 0.02),
                                   axes_radius=max(scale.y, 0.002) / 2, **pose)
        if marker.type == CUBE:
            return scene.add_box(name, colour, (scale.x, scale.y, scale.z), opacity=opacity,
                                 **pose)
        if marker.type == SPHERE:
            return scene.add_icosphere(name, 0.5, colour, scale=(scale.x, scale.y, scale.z),
                                       opacity=opacity, **pose)
        if marker.type == CYLINDER:
            return scene.add_cylinder(name, 0.5 * scale.x, scale.z, colour, opacity=opacity,
                                      **pose)
        if marker.type in (LINE_LIST, LINE_STRIP) and len(marker.points) >= 2:
            points = np.array([(p.x, p.y, p.z) for p in marker.points], dtype=np.float32)
            if marker.type == LINE_STRIP:
                points = np.repeat(points, 2, axis=0)[1:-1]
            segments = points[:len(points) // 2 * 2].reshape(-1, 2, 3)
            return scene.add_line_segments(name, segments, colour,
                                           thickness=max(scale.x, 0.002), **pose)
        return None
