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

"""How far points are from a polyline: the reference of the Cartesian path tests."""

from typing import Sequence

import numpy as np


def distance_from_polyline(points: np.ndarray, corners: Sequence[np.ndarray]) -> np.ndarray:
    """
    Return each point's distance (k,) to the polyline through ``corners`` (positions or 4x4).

    The distance to the nearest point of any segment (m, the points' frame).
    """
    ends = np.array([np.asarray(corner)[:3, 3] if np.ndim(corner) == 2 else corner
                     for corner in corners], dtype=float)
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    distances = []
    for a, b in zip(ends[:-1], ends[1:]):
        length = np.linalg.norm(b - a)
        direction = (b - a) / length
        along = np.clip((points - a) @ direction, 0.0, length)
        distances.append(np.linalg.norm(points - a - along[:, None] * direction, axis=1))
    return np.min(distances, axis=0)
