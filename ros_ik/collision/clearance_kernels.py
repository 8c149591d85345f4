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
Proxy clearances of every checked pair, for one configuration or a whole motion (numba).

``elements = (body, kind, ends, radius, box_pose, half)`` as in
:mod:`ros_ik.collision.distance_kernels`, in the bodies' aligned frames; body poses come
from the chain walk ``G_j`` (body 0: the base, identity). A pair whose bounding spheres are
at least ``cutoff`` apart (for a box: the box's signed distance at the capsule's bounding
sphere center, less its radius) gets that gap, a lower bound of its clearance, instead of
the exact proxy distance: enough to know it is clear, at a fraction of the cost.
"""

import numba
import numpy as np
from ros_ik.collision.distance_kernels import (BOX, box_local, box_signed_distance, dot3,
                                               element_distance, place_elements_into)
from ros_ik.kinematics.chain_kinematics import aligned_frames_into


@numba.njit(cache=True, nogil=True)
def body_poses_into(q: np.ndarray, A: np.ndarray, prismatic: np.ndarray, G: np.ndarray,
                    bodies: np.ndarray) -> None:
    """Write the body poses (n + 1, 3, 4) at ``q``: the base, then each aligned frame."""
    aligned_frames_into(q, A, prismatic, G)
    bodies[0, :, :] = 0.0
    for i in range(3):
        bodies[0, i, i] = 1.0
    bodies[1:] = G


@numba.njit(cache=True, nogil=True)
def _bounding_sphere(e: int, kind: np.ndarray, radius: np.ndarray, half: np.ndarray,
                     world_ends: np.ndarray, world_box: np.ndarray, center: np.ndarray) -> float:
    """Write the center of element ``e``'s bounding sphere into ``center``; return its radius."""
    if kind[e] == BOX:
        center[:] = world_box[e, :, 3]
        return np.sqrt(dot3(half[e], half[e]))
    center[:] = 0.5 * (world_ends[e, 0] + world_ends[e, 1])
    axis = world_ends[e, 1] - world_ends[e, 0]
    return radius[e] + 0.5 * np.sqrt(dot3(axis, axis))


@numba.njit(cache=True, nogil=True)
def clearances_into(bodies: np.ndarray, elements, pair_a: np.ndarray, pair_b: np.ndarray,
                    cutoff: float, world_ends: np.ndarray, world_box: np.ndarray,
                    out: np.ndarray) -> None:
    """Write each pair's proxy clearance (m; sphere gap when above ``cutoff``) into ``out``."""
    body, kind, ends, radius, box_pose, half = elements
    place_elements_into(bodies, body, ends, box_pose, world_ends, world_box)
    center_a = np.empty(3)
    center_b = np.empty(3)
    local = np.empty(3)
    p_a = np.empty(3)
    p_b = np.empty(3)
    for p in range(pair_a.shape[0]):
        a, b = pair_a[p], pair_b[p]
        if kind[a] == BOX:
            a, b = b, a
        reach = _bounding_sphere(a, kind, radius, half, world_ends, world_box, center_a)
        if kind[b] == BOX:  # the box's own distance function at the capsule's center
            box_local(center_a, world_box[b], local)
            gap = box_signed_distance(local, half[b]) - reach
        else:
            reach += _bounding_sphere(b, kind, radius, half, world_ends, world_box, center_b)
            between = center_b - center_a
            gap = np.sqrt(dot3(between, between)) - reach
        if gap >= cutoff:
            out[p] = gap
        else:
            out[p] = element_distance(a, b, kind, radius, half, world_ends, world_box, p_a, p_b)


@numba.njit(cache=True, nogil=True)
def motion_clearances(Q: np.ndarray, A: np.ndarray, prismatic: np.ndarray, elements,
                      pair_a: np.ndarray, pair_b: np.ndarray, cutoff: float) -> np.ndarray:
    """Return the proxy clearances (k, pairs) at each row of ``Q`` (k, n)."""
    n = Q.shape[1]
    count = elements[0].shape[0]
    G = np.empty((n, 3, 4))
    bodies = np.empty((n + 1, 3, 4))
    world_ends = np.empty((count, 2, 3))
    world_box = np.empty((count, 3, 4))
    out = np.empty((Q.shape[0], pair_a.shape[0]))
    for k in range(Q.shape[0]):
        body_poses_into(Q[k], A, prismatic, G, bodies)
        clearances_into(bodies, elements, pair_a, pair_b, cutoff, world_ends, world_box, out[k])
    return out
