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

Also the rates at which witness points move along their normals (the velocity damper's
rows).

``elements = (body, kind, ends, radius, box_pose, half, vertices, vertex_count)`` as in
:mod:`ros_ik.collision.distance_kernels`, in the bodies' aligned frames (``vertices``
(elements, k, 3): the first ``vertex_count[e]`` span a hull around the shape a capsule
stands for: a mesh's hull, a box's corners, a prism around a cylinder; none for spheres and
the scene's boxes); body poses come
from the chain walk ``G_j`` (body 0: the base, identity). A pair whose bounding spheres are
at least ``cutoff`` apart (for a box: the box's signed distance at the capsule's bounding
sphere center, less its radius) gets that gap, a lower bound of its clearance, instead of
the exact proxy distance: enough to know it is clear, at a fraction of the cost. Where
the shapes' vertices are known, the proxies' distance is raised to a separating-axis gap of
the shapes themselves (``box_face_gap``, ``hull_axis_gap``): each bounds the shapes'
clearance from below, and a capsule fitted around a gripper or a link's elbow stands
centimetres proud of it.
"""

import numba
import numpy as np
from ros_ik.collision.distance_kernels import (BOX, box_face_gap, box_local,
                                               box_signed_distance, element_distance,
                                               hull_axis_gap, place_element_into,
                                               place_elements_into)
from ros_ik.kinematics.chain_kinematics import aligned_frames_into

AXIS_EPSILON = 1e-9  # m: witnesses closer than this give no direction to project on


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
def _capsule_sphere(e: int, radius: np.ndarray, world_ends: np.ndarray,
                    center: np.ndarray) -> float:
    """
    Write the center of capsule ``e``'s bounding sphere into ``center``; return its radius.

    The axis midpoint, and half the axis length plus the capsule's radius (m, base frame).
    Scalar loops: an array expression here would allocate its temporaries for every pair
    of every call.
    """
    length_squared = 0.0
    for i in range(3):
        start, end = world_ends[e, 0, i], world_ends[e, 1, i]
        center[i] = 0.5 * (start + end)
        length_squared += (end - start) ** 2
    return radius[e] + 0.5 * np.sqrt(length_squared)


@numba.njit(cache=True, nogil=True)
def _proxy_clearance(a: int, b: int, elements, bodies: np.ndarray, world_ends: np.ndarray,
                     world_box: np.ndarray, p_a: np.ndarray, p_b: np.ndarray) -> float:
    """
    Return a lower bound (m) of the clearance of placed elements ``a`` and ``b``.

    The proxies' distance (:func:`element_distance`; its witnesses in ``p_a``, ``p_b``),
    raised where the shapes' vertices are known: for a capsule and a box to the box-face
    gap, for two capsules to the gap of the two hulls along the line between the capsules'
    closest axis points (``p_b - p_a``, reversed when the capsules overlap).
    """
    body, kind, _, radius, _, half, vertices, vertex_count = elements
    distance = element_distance(a, b, kind, radius, half, world_ends, world_box, p_a, p_b)
    if kind[a] == BOX:
        a, b = b, a
    if vertex_count[a] == 0:
        return distance
    if kind[b] == BOX:
        return max(distance, box_face_gap(vertices[a], vertex_count[a], bodies[body[a]],
                                          world_box[b], half[b]))
    x, y, z = p_b[0] - p_a[0], p_b[1] - p_a[1], p_b[2] - p_a[2]
    length = np.sqrt(x * x + y * y + z * z)
    if vertex_count[b] == 0 or length < AXIS_EPSILON or distance == 0.0:
        return distance
    scale = np.sign(distance) / length
    axis = np.array((x * scale, y * scale, z * scale))
    return max(distance, hull_axis_gap(vertices[a], vertex_count[a], bodies[body[a]],
                                       vertices[b], vertex_count[b], bodies[body[b]], axis))


@numba.njit(cache=True, nogil=True)
def clearances_into(bodies: np.ndarray, elements, pair_a: np.ndarray, pair_b: np.ndarray,
                    cutoff: float, world_ends: np.ndarray, world_box: np.ndarray,
                    out: np.ndarray) -> None:
    """Write each pair's proxy clearance (m; sphere gap when above ``cutoff``) into ``out``."""
    body, kind, ends, radius, box_pose, half, _, _ = elements
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
        reach = _capsule_sphere(a, radius, world_ends, center_a)  # never a box: swapped
        if kind[b] == BOX:  # the box's own distance function at the capsule's center
            box_local(center_a, world_box[b], local)
            gap = box_signed_distance(local, half[b]) - reach
        else:
            reach += _capsule_sphere(b, radius, world_ends, center_b)
            gap = np.sqrt((center_b[0] - center_a[0]) ** 2 + (center_b[1] - center_a[1]) ** 2
                          + (center_b[2] - center_a[2]) ** 2) - reach
        if gap >= cutoff:
            out[p] = gap
        else:
            out[p] = _proxy_clearance(a, b, elements, bodies, world_ends, world_box, p_a, p_b)


@numba.njit(cache=True, nogil=True)
def raise_to_measured_into(bounds: np.ndarray, q: np.ndarray, measured_at: np.ndarray,
                           measured: np.ndarray, pair_weights: np.ndarray) -> None:
    """
    Raise each pair's clearance bound (m) to what its last exact measure still guarantees.

    A pair measured at clearance ``measured[p]`` (m) at the joints ``measured_at[p]`` (n,)
    keeps at least ``measured[p] - sum_j pair_weights[p, j] |q_j - measured_at[p, j]|`` at
    ``q`` (``pair_weights``: m per rad or m of each joint). NaN on either side yields the
    other (as ``np.fmax``).
    """
    for p in range(bounds.shape[0]):
        lost = 0.0
        for j in range(q.shape[0]):
            lost += pair_weights[p, j] * abs(q[j] - measured_at[p, j])
        kept = measured[p] - lost
        if kept > bounds[p] or np.isnan(bounds[p]):
            bounds[p] = kept


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


@numba.njit(cache=True, nogil=True)
def normal_rates_into(G: np.ndarray, prismatic: np.ndarray, bodies: np.ndarray,
                      points: np.ndarray, normals: np.ndarray, out: np.ndarray) -> None:
    """
    Write ``out[k, j] = n_k^T J_p(p_k)[:, j]``: point k's speed along its normal per joint.

    ``G`` (n, 3, 4): the aligned frames (axis ``z_j`` column 2, origin ``o_j`` column 3, base
    frame); point ``p_k`` (m) is fixed on body ``bodies[k]`` (0: the base), ``n_k`` a unit
    vector. Revolute: ``n^T (z_j x (p - o_j)) = z_j^T ((p - o_j) x n)``; prismatic:
    ``n^T z_j``; zero for the joints from the body on (they do not move it).
    """
    for k in range(points.shape[0]):
        n0, n1, n2 = normals[k, 0], normals[k, 1], normals[k, 2]
        for j in range(G.shape[0]):
            if j >= bodies[k]:
                out[k, j] = 0.0
            elif prismatic[j]:
                out[k, j] = G[j, 0, 2] * n0 + G[j, 1, 2] * n1 + G[j, 2, 2] * n2
            else:
                r0 = points[k, 0] - G[j, 0, 3]
                r1 = points[k, 1] - G[j, 1, 3]
                r2 = points[k, 2] - G[j, 2, 3]
                out[k, j] = (G[j, 0, 2] * (r1 * n2 - r2 * n1) + G[j, 1, 2] * (r2 * n0 - r0 * n2)
                             + G[j, 2, 2] * (r0 * n1 - r1 * n0))


OPEN, PROVEN, MEASURE_FROM = 0, 1, 2  # walk outcomes; violations are -1 - sample
UNKNOWN, BOUND, MEASURED = 0, 1, 2


@numba.njit(cache=True, nogil=True)
def _proxy_at(Q: np.ndarray, k: int, A: np.ndarray, prismatic: np.ndarray, elements, a: int,
              b: int, G: np.ndarray, sample_bodies: np.ndarray, posed: np.ndarray,
              world_ends: np.ndarray, world_box: np.ndarray, p_a: np.ndarray,
              p_b: np.ndarray) -> float:
    """
    Return the proxy clearance of elements ``a``, ``b`` at sample ``Q[k]``.

    The body poses at ``Q[k]`` are computed on the first visit of sample ``k``
    (``posed[k]``) and kept in ``sample_bodies[k]``; only ``a`` and ``b`` are placed.
    """
    body, _, ends, _, box_pose, _, _, _ = elements
    if not posed[k]:
        body_poses_into(Q[k], A, prismatic, G, sample_bodies[k])
        posed[k] = True
    bodies = sample_bodies[k]
    place_element_into(a, bodies, body, ends, box_pose, world_ends, world_box)
    place_element_into(b, bodies, body, ends, box_pose, world_ends, world_box)
    return _proxy_clearance(a, b, elements, bodies, world_ends, world_box, p_a, p_b)


@numba.njit(cache=True, nogil=True)
def walk_pairs(Q: np.ndarray, A: np.ndarray, prismatic: np.ndarray, elements,
               pair_a: np.ndarray, pair_b: np.ndarray, travelled: np.ndarray,
               padding: float, values: np.ndarray, state: np.ndarray, cursor: np.ndarray,
               outcome: np.ndarray, sample_bodies: np.ndarray, posed: np.ndarray) -> int:
    """
    Walk every open pair (column) along the samples ``Q``; return how many need a measure.

    ``travelled`` (k, pairs): each pair's cumulative motion bound from sample 0;
    ``values`` (k, pairs): clearances where ``state`` is ``BOUND`` (a lower bound: proxy, or
    what an earlier clearance guarantees) or ``MEASURED`` (coal), proxies computed here
    only at the samples a walk visits. From a clearance ``c`` at sample i every instant up
    to sample j is clear while ``travelled_j - travelled_i <= c - padding``, and then
    ``c - (travelled_j - travelled_i)`` bounds the clearance at j; where that does not
    reach the next sample, ``c_i + c_{i+1} >= 2 padding + S_i`` covers the interval.
    ``outcome[column]`` (in and out): ``OPEN`` while walking, then ``PROVEN``,
    ``-1 - k`` for a violation at sample k, or ``MEASURE_FROM + k`` when sample k must be
    measured with coal (then call again: the walk resumes at ``cursor``).
    ``sample_bodies`` (k, n + 1, 3, 4) and ``posed`` (k,) (in and out): the body poses at
    the samples visited so far, shared by the pairs and kept between calls.
    """
    count, n = Q.shape
    element_count = elements[0].shape[0]
    G = np.empty((n, 3, 4))
    world_ends = np.empty((element_count, 2, 3))
    world_box = np.empty((element_count, 3, 4))
    p_a = np.empty(3)
    p_b = np.empty(3)
    pending = 0
    for column in range(values.shape[1]):
        if outcome[column] != OPEN:
            continue
        a, b = pair_a[column], pair_b[column]
        while True:
            k = cursor[column]
            if state[k, column] == UNKNOWN:
                values[k, column] = _proxy_at(Q, k, A, prismatic, elements, a, b, G,
                                              sample_bodies, posed, world_ends, world_box,
                                              p_a, p_b)
                state[k, column] = BOUND
            value = values[k, column]
            if value < padding:
                outcome[column] = -1 - k if state[k, column] == MEASURED else MEASURE_FROM + k
                break
            if k == count - 1:
                outcome[column] = PROVEN
                break
            budget = travelled[k, column] + value - padding
            reach = k
            while reach + 1 < count and travelled[reach + 1, column] <= budget:
                reach += 1
            if reach == count - 1:
                outcome[column] = PROVEN
                break
            if reach > k:
                guaranteed = value - (travelled[reach, column] - travelled[k, column])
                if state[reach, column] == UNKNOWN:
                    values[reach, column] = _proxy_at(Q, reach, A, prismatic, elements, a, b,
                                                      G, sample_bodies, posed, world_ends,
                                                      world_box, p_a, p_b)
                    state[reach, column] = BOUND
                values[reach, column] = max(values[reach, column], guaranteed)
                cursor[column] = reach
                continue
            following = k + 1
            if state[following, column] == UNKNOWN:
                values[following, column] = _proxy_at(Q, following, A, prismatic, elements, a,
                                                      b, G, sample_bodies, posed, world_ends,
                                                      world_box, p_a, p_b)
                state[following, column] = BOUND
            interval = travelled[following, column] - travelled[k, column]
            if (values[following, column] >= padding
                    and value + values[following, column] >= 2.0 * padding + interval):
                cursor[column] = following
            elif state[k, column] != MEASURED:
                outcome[column] = MEASURE_FROM + k
                break
            elif state[following, column] != MEASURED:
                outcome[column] = MEASURE_FROM + following
                break
            else:
                outcome[column] = -1 - following
                break
        if outcome[column] >= MEASURE_FROM:
            pending += 1
    return pending
