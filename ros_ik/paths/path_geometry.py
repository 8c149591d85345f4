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
The tool's Cartesian path through waypoints: straight segments, slerp, optional blends.

Poses are in the chain's base frame (metres, radians). Between waypoints ``W_i`` and
``W_{i+1}`` the tool moves on the straight segment with its orientation interpolated by
slerp, both in step: at the same fraction ``u`` of the segment the position is
``p_i + u (p_{i+1} - p_i)`` and the orientation ``R_i exp(u log(R_i^T R_{i+1}))``.

**Path length** ``s`` (m) is the parameter of everything that follows: on a segment
``ds^2 = dp^2 + (r dtheta)^2`` with ``r = ROTATION_LENGTH`` (a radian of tool rotation
counts as 0.1 m, the arc of a point 10 cm off the tool axis; 0 for a position-only path),
so a segment that only turns the tool still has a length and progress on it is measured.

**Blends.** With ``blend_radius`` b > 0, each inner waypoint whose segments meet at an
angle is replaced by a blend over ``[s_W - b', s_W + b']`` (``b' = min(b, half of each
neighbouring segment)``): position and, in the tangent space of ``SO(3)`` at ``R_W``,
the rotation vector follow quintic Hermite curves that match the segments' value, first
and second derivative (zero) at both ends, so the path is C2 in ``s``: the joints'
accelerations never jump there. Without blends the tool comes to rest at such a
waypoint (a *rest point*: the path is timed stretch by stretch between rest points).
Waypoints where the segments continue in the same direction at the same rates are no
rest points.

**Pieces.** The path is a sequence of pieces, each with ``u = s - s0`` in ``[0, s1 -
s0]``: ``p(u) = sum_k P_k u^k`` and ``R(u) = R_ref exp([h(u)]x)``, ``h(u) = sum_k H_k u^k``
(degree <= 5). Its tangent ``dp/ds`` and the angular rate ``w = R_ref J_l(h) dh/ds``
(space frame, rad per m of path; ``J_l`` the left Jacobian of ``SO(3)``) drive the joint
path's continuation. Evaluation is compiled (numba) for the kernels of
:mod:`ros_ik.paths.joint_path`.
"""

from typing import Tuple

import numba
import numpy as np

from ros_ik.kinematics.transforms import rotation_vector

ROTATION_LENGTH = 0.1  # m of path length per radian of tool rotation
SMOOTH_CORNER = 1e-9  # rates (per m of path) this close: the segments continue smoothly
DEGREE = 6  # polynomial coefficients per piece (quintic)
LINE_ROUNDING = 1e-9  # of a segment's length: less is left of it between two blends


@numba.njit(cache=True, nogil=True)
def piece_of(starts: np.ndarray, s: float) -> int:
    """Return the index of the piece holding path length ``s`` (clamped to the ends)."""
    low, high = 0, starts.shape[0] - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= s:
            low = middle
        else:
            high = middle - 1
    return low


@numba.njit(cache=True, nogil=True)
def _so3_exp_into(h: np.ndarray, R: np.ndarray) -> None:
    """Write ``exp([h]x)`` (Rodrigues) into ``R`` (3, 3)."""
    angle = np.sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2])
    if angle < 1e-12:
        a, b = 1.0, 0.5
    else:
        a, b = np.sin(angle) / angle, (1.0 - np.cos(angle)) / (angle * angle)
    x, y, z = h[0], h[1], h[2]
    R[0, 0] = 1.0 - b * (y * y + z * z)
    R[1, 1] = 1.0 - b * (x * x + z * z)
    R[2, 2] = 1.0 - b * (x * x + y * y)
    R[0, 1], R[1, 0] = b * x * y - a * z, b * x * y + a * z
    R[0, 2], R[2, 0] = b * x * z + a * y, b * x * z - a * y
    R[1, 2], R[2, 1] = b * y * z - a * x, b * y * z + a * x


@numba.njit(cache=True, nogil=True)
def _left_jacobian_times(h: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    """Write ``J_l(h) v`` (3,): ``v + (1 - cos t)/t^2 h x v + (t - sin t)/t^3 h x (h x v)``."""
    angle = np.sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2])
    if angle < 1e-6:
        b, c = 0.5, 1.0 / 6.0
    else:
        b = (1.0 - np.cos(angle)) / (angle * angle)
        c = (angle - np.sin(angle)) / (angle * angle * angle)
    hv0 = h[1] * v[2] - h[2] * v[1]
    hv1 = h[2] * v[0] - h[0] * v[2]
    hv2 = h[0] * v[1] - h[1] * v[0]
    hhv0 = h[1] * hv2 - h[2] * hv1
    hhv1 = h[2] * hv0 - h[0] * hv2
    hhv2 = h[0] * hv1 - h[1] * hv0
    out[0] = v[0] + b * hv0 + c * hhv0
    out[1] = v[1] + b * hv1 + c * hhv1
    out[2] = v[2] + b * hv2 + c * hhv2


@numba.njit(cache=True, nogil=True)
def path_pose_into(starts: np.ndarray, P: np.ndarray, H: np.ndarray, R_ref: np.ndarray,
                   s: float, T: np.ndarray) -> None:
    """Write the tool pose ``T_base_tool`` (4, 4) at path length ``s`` (m)."""
    k = piece_of(starts, s)
    u = s - starts[k]
    h = np.zeros(3)
    power = 1.0
    for i in range(3):
        T[i, 3] = 0.0
    for d in range(DEGREE):
        for i in range(3):
            T[i, 3] += P[k, d, i] * power
            h[i] += H[k, d, i] * power
        power *= u
    R_local = np.empty((3, 3))
    _so3_exp_into(h, R_local)
    for i in range(3):
        for j in range(3):
            T[i, j] = (R_ref[k, i, 0] * R_local[0, j] + R_ref[k, i, 1] * R_local[1, j]
                       + R_ref[k, i, 2] * R_local[2, j])
    T[3, 0], T[3, 1], T[3, 2], T[3, 3] = 0.0, 0.0, 0.0, 1.0


@numba.njit(cache=True, nogil=True)
def path_tangent_into(starts: np.ndarray, P: np.ndarray, H: np.ndarray, R_ref: np.ndarray,
                      s: float, tangent: np.ndarray, from_below: bool = False) -> None:
    """
    Write ``[dp/ds; w]`` (6,) at ``s``: m per m and rad per m, space frame.

    At a piece boundary the piece starting there counts, or with ``from_below`` the piece
    ending there (the rate a stretch arrives with at a rest point).
    """
    k = piece_of(starts, s)
    if from_below and k > 0 and starts[k] == s:
        k -= 1
    u = s - starts[k]
    h = np.zeros(3)
    dh = np.zeros(3)
    power = 1.0
    for i in range(3):
        tangent[i] = 0.0
    for d in range(DEGREE):
        for i in range(3):
            h[i] += H[k, d, i] * power
            if d + 1 < DEGREE:
                tangent[i] += (d + 1) * P[k, d + 1, i] * power
                dh[i] += (d + 1) * H[k, d + 1, i] * power
        power *= u
    w_local = np.empty(3)
    _left_jacobian_times(h, dh, w_local)
    for i in range(3):
        tangent[3 + i] = (R_ref[k, i, 0] * w_local[0] + R_ref[k, i, 1] * w_local[1]
                          + R_ref[k, i, 2] * w_local[2])


@numba.njit(cache=True, nogil=True)
def path_poses_into(starts: np.ndarray, P: np.ndarray, H: np.ndarray, R_ref: np.ndarray,
                    s: np.ndarray, T: np.ndarray) -> None:
    """Write the tool poses (k, 4, 4) at path lengths ``s`` (k,) into ``T``."""
    for k in range(s.shape[0]):
        path_pose_into(starts, P, H, R_ref, s[k], T[k])


def _blend_coefficients(start: np.ndarray, rate_in: np.ndarray, end: np.ndarray,
                        rate_out: np.ndarray, span: np.ndarray) -> np.ndarray:
    """
    Return quintics ``x(u)`` (b, 6, 3) on ``[0, span]`` matching two lines' ends (b rows).

    ``x(0) = start``, ``x'(0) = rate_in``, ``x(span) = end``, ``x'(span) = rate_out`` and
    ``x''(0) = x''(span) = 0``: ``x = start + rate_in u + c3 u^3 + c4 u^4 + c5 u^5`` with
    ``D = end - start - rate_in span``, ``E = (rate_out - rate_in) span`` and ``c3 = (10 D
    - 4 E) / span^3``, ``c4 = (7 E - 15 D) / span^4``, ``c5 = (6 D - 3 E) / span^5``.
    """
    span = span[:, None]
    D = end - start - rate_in * span
    E = (rate_out - rate_in) * span
    coefficients = np.zeros((len(span), DEGREE, 3))
    coefficients[:, 0], coefficients[:, 1] = start, rate_in
    coefficients[:, 3] = (10.0 * D - 4.0 * E) / span ** 3
    coefficients[:, 4] = (7.0 * E - 15.0 * D) / span ** 4
    coefficients[:, 5] = (6.0 * D - 3.0 * E) / span ** 5
    return coefficients


class CartesianPath:
    """
    The tool's path through waypoints (see the module docstring); immutable.

    Per segment ``i`` (waypoint i to i + 1): ``lengths`` (m of path), ``linear_rates``
    (``dp/ds``) and ``angular_rates`` (body-frame rotation vector per m of path).
    ``waypoint_s`` (k,): the path length at each waypoint; ``rest_s``: the rest points,
    first and last waypoint included (the stretches between them are timed separately).
    """

    def __init__(self, T_base_waypoints: np.ndarray, blend_radius: float = 0.0,
                 position_only: bool = False) -> None:
        """
        Build the path through ``T_base_waypoints`` (k, 4, 4), k >= 2, distinct neighbours.

        ``position_only``: the orientation is not part of the path (no rotation length,
        the tool's orientation stays free).
        """
        poses = np.asarray(T_base_waypoints, dtype=float)
        if poses.ndim != 3 or poses.shape[0] < 2 or poses.shape[1:] != (4, 4):
            raise ValueError('a Cartesian path needs at least two waypoints (k, 4, 4)')
        self.position_only = position_only
        self.T_waypoints = poses
        dp = poses[1:, :3, 3] - poses[:-1, :3, 3]
        rotations = (np.zeros_like(dp) if position_only else rotation_vector(
            np.swapaxes(poses[:-1, :3, :3], 1, 2) @ poses[1:, :3, :3]))
        self.lengths = np.sqrt((dp * dp).sum(axis=1)
                               + ROTATION_LENGTH ** 2 * (rotations * rotations).sum(axis=1))
        if self.lengths.min() <= 0.0:
            raise ValueError('consecutive waypoints must differ (drop repeated ones)')
        self.linear_rates = dp / self.lengths[:, None]
        self.angular_rates = rotations / self.lengths[:, None]
        self.waypoint_s = np.concatenate([[0.0], np.cumsum(self.lengths)])
        self.length = float(self.waypoint_s[-1])
        smooth = ((np.abs(np.diff(self.linear_rates, axis=0)).max(axis=1) <= SMOOTH_CORNER)
                  & (np.abs(np.diff(self.angular_rates, axis=0)).max(axis=1)
                     <= SMOOTH_CORNER))
        spans = np.where(smooth, 0.0, np.minimum.reduce([
            np.full(len(smooth), max(blend_radius, 0.0)), 0.5 * self.lengths[:-1],
            0.5 * self.lengths[1:]]))
        resting = ~smooth & (spans == 0.0)
        self.rest_s = np.concatenate([[0.0], self.waypoint_s[1:-1][resting], [self.length]])
        self.blend_spans = spans
        self.starts, self.P, self.H, self.R_ref = self._pieces(spans)

    def _pieces(self, spans: np.ndarray) -> Tuple[np.ndarray, ...]:
        """Return the pieces (starts, P, H, R_ref) of the segments and blends, in order."""
        poses = self.T_waypoints
        before = np.concatenate([[0.0], spans])  # blend half-length at each segment's start
        after = np.concatenate([spans, [0.0]])
        line_starts = self.waypoint_s[:-1] + before
        P = np.zeros((len(self.lengths), DEGREE, 3))
        H = np.zeros((len(self.lengths), DEGREE, 3))
        P[:, 0] = poses[:-1, :3, 3] + self.linear_rates * before[:, None]
        P[:, 1] = self.linear_rates
        H[:, 0], H[:, 1] = self.angular_rates * before[:, None], self.angular_rates
        # a segment consumed by the blends at both ends (to rounding) leaves no line piece
        kept = ((self.lengths - before - after > LINE_ROUNDING * self.lengths)
                | ((before == 0.0) & (after == 0.0)))
        blended = np.flatnonzero(spans > 0.0)  # inner waypoint blended + 1
        b = spans[blended]
        W = poses[blended + 1]
        incoming_p, outgoing_p = self.linear_rates[blended], self.linear_rates[blended + 1]
        incoming_w, outgoing_w = self.angular_rates[blended], self.angular_rates[blended + 1]
        blend_P = _blend_coefficients(W[:, :3, 3] - incoming_p * b[:, None], incoming_p,
                                      W[:, :3, 3] + outgoing_p * b[:, None], outgoing_p,
                                      2.0 * b)
        blend_H = _blend_coefficients(-incoming_w * b[:, None], incoming_w,
                                      outgoing_w * b[:, None], outgoing_w, 2.0 * b)
        starts = np.concatenate([line_starts[kept], self.waypoint_s[blended + 1] - b])
        order = np.argsort(starts, kind='stable')
        return (starts[order], np.ascontiguousarray(np.concatenate([P[kept], blend_P])[order]),
                np.ascontiguousarray(np.concatenate([H[kept], blend_H])[order]),
                np.ascontiguousarray(np.concatenate([poses[:-1, :3, :3][kept],
                                                     W[:, :3, :3]])[order]))

    @property
    def arrays(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(starts, P, H, R_ref)``: the pieces, for the compiled kernels."""
        return self.starts, self.P, self.H, self.R_ref

    def pose_at(self, s: float) -> np.ndarray:
        """Return ``T_base_tool`` (4, 4) at path length ``s`` (clamped to the path)."""
        T = np.empty((4, 4))
        path_pose_into(self.starts, self.P, self.H, self.R_ref,
                       min(max(float(s), 0.0), self.length), T)
        return T

    def poses_at(self, s: np.ndarray) -> np.ndarray:
        """Return ``T_base_tool`` (k, 4, 4) at each path length of ``s`` (k,)."""
        s = np.clip(np.asarray(s, dtype=float).reshape(-1), 0.0, self.length)
        out = np.empty((len(s), 4, 4))
        path_poses_into(self.starts, self.P, self.H, self.R_ref, s, out)
        return out

    def tangent_at(self, s: float) -> np.ndarray:
        """Return ``[dp/ds; w]`` (6,) at ``s``: m and rad (space frame) per m of path."""
        tangent = np.empty(6)
        path_tangent_into(self.starts, self.P, self.H, self.R_ref,
                          min(max(float(s), 0.0), self.length), tangent)
        return tangent

    def segment_index(self, s: float) -> int:
        """Return the index of the segment holding ``s`` (waypoint i to waypoint i + 1)."""
        index = int(np.searchsorted(self.waypoint_s, s, side='right')) - 1
        return min(max(index, 0), len(self.lengths) - 1)

    def points(self, spacing: float) -> np.ndarray:
        """Return tool positions (k, 3) along the path at most ``spacing`` m of path apart."""
        count = max(int(np.ceil(self.length / spacing)), 1) + 1
        return self.poses_at(np.linspace(0.0, self.length, count))[:, :3, 3]
