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
Rigid-body rotation helpers (numpy; the rotation-vector log map compiled with numba).

Conventions used throughout ros_ik:

* Rotation matrices ``R_a_b`` (3x3) map vectors expressed in frame ``b`` into frame ``a``.
* Homogeneous transforms ``T_a_b`` (4x4) are ``[[R_a_b, p_a_b], [0, 1]]`` with ``p`` in metres.
* Quaternions are ``(x, y, z, w)``, the geometry_msgs order, unit norm.
* Roll-pitch-yaw follows URDF: ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (fixed axes x, y, z).
* A rotation vector ``r`` (radians) is ``angle * unit_axis``; ``exp([r]x)`` is its matrix.

Functions accept a leading batch shape where noted (``...``).
"""

from typing import List, Sequence, Tuple

import numba
import numpy as np

SMALL_ANGLE = 1e-8
# |vee(R - R^T)| = 2 sin(angle) below which a rotation is a half turn to rounding: the
# sign of vee(R - R^T) is noise there (a few 1e-16 for a half turn's product of rotations)
HALF_TURN_NOISE = 1e-12
# a half turn's axis component (of a column of norm >= 1/3) counted as zero below this
AXIS_TIE = 1e-9


def skew(v: np.ndarray) -> np.ndarray:
    """Return the cross-product matrix ``[v]x`` (3x3) with ``[v]x w = v x w``."""
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def axis_angle_matrix(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotate by ``angle`` (rad) about unit ``axis``: Rodrigues ``I + s K + (1 - c) K^2``."""
    K = skew(axis)
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


def rpy_to_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Return ``R = Rz(yaw) Ry(pitch) Rx(roll)`` for URDF ``rpy`` angles (rad)."""
    cr, sr = np.cos(roll), np.sin(roll)
    cp, sp = np.cos(pitch), np.sin(pitch)
    cy, sy = np.cos(yaw), np.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def transform(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Assemble the 4x4 homogeneous transform ``[[R, p], [0, 1]]``."""
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def quaternion_to_matrix(q_xyzw: Sequence[float]) -> np.ndarray:
    """Convert a unit quaternion ``(x, y, z, w)`` to a rotation matrix (3x3)."""
    return np.array(_rotation_rows(*q_xyzw))


def quaternions_to_matrices(q_xyzw: np.ndarray) -> np.ndarray:
    """Convert unit quaternions (k, 4) ``(x, y, z, w)`` to rotation matrices (k, 3, 3)."""
    x, y, z, w = np.asarray(q_xyzw, dtype=float).reshape(-1, 4).T
    return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                     2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                     2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
                    axis=-1).reshape(-1, 3, 3)


def pose_matrix(position: Sequence[float], q_xyzw: Sequence[float]) -> np.ndarray:
    """
    Return the 4x4 transform of position ``(x, y, z)`` and unit quaternion ``(x, y, z, w)``.

    ``[[R(q), p], [0, 1]]`` built from Python floats in one array: a target's pose is
    built once per target, on the path from its arrival to the first command, where each
    numpy call on a tiny array costs 5-20 us with cold caches (``transform`` takes three).
    """
    rows = _rotation_rows(*q_xyzw)
    return np.array([rows[0] + [position[0]], rows[1] + [position[1]],
                     rows[2] + [position[2]], [0.0, 0.0, 0.0, 1.0]])


def _rotation_rows(x: float, y: float, z: float, w: float) -> List[List[float]]:
    """Return the rows of the rotation matrix of the unit quaternion ``(x, y, z, w)``."""
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]


def matrix_to_quaternion(R: np.ndarray) -> np.ndarray:
    """
    Convert a rotation matrix to a unit quaternion ``(x, y, z, w)`` with ``w >= 0``.

    Uses the numerically stable branch on the largest of ``(trace, R_xx, R_yy, R_zz)``.
    """
    trace = np.trace(R)
    if trace > max(R[0, 0], R[1, 1], R[2, 2]):
        s = 2.0 * np.sqrt(1.0 + trace)
        q = np.array([(R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s,
                      (R[1, 0] - R[0, 1]) / s, 0.25 * s])
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + R[i, i] - R[j, j] - R[k, k])
        q = np.empty(4)
        q[i] = 0.25 * s
        q[j] = (R[j, i] + R[i, j]) / s
        q[k] = (R[k, i] + R[i, k]) / s
        q[3] = (R[k, j] - R[j, k]) / s
    if q[3] < 0.0:
        q = -q
    return q / np.linalg.norm(q)


@numba.njit(cache=True, nogil=True)
def rotation_vector_into(R: np.ndarray, r: np.ndarray) -> None:
    """
    Write the rotation vector ``r = angle * axis`` (3,) of a rotation matrix ``R`` (3, 3).

    This is the matrix logarithm ``log(R) = [r]x`` with ``angle`` in [0, pi]. With
    ``v = vee(R - R^T) = 2 sin(angle) axis`` and ``cos(angle) = (trace R - 1) / 2``,
    ``angle = atan2(|v| / 2, cos(angle))`` and ``r = angle v / |v|`` (``v / 2`` as
    ``angle -> 0``). Near pi ``|v|`` vanishes, so the axis is taken from the largest column
    of ``(R + I) / 2 = a a^T`` instead, its sign fixed by ``v``. At a half turn to rounding
    (``|v| <= HALF_TURN_NOISE``) ``v`` is rounding noise and both signs give the same
    rotation: the axis whose first component beyond ``AXIS_TIE`` is positive is returned,
    so the result does not depend on how ``R`` was rounded (a product in BLAS or in a
    loop, or which of two equal diagonal entries counted as the largest).
    """
    v0, v1, v2 = R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]
    twice_sin = np.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    cos_angle = (R[0, 0] + R[1, 1] + R[2, 2] - 1.0) * 0.5
    angle = np.arctan2(0.5 * twice_sin, cos_angle)
    if twice_sin < 1e-6 and cos_angle < 0.0:
        i = 0
        for k in range(1, 3):
            if R[k, k] > R[i, i]:
                i = k
        a0 = 0.5 * (R[0, i] + (1.0 if i == 0 else 0.0))
        a1 = 0.5 * (R[1, i] + (1.0 if i == 1 else 0.0))
        a2 = 0.5 * (R[2, i] + (1.0 if i == 2 else 0.0))
        # trace((R + I) / 2) >= 1, so the largest column has norm >= 1/3.
        factor = angle / np.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        if twice_sin > HALF_TURN_NOISE:
            if a0 * v0 + a1 * v1 + a2 * v2 < 0.0:
                factor = -factor
        elif (a0 if abs(a0) > AXIS_TIE else a1 if abs(a1) > AXIS_TIE else a2) < 0.0:
            factor = -factor
        r[0], r[1], r[2] = a0 * factor, a1 * factor, a2 * factor
        return
    factor = angle / twice_sin if twice_sin > 1e-12 else 0.5
    r[0], r[1], r[2] = v0 * factor, v1 * factor, v2 * factor


@numba.njit(cache=True, nogil=True)
def _rotation_vectors(R: np.ndarray) -> np.ndarray:
    """Return the rotation vectors (b, 3) of rotation matrices ``R`` (b, 3, 3)."""
    r = np.empty((R.shape[0], 3))
    for b in range(R.shape[0]):
        rotation_vector_into(R[b], r[b])
    return r


def rotation_vector(R: np.ndarray) -> np.ndarray:
    """Return the rotation vectors (..., 3) of rotation matrices ``R`` (..., 3, 3)."""
    R = np.asarray(R, dtype=float)
    return _rotation_vectors(np.ascontiguousarray(R.reshape(-1, 3, 3))).reshape(
        R.shape[:-2] + (3,))


def rotation_vector_to_matrix(r: np.ndarray) -> np.ndarray:
    """Return ``exp([r]x)`` for a rotation vector ``r`` (rad)."""
    angle = float(np.linalg.norm(r))
    if angle < SMALL_ANGLE:
        return np.eye(3) + skew(r)
    return axis_angle_matrix(np.asarray(r) / angle, angle)


@numba.njit(cache=True, nogil=True)
def pose_error_into(T_base_target: np.ndarray, T_base_current: np.ndarray,
                    error: np.ndarray) -> None:
    """
    Write :func:`pose_error` of one pose (4, 4) as ``error = [e_p; e_o]`` (6,).

    ``e_p = p_target - p_current`` (m) and ``e_o = log(R_target R_current^T)`` (rad), base
    frame; compiled, for kernels (the servo twist) that need it in one call.
    """
    R_error = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R_error[i, j] = (T_base_target[i, 0] * T_base_current[j, 0]
                             + T_base_target[i, 1] * T_base_current[j, 1]
                             + T_base_target[i, 2] * T_base_current[j, 2])
        error[i] = T_base_target[i, 3] - T_base_current[i, 3]
    rotation_vector_into(R_error, error[3:])


def pose_error(T_base_target: np.ndarray, T_base_current: np.ndarray
               ) -> Tuple[np.ndarray, np.ndarray]:
    """
    Return ``(e_p, e_o)``: position error (m) and rotation vector (rad), base frame.

    ``e_p = p_target - p_current`` and ``e_o = log(R_target R_current^T)``, the small
    rotation that, applied in the base frame, takes the current orientation to the target.
    Both accept leading batch dimensions on ``T_base_current``.
    """
    e_p = T_base_target[..., :3, 3] - T_base_current[..., :3, 3]
    R_err = T_base_target[..., :3, :3] @ np.swapaxes(T_base_current[..., :3, :3], -1, -2)
    return e_p, rotation_vector(R_err)
