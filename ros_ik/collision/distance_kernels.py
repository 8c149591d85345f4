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
Signed distances between the proxy elements, compiled with numba.

An element is a capsule (segment ``[e0, e1]`` swept by a sphere of radius ``r``; a sphere
when ``e0 = e1``) or an oriented box (``T_body_box`` 3x4, half extents ``h``), fixed on a
body: body 0 is the chain's base, body ``j + 1`` the aligned frame ``G_j`` of moving joint
``j`` (:class:`ros_ik.kinematics.chain_kinematics.ChainKinematics`). Element geometry is
stored in its body's frame.

* capsule - capsule: ``d = |c_a - c_b| - r_a - r_b`` with ``c_a``, ``c_b`` the closest
  points of the two segments (Ericson, Real-Time Collision Detection, 5.1.9);
* capsule - box: ``d = min_t sdf_box(e0 + t (e1 - e0)) - r``, where the box's signed
  distance function ``sdf(y) = |max(|y| - h, 0)| + min(max_i(|y_i| - h_i), 0)`` (box
  frame) is convex, so its minimum over the segment is found by golden-section search.

Both are negative when the elements overlap. A capsule that stands for a mesh, a box or a
cylinder also keeps vertices whose hull contains that shape (in its body frame); against a box,
:func:`box_face_gap` bounds the shape's own distance from below, often far closer than
the capsule's (a gripper over a table). Box - box pairs are never formed (robot links
and attached objects are capsules). Each result also gives the witness points ``p_a`` on
a and ``p_b`` on b (base frame, m); ``n = (p_b - p_a) / |p_b - p_a|`` is the direction in
which the distance grows when b moves (for overlapping capsules, along the segments'
closest points).
"""

from typing import Tuple

import numba
import numpy as np

CAPSULE = 0
BOX = 1
GOLDEN_STEPS = 32  # 0.618^32 = 2e-7 of the segment length
GOLDEN_RATIO = 0.6180339887498949
PARALLEL_EPSILON = 1e-12


@numba.njit(cache=True, nogil=True)
def dot3(u: np.ndarray, v: np.ndarray) -> float:
    """Return ``u . v`` of two 3-vectors (no BLAS)."""
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


@numba.njit(cache=True, nogil=True)
def _clamp01(value: float) -> float:
    """Return ``value`` clamped to [0, 1]."""
    return min(max(value, 0.0), 1.0)


@numba.njit(cache=True, nogil=True)
def segment_closest_points(p1: np.ndarray, q1: np.ndarray, p2: np.ndarray, q2: np.ndarray,
                           c1: np.ndarray, c2: np.ndarray) -> None:
    """
    Write the closest points of segments ``[p1, q1]`` and ``[p2, q2]`` into ``c1``, ``c2``.

    ``c1 = p1 + s d1``, ``c2 = p2 + t d2`` (``d1 = q1 - p1``, ``d2 = q2 - p2``, ``s, t`` in
    [0, 1]) minimise ``|c1 - c2|``: the unconstrained minimum of the two lines, clamped to
    the segments (degenerate segments are points). Written with scalars: no temporaries.
    """
    a = e = f = c = b = 0.0
    for i in range(3):
        d1, d2, r = q1[i] - p1[i], q2[i] - p2[i], p1[i] - p2[i]
        a += d1 * d1
        e += d2 * d2
        f += d2 * r
        c += d1 * r
        b += d1 * d2
    if a <= PARALLEL_EPSILON and e <= PARALLEL_EPSILON:
        s = t = 0.0
    elif a <= PARALLEL_EPSILON:
        s = 0.0
        t = _clamp01(f / e)
    elif e <= PARALLEL_EPSILON:
        t = 0.0
        s = _clamp01(-c / a)
    else:
        denominator = a * e - b * b
        s = _clamp01((b * f - c * e) / denominator) if denominator > PARALLEL_EPSILON else 0.0
        t = (b * s + f) / e
        if t < 0.0:
            t = 0.0
            s = _clamp01(-c / a)
        elif t > 1.0:
            t = 1.0
            s = _clamp01((b - c) / a)
    for i in range(3):
        c1[i] = p1[i] + (q1[i] - p1[i]) * s
        c2[i] = p2[i] + (q2[i] - p2[i]) * t


@numba.njit(cache=True, nogil=True)
def box_signed_distance(y: np.ndarray, half: np.ndarray) -> float:
    """Return the signed distance (m) of point ``y`` (box frame) to the box ``|y_i| <= h_i``."""
    outside = 0.0
    inside = -np.inf
    for i in range(3):
        q = abs(y[i]) - half[i]
        if q > 0.0:
            outside += q * q
        inside = max(inside, q)
    return np.sqrt(outside) + min(inside, 0.0)


@numba.njit(cache=True, nogil=True)
def box_closest_point(y: np.ndarray, half: np.ndarray, out: np.ndarray) -> None:
    """Write the point of the box surface closest to ``y`` (box frame) into ``out``."""
    deepest, axis = -np.inf, 0
    inside = True
    for i in range(3):
        out[i] = min(max(y[i], -half[i]), half[i])
        q = abs(y[i]) - half[i]
        if q > 0.0:
            inside = False
        if q > deepest:
            deepest, axis = q, i
    if inside:
        out[axis] = half[axis] if y[axis] >= 0.0 else -half[axis]


@numba.njit(cache=True, nogil=True)
def box_local(x: np.ndarray, T_box: np.ndarray, out: np.ndarray) -> None:
    """Write ``R^T (x - p)`` of the box pose ``T_box`` (3x4) into ``out``."""
    for i in range(3):
        out[i] = (T_box[0, i] * (x[0] - T_box[0, 3]) + T_box[1, i] * (x[1] - T_box[1, 3])
                  + T_box[2, i] * (x[2] - T_box[2, 3]))


@numba.njit(cache=True, nogil=True)
def _segment_box_sdf(e0: np.ndarray, e1: np.ndarray, t: float, T_box: np.ndarray,
                     half: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """Return the box's signed distance at ``x = e0 + t (e1 - e0)``; ``y``: ``x`` in its frame."""
    for i in range(3):
        x[i] = e0[i] + t * (e1[i] - e0[i])
    box_local(x, T_box, y)
    return box_signed_distance(y, half)


@numba.njit(cache=True, nogil=True)
def capsule_box_distance(e0: np.ndarray, e1: np.ndarray, radius: float, T_box: np.ndarray,
                         half: np.ndarray, p_a: np.ndarray, p_b: np.ndarray) -> float:
    """
    Return the signed distance (m) of a capsule and a box (pose ``T_box`` 3x4, base frame).

    Writes the capsule's witness ``p_a`` (on its surface when the axis is outside the box,
    else on the axis) and the box's ``p_b`` (on its surface).
    """
    x = np.empty(3)
    y = np.empty(3)
    low, high = 0.0, 1.0
    t1 = high - GOLDEN_RATIO * (high - low)
    t2 = low + GOLDEN_RATIO * (high - low)
    f1 = _segment_box_sdf(e0, e1, t1, T_box, half, x, y)
    f2 = _segment_box_sdf(e0, e1, t2, T_box, half, x, y)
    for _ in range(GOLDEN_STEPS):
        if f1 <= f2:
            high, t2, f2 = t2, t1, f1
            t1 = high - GOLDEN_RATIO * (high - low)
            f1 = _segment_box_sdf(e0, e1, t1, T_box, half, x, y)
        else:
            low, t1, f1 = t1, t2, f2
            t2 = low + GOLDEN_RATIO * (high - low)
            f2 = _segment_box_sdf(e0, e1, t2, T_box, half, x, y)
    best = 0.5 * (low + high)
    best_value = _segment_box_sdf(e0, e1, best, T_box, half, x, y)
    for end in (0.0, 1.0):  # a minimum at an end is approached slowly by the search
        value = _segment_box_sdf(e0, e1, end, T_box, half, x, y)
        if value < best_value:
            best, best_value = end, value
    distance = _segment_box_sdf(e0, e1, best, T_box, half, x, y)
    surface = np.empty(3)
    box_closest_point(y, half, surface)
    _transform_point(T_box, surface, p_b)
    for i in range(3):
        p_a[i] = x[i] + (p_b[i] - x[i]) * (radius / distance) if distance > 0.0 else x[i]
    return distance - radius


@numba.njit(cache=True, nogil=True)
def capsule_capsule_distance(a0: np.ndarray, a1: np.ndarray, radius_a: float, b0: np.ndarray,
                             b1: np.ndarray, radius_b: float, p_a: np.ndarray,
                             p_b: np.ndarray) -> float:
    """
    Return the signed distance (m) of two capsules; write the witnesses ``p_a``, ``p_b``.

    The axes' closest points ``c_a``, ``c_b`` (:func:`segment_closest_points`), each moved
    by its radius toward the other along ``u = (c_b - c_a) / |c_b - c_a|``; the distance is
    ``|c_b - c_a| - radius_a - radius_b``. Axes that meet (no direction) leave the
    witnesses on the axes.
    """
    segment_closest_points(a0, a1, b0, b1, p_a, p_b)
    x, y, z = p_b[0] - p_a[0], p_b[1] - p_a[1], p_b[2] - p_a[2]
    length = np.sqrt(x * x + y * y + z * z)
    if length > PARALLEL_EPSILON:
        for i, between in enumerate((x, y, z)):
            p_a[i] += between * (radius_a / length)
            p_b[i] -= between * (radius_b / length)
    return length - radius_a - radius_b


@numba.njit(cache=True, nogil=True)
def _transform_point(T: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    """Write ``R x + p`` of the pose ``T`` (3x4) into ``out``."""
    for i in range(3):
        out[i] = T[i, 0] * x[0] + T[i, 1] * x[1] + T[i, 2] * x[2] + T[i, 3]


@numba.njit(cache=True, nogil=True)
def place_elements_into(bodies: np.ndarray, body: np.ndarray, ends: np.ndarray,
                        box_pose: np.ndarray, world_ends: np.ndarray,
                        world_box: np.ndarray) -> None:
    """
    Write every element's geometry in the base frame.

    ``bodies`` (b, 3, 4) are the body poses; element ``e`` on body ``body[e]`` has capsule
    ends ``ends[e]`` (2, 3) and box pose ``box_pose[e]`` (3, 4) in the body frame;
    ``world_ends`` and ``world_box`` receive them in the base frame.
    """
    for e in range(body.shape[0]):
        place_element_into(e, bodies, body, ends, box_pose, world_ends, world_box)


@numba.njit(cache=True, nogil=True)
def place_element_into(e: int, bodies: np.ndarray, body: np.ndarray, ends: np.ndarray,
                       box_pose: np.ndarray, world_ends: np.ndarray,
                       world_box: np.ndarray) -> None:
    """Write element ``e``'s geometry in the base frame (see :func:`place_elements_into`)."""
    T = bodies[body[e]]
    _transform_point(T, ends[e, 0], world_ends[e, 0])
    _transform_point(T, ends[e, 1], world_ends[e, 1])
    for r in range(3):
        for k in range(4):
            world_box[e, r, k] = (T[r, 0] * box_pose[e, 0, k] + T[r, 1] * box_pose[e, 1, k]
                                  + T[r, 2] * box_pose[e, 2, k])
        world_box[e, r, 3] += T[r, 3]


@numba.njit(cache=True, nogil=True)
def element_distance(a: int, b: int, kind: np.ndarray, radius: np.ndarray, half: np.ndarray,
                     world_ends: np.ndarray, world_box: np.ndarray, p_a: np.ndarray,
                     p_b: np.ndarray) -> float:
    """Return the signed distance of placed elements ``a`` and ``b`` (not both boxes)."""
    if kind[a] == CAPSULE and kind[b] == CAPSULE:
        return capsule_capsule_distance(world_ends[a, 0], world_ends[a, 1], radius[a],
                                        world_ends[b, 0], world_ends[b, 1], radius[b], p_a, p_b)
    if kind[b] == BOX:
        return capsule_box_distance(world_ends[a, 0], world_ends[a, 1], radius[a],
                                    world_box[b], half[b], p_a, p_b)
    return capsule_box_distance(world_ends[b, 0], world_ends[b, 1], radius[b], world_box[a],
                                half[a], p_b, p_a)


@numba.njit(cache=True, nogil=True)
def _support_extremes(vertices: np.ndarray, count: int, T: np.ndarray,
                      n: np.ndarray) -> Tuple[float, float]:
    """Return min and max of ``n . (T v)`` over ``vertices[:count]`` (body frame of ``T``)."""
    n0 = T[0, 0] * n[0] + T[1, 0] * n[1] + T[2, 0] * n[2]
    n1 = T[0, 1] * n[0] + T[1, 1] * n[1] + T[2, 1] * n[2]
    n2 = T[0, 2] * n[0] + T[1, 2] * n[1] + T[2, 2] * n[2]
    offset = T[0, 3] * n[0] + T[1, 3] * n[1] + T[2, 3] * n[2]
    low, high = np.inf, -np.inf
    for k in range(count):
        y = n0 * vertices[k, 0] + n1 * vertices[k, 1] + n2 * vertices[k, 2]
        low = min(low, y)
        high = max(high, y)
    return low + offset, high + offset


@numba.njit(cache=True, nogil=True)
def box_face_gap(vertices: np.ndarray, count: int, T_body: np.ndarray, T_box: np.ndarray,
                 half: np.ndarray) -> float:
    """
    Return a lower bound (m) of the distance between a vertex set's convex hull and a box.

    ``vertices[:count]`` (m) are fixed in the frame of the body pose ``T_body`` (3x4, base
    frame); the box is ``|y_i| <= h_i`` in the frame of ``T_box`` (3x4). On the box's axis
    ``i`` the hull spans ``[lo_i, hi_i]`` (its vertices' extremes, box frame) and the box
    ``[-h_i, h_i]``; projecting onto a unit axis shortens no distance, so
    ``max_i max(lo_i - h_i, -h_i - hi_i)`` is at most the distance (the box's face normals
    as separating axes). It equals the distance where the closest points are a vertex and
    the inside of a face (a link above a table); it is negative when the projections
    overlap on every axis. ``-inf`` without vertices.
    """
    if count == 0:
        return -np.inf
    gap = -np.inf
    axis = np.empty(3)
    origin = np.empty(3)
    for r in range(3):
        origin[r] = T_box[r, 3]
    for i in range(3):
        for r in range(3):
            axis[r] = T_box[r, i]
        centre = dot3(axis, origin)  # the box's centre on its axis i
        low, high = _support_extremes(vertices, count, T_body, axis)
        gap = max(gap, low - centre - half[i], centre - high - half[i])
    return gap


@numba.njit(cache=True, nogil=True)
def hull_axis_gap(vertices_a: np.ndarray, count_a: int, T_a: np.ndarray,
                  vertices_b: np.ndarray, count_b: int, T_b: np.ndarray,
                  n: np.ndarray) -> float:
    """
    Return ``min_b n . x_b - max_a n . x_a``: a lower bound (m) of two hulls' distance.

    ``vertices_a[:count_a]`` fixed in the frame of the pose ``T_a`` (3x4, base frame), the
    same for b; ``n`` a unit vector (base frame). Projection onto ``n`` shortens no
    distance, so the gap between the projected hulls bounds their distance from below,
    for any ``n``; closest to it along the direction between the closest points.
    """
    _, high_a = _support_extremes(vertices_a, count_a, T_a, n)
    low_b, _ = _support_extremes(vertices_b, count_b, T_b, n)
    return low_b - high_a
