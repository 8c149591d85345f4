"""
Rigid-body rotation helpers (pure numpy).

Conventions used throughout ros_ik:

* Rotation matrices ``R_a_b`` (3x3) map vectors expressed in frame ``b`` into frame ``a``.
* Homogeneous transforms ``T_a_b`` (4x4) are ``[[R_a_b, p_a_b], [0, 1]]`` with ``p`` in metres.
* Quaternions are ``(x, y, z, w)``, the geometry_msgs order, unit norm.
* Roll-pitch-yaw follows URDF: ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (fixed axes x, y, z).
* A rotation vector ``r`` (radians) is ``angle * unit_axis``; ``exp([r]x)`` is its matrix.

Functions accept a leading batch shape where noted (``...``).
"""

from typing import Tuple

import numpy as np

SMALL_ANGLE = 1e-8
_VEE_ROWS = np.array([2, 0, 1])
_VEE_COLUMNS = np.array([1, 2, 0])


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


def quaternion_to_matrix(q_xyzw: np.ndarray) -> np.ndarray:
    """Convert a unit quaternion ``(x, y, z, w)`` to a rotation matrix (3x3)."""
    x, y, z, w = q_xyzw
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


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


def rotation_vector(R: np.ndarray) -> np.ndarray:
    """
    Return the rotation vector ``r = angle * axis`` of rotation matrices ``R`` (..., 3, 3).

    This is the matrix logarithm ``log(R) = [r]x`` with ``angle`` in [0, pi]. With
    ``v = vee(R - R^T) = 2 sin(angle) axis`` and ``cos(angle) = (trace R - 1) / 2``,
    ``angle = atan2(|v| / 2, cos(angle))`` and ``r = angle v / |v|`` (``v / 2`` as
    ``angle -> 0``). Near pi ``|v|`` vanishes, so the axis is taken from
    ``(R + I) / 2 = a a^T`` instead, its sign fixed by ``v``.
    """
    R = np.asarray(R, dtype=float)
    D = R - np.swapaxes(R, -1, -2)
    vee = D[..., _VEE_ROWS, _VEE_COLUMNS]
    twice_sin = np.sqrt((vee * vee).sum(axis=-1))
    cos_angle = (R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2] - 1.0) * 0.5
    angle = np.arctan2(0.5 * twice_sin, cos_angle)
    factor = np.where(twice_sin > 1e-12, angle / np.maximum(twice_sin, 1e-300), 0.5)
    r = vee * factor[..., None]
    near_pi = (twice_sin < 1e-6) & (cos_angle < 0.0)
    if np.any(near_pi):
        r_flat, R_flat = r.reshape(-1, 3), R.reshape(-1, 3, 3)
        vee_flat, angle_flat = vee.reshape(-1, 3), np.reshape(angle, -1)
        for i in np.flatnonzero(near_pi):
            r_flat[i] = _axis_near_pi(R_flat[i], vee_flat[i]) * angle_flat[i]
        r = r_flat.reshape(r.shape)
    return r


def _axis_near_pi(R: np.ndarray, vee: np.ndarray) -> np.ndarray:
    """Return the unit axis of a rotation by nearly pi from ``(R + I) / 2 = a a^T``."""
    B = 0.5 * (R + np.eye(3))
    i = int(np.argmax(np.diag(B)))
    axis = B[:, i] / np.sqrt(max(B[i, i], SMALL_ANGLE))
    axis /= np.linalg.norm(axis)
    if np.dot(axis, vee) < 0.0:
        axis = -axis
    return axis


def rotation_vector_to_matrix(r: np.ndarray) -> np.ndarray:
    """Return ``exp([r]x)`` for a rotation vector ``r`` (rad)."""
    angle = float(np.linalg.norm(r))
    if angle < SMALL_ANGLE:
        return np.eye(3) + skew(r)
    return axis_angle_matrix(np.asarray(r) / angle, angle)


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
