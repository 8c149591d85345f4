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
Forward kinematics and the geometric Jacobian of a chain (numba-compiled, batched).

Frames and units: everything is expressed in the chain's base frame, metres and radians.
A joint vector ``q`` has shape ``(..., n)`` in chain order; any leading batch shape is
carried through every result. The loops are compiled with numba (``cache=True``: the first
call on a machine compiles them, later processes load the cache; see
:mod:`ros_ik.kinematics.kernel_warm_up`). Per joint the walk costs one sine, one cosine, a
3x4 local
transform and a 3x3-by-3x4 product.

For joint ``j`` with unit axis ``a_j`` (joint frame) and constant ``T_prev_joint``:

* revolute/continuous: ``T_local_j = T_prev_joint [[Rot(a_j, q_j), 0], [0, 1]]`` with
  ``Rot(a, q) = I + sin(q) K + (1 - cos(q)) K^2``, ``K = [a]x``;
* prismatic: ``T_local_j = T_prev_joint [[I, a_j q_j], [0, 1]]``;
* ``T_base_j = T_base_{j-1} T_local_j`` and ``T_base_tip = T_base_n T_last_tip``.

The geometric Jacobian ``J`` (6 x n, linear rows first, base frame) maps ``dq`` to the
tip twist ``[v; w]``: column j is ``[z_j x (p_tip - p_j); z_j]`` for a rotating joint and
``[z_j; 0]`` for a prismatic one, with ``z_j = R_base_j a_j`` and ``p_j`` the joint origin.
"""

from typing import Optional, Tuple

import numba
import numpy as np

from ros_ik.kinematics.chain import Chain


def _rotation_taking_z_to(axis: np.ndarray) -> np.ndarray:
    """Return a rotation ``C`` (3x3) with ``C e_z = axis`` for a unit ``axis``."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, axis)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(axis, x), axis])


@numba.njit(cache=True, nogil=True)
def _compose_into(P: np.ndarray, M: np.ndarray, out: np.ndarray) -> None:
    """
    Write the top rows of ``P M`` into ``out[:3]`` for rigid transforms ``P``, ``M``.

    Only the top 3 rows of each are read (their bottom row is ``[0, 0, 0, 1]``):
    ``R = R_P R_M`` and ``p = R_P p_M + p_P``. ``out`` must not share memory with either.
    """
    for r in range(3):
        p0, p1, p2 = P[r, 0], P[r, 1], P[r, 2]
        for k in range(4):
            out[r, k] = p0 * M[0, k] + p1 * M[1, k] + p2 * M[2, k]
        out[r, 3] += P[r, 3]


@numba.njit(cache=True, nogil=True)
def aligned_frames_into(q: np.ndarray, A: np.ndarray, prismatic: np.ndarray,
                        G: np.ndarray) -> None:
    """
    Write the aligned joint frames ``G_j = G_{j-1} A_j Rz(q_j)`` (or ``Tz``) into ``G``.

    ``q`` (n,) rad or m; ``A`` (n, 3, 4) the top rows of the constant aligned transforms;
    ``G`` (n, 3, 4) output, top rows of ``T_base`` of each aligned frame (bottom row is
    ``[0, 0, 0, 1]``). With ``A Rz(q)``: column 0 is ``c a_0 + s a_1``, column 1 is
    ``c a_1 - s a_0``; with ``A Tz(q)``: column 3 gains ``q a_2``.
    """
    local = np.empty((3, 4))
    for j in range(q.shape[0]):
        if prismatic[j]:
            c, s, slide = 1.0, 0.0, q[j]
        else:
            c, s, slide = np.cos(q[j]), np.sin(q[j]), 0.0
        for r in range(3):
            a0, a1, a2 = A[j, r, 0], A[j, r, 1], A[j, r, 2]
            local[r, 0] = c * a0 + s * a1
            local[r, 1] = c * a1 - s * a0
            local[r, 2] = a2
            local[r, 3] = A[j, r, 3] + slide * a2
        if j == 0:
            G[0] = local
        else:
            _compose_into(G[j - 1], local, G[j])


@numba.njit(cache=True, nogil=True)
def tip_pose_and_jacobian_into(q: np.ndarray, A: np.ndarray, prismatic: np.ndarray,
                               G_tip: np.ndarray, G: np.ndarray, T_base_tip: np.ndarray,
                               J: np.ndarray) -> None:
    """
    Write ``T_base_tip`` (4, 4) and the geometric Jacobian ``J`` (6, n) at ``q`` (n,).

    ``G`` (n, 3, 4) is scratch for the aligned frames; ``G_tip`` (4, 4) takes the last
    aligned frame to the tip. Column j of ``J`` is ``[z_j x (p_tip - p_j); z_j]`` for a
    rotating joint and ``[z_j; 0]`` for a prismatic one (``z_j``, ``p_j``: column 2 and 3
    of ``G_j``): one walk of the chain, one cross product per joint.
    """
    n = q.shape[0]
    aligned_frames_into(q, A, prismatic, G)
    T_base_tip[:, :] = G_tip
    if n == 0:
        return
    _compose_into(G[n - 1], G_tip, T_base_tip)
    for j in range(n):
        z0, z1, z2 = G[j, 0, 2], G[j, 1, 2], G[j, 2, 2]
        if prismatic[j]:
            J[0, j], J[1, j], J[2, j] = z0, z1, z2
            J[3, j], J[4, j], J[5, j] = 0.0, 0.0, 0.0
            continue
        d0 = T_base_tip[0, 3] - G[j, 0, 3]
        d1 = T_base_tip[1, 3] - G[j, 1, 3]
        d2 = T_base_tip[2, 3] - G[j, 2, 3]
        J[0, j] = z1 * d2 - z2 * d1
        J[1, j] = z2 * d0 - z0 * d2
        J[2, j] = z0 * d1 - z1 * d0
        J[3, j], J[4, j], J[5, j] = z0, z1, z2


@numba.njit(cache=True, nogil=True)
def _tip_poses_and_jacobians(Q: np.ndarray, A: np.ndarray, prismatic: np.ndarray,
                             G_tip: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Return ``T_base_tip`` (b, 4, 4) and ``J`` (b, 6, n) for the rows of ``Q`` (b, n)."""
    count, n = Q.shape
    G = np.empty((n, 3, 4))
    T_base_tip = np.empty((count, 4, 4))
    J = np.empty((count, 6, n))
    for b in range(count):
        tip_pose_and_jacobian_into(Q[b], A, prismatic, G_tip, G, T_base_tip[b], J[b])
    return T_base_tip, J


@numba.njit(cache=True, nogil=True)
def _aligned_frames(Q: np.ndarray, A: np.ndarray, prismatic: np.ndarray) -> np.ndarray:
    """Return the aligned frames (b, n, 3, 4) for the rows of ``Q`` (b, n)."""
    G = np.empty((Q.shape[0], Q.shape[1], 3, 4))
    for b in range(Q.shape[0]):
        aligned_frames_into(Q[b], A, prismatic, G[b])
    return G


class ChainKinematics:
    """
    Precomputed, read-only kinematic data of a chain; methods allocate their outputs.

    Internally each joint frame is rotated by a constant ``C_j`` (``C_j e_z = a_j``) so every
    joint moves about or along its local z axis: with ``A_j = C_{j-1}^T T_prev_joint_j C_j``
    the aligned frames are ``G_j = G_{j-1} A_j Rz(q_j)`` (or ``Tz(q_j)``), the child link
    frames ``T_base_j = G_j C_j^T`` and ``z_j`` is simply column 2 of ``G_j``. The loops are
    compiled with numba (:func:`tip_pose_and_jacobian_into`); the arrays ``A`` (n, 3, 4),
    ``prismatic`` (n,) and ``G_tip`` (4, 4) are what the compiled IK solver uses too.
    """

    def __init__(self, chain: Chain) -> None:
        """Precompute the aligned constant transforms ``A_j`` and undo rotations ``C_j^T``."""
        self.chain = chain
        self.n_joints = chain.n_joints
        n = self.n_joints
        C = np.eye(4)[None].repeat(n, axis=0)
        for j, joint in enumerate(chain.joints):
            C[j, :3, :3] = _rotation_taking_z_to(joint.axis)
        C_inverse = np.swapaxes(C, -1, -2).copy()
        A = np.empty((n, 4, 4))
        C_previous_inverse = np.eye(4)
        for j, joint in enumerate(chain.joints):
            A[j] = C_previous_inverse @ joint.T_prev_joint @ C[j]
            C_previous_inverse = C_inverse[j]
        self.A = np.ascontiguousarray(A[:, :3, :])
        self.prismatic = chain.is_prismatic
        self.G_tip = C_previous_inverse @ chain.T_last_tip
        self.C_inverse = C_inverse  # (n, 4, 4): aligned frame -> child link frame

    def _rows(self, q: np.ndarray) -> np.ndarray:
        """Return ``q`` (..., n) as a contiguous float (b, n) array."""
        return np.ascontiguousarray(np.reshape(q, (-1, self.n_joints)), dtype=float)

    def tip_pose(self, q: np.ndarray) -> np.ndarray:
        """Return ``T_base_tip`` (..., 4, 4) for joint vectors ``q`` (..., n)."""
        return self.tip_pose_and_jacobian(q)[0]

    def link_poses(self, q: np.ndarray) -> np.ndarray:
        """
        Return the base frame and every moving joint's child frame, ``(..., n + 1, 4, 4)``.

        Entry ``j + 1`` is ``T_base_j = G_j C_j^T``, joint j's child link after its motion.
        """
        rows = self._rows(q)
        poses = np.zeros((len(rows), self.n_joints + 1, 4, 4))
        poses[:, :, 3, 3] = 1.0
        poses[:, 0] = np.eye(4)
        poses[:, 1:, :3, :] = _aligned_frames(rows, self.A, self.prismatic) @ self.C_inverse
        return poses.reshape(np.shape(q)[:-1] + poses.shape[1:])

    def frame_pose(self, q: np.ndarray, frame: str) -> Optional[np.ndarray]:
        """
        Return ``T_base_frame`` (4, 4) of any link of the chain at ``q`` (n,); None if unknown.

        The base (also ``''``) is the identity, the tip is :meth:`tip_pose`, a moving joint's
        child link comes from :meth:`link_poses` and a link fixed inside the chain is
        ``T_base_parent T_parent_link``.
        """
        chain = self.chain
        if frame in ('', chain.base_link):
            return np.eye(4)
        if frame == chain.tip_link:
            return self.tip_pose(q)
        if frame in chain.link_names:
            return self.link_poses(q)[chain.link_names.index(frame)]
        for link in chain.fixed_links:
            if link.name == frame:
                return self.link_poses(q)[link.parent_index] @ link.T_parent_link
        return None

    def tip_pose_and_jacobian(self, q: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Return ``(T_base_tip (..., 4, 4), J (..., 6, n))`` from one walk of the chain."""
        T_base_tip, J = _tip_poses_and_jacobians(self._rows(q), self.A, self.prismatic,
                                                 self.G_tip)
        batch_shape = np.shape(q)[:-1]
        return T_base_tip.reshape(batch_shape + (4, 4)), J.reshape(batch_shape + J.shape[1:])

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """Return the geometric Jacobian ``J`` (..., 6, n) in the base frame."""
        return self.tip_pose_and_jacobian(q)[1]
