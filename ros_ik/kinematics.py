"""
Forward kinematics and the geometric Jacobian of a chain (pure numpy, batched).

Frames and units: everything is expressed in the chain's base frame, metres and radians.
A joint vector ``q`` has shape ``(..., n)`` in chain order; any leading batch shape is
carried through every result, so many configurations (e.g. IK restarts) cost one call.

For joint ``j`` with unit axis ``a_j`` (joint frame) and constant ``T_prev_joint``:

* revolute/continuous: ``T_local_j = T_prev_joint [[Rot(a_j, q_j), 0], [0, 1]]`` with
  ``Rot(a, q) = I + sin(q) K + (1 - cos(q)) K^2``, ``K = [a]x``;
* prismatic: ``T_local_j = T_prev_joint [[I, a_j q_j], [0, 1]]``;
* ``T_base_j = T_base_{j-1} T_local_j`` and ``T_base_tip = T_base_n T_last_tip``.

The geometric Jacobian ``J`` (6 x n, linear rows first, base frame) maps ``dq`` to the
tip twist ``[v; w]``: column j is ``[z_j x (p_tip - p_j); z_j]`` for a rotating joint and
``[z_j; 0]`` for a prismatic one, with ``z_j = R_base_j a_j`` and ``p_j`` the joint origin.
"""

from typing import Tuple

import numpy as np

from ros_ik.chain import Chain

# _LEVI_CIVITA[3 j + k, i] = eps_ijk, so (z x d) = vec(z d^T) @ _LEVI_CIVITA.
_LEVI_CIVITA = np.zeros((9, 3))
for _i, _j, _k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
    _LEVI_CIVITA[3 * _j + _k, _i] = 1.0
    _LEVI_CIVITA[3 * _k + _j, _i] = -1.0


def _rotation_taking_z_to(axis: np.ndarray) -> np.ndarray:
    """Return a rotation ``C`` (3x3) with ``C e_z = axis`` for a unit ``axis``."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, axis)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(axis, x), axis])


class ChainKinematics:
    """
    Precomputed, read-only kinematic data of a chain; methods allocate their outputs.

    Internally each joint frame is rotated by a constant ``C_j`` (``C_j e_z = a_j``) so every
    joint moves about or along its local z axis: with ``A_j = C_{j-1}^T T_prev_joint_j C_j``
    the aligned frames are ``G_j = G_{j-1} A_j Rz(q_j)`` (or ``Tz(q_j)``), the child link
    frames ``T_base_j = G_j C_j^T`` and ``z_j`` is simply column 2 of ``G_j``. The running
    product is an inclusive prefix scan done in ``ceil(log2 n)`` batched matrix products.
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
        # A Rz(q) = A_constant + [cos q, sin q] @ A_trig (per joint, flattened to 16),
        # and A Tz(q) = A_constant + A_slide q (cos q = 1, sin q = 0 for prismatic joints).
        A_cos = np.zeros((n, 4, 4))
        A_cos[:, :, :2] = A[:, :, :2]
        A_sin = np.zeros((n, 4, 4))
        A_sin[:, :, 0] = A[:, :, 1]
        A_sin[:, :, 1] = -A[:, :, 0]
        self._A_trig = np.stack([A_cos.reshape(n, 16), A_sin.reshape(n, 16)], axis=1)
        A_constant = A.copy()
        A_constant[:, :, :2] = 0.0
        self._A_constant = A_constant.reshape(n, 16)
        A_slide = np.zeros((n, 4, 4))
        A_slide[:, :, 3] = A[:, :, 2]
        self._A_slide = A_slide.reshape(n, 16)
        # sin(q + pi/2) = cos(q): one call gives both.
        self._trig_phase = np.array([0.5 * np.pi, 0.0])
        self._C_inverse = C_inverse
        self._G_tip = C_previous_inverse @ chain.T_last_tip
        self._prismatic = chain.is_prismatic
        self._rotating = ~self._prismatic
        self._any_prismatic = bool(self._prismatic.any())
        self._scan_steps = [step for step in (1, 2, 4, 8, 16, 32, 64) if step < n]
        if n > 128:
            raise ValueError(f'chains of more than 128 joints are not supported, got {n}')

    def _aligned_frames(self, q: np.ndarray) -> np.ndarray:
        """Return the aligned joint frames ``G_j`` (..., n, 4, 4) in the base frame."""
        q = np.asarray(q, dtype=float)
        q_rotation = q * self._rotating if self._any_prismatic else q
        cos_sin = np.sin(q_rotation[..., None, None] + self._trig_phase)
        G = (cos_sin @ self._A_trig)[..., 0, :]
        G += self._A_constant
        if self._any_prismatic:
            G += self._A_slide * (q * self._prismatic)[..., None]
        G = G.reshape(q.shape + (4, 4))
        for step in self._scan_steps:
            G[..., step:, :, :] = G[..., :-step, :, :] @ G[..., step:, :, :]
        return G

    def _tip_from_aligned(self, G: np.ndarray, q_shape: Tuple[int, ...]) -> np.ndarray:
        """Return ``T_base_tip = G_n C_n^T T_last_tip`` (the base-to-tip chain if n = 0)."""
        if self.n_joints == 0:
            return np.broadcast_to(self._G_tip, q_shape[:-1] + (4, 4)).copy()
        return G[..., -1, :, :] @ self._G_tip

    def tip_pose(self, q: np.ndarray) -> np.ndarray:
        """Return ``T_base_tip`` (..., 4, 4) for joint vectors ``q`` (..., n)."""
        return self._tip_from_aligned(self._aligned_frames(q), np.shape(q))

    def link_poses(self, q: np.ndarray) -> np.ndarray:
        """
        Return the base frame and every moving joint's child frame, ``(..., n + 1, 4, 4)``.

        Entry ``j + 1`` is ``T_base_j = G_j C_j^T``, joint j's child link after its motion.
        """
        T_base_joints = self._aligned_frames(q) @ self._C_inverse
        identity = np.broadcast_to(np.eye(4), T_base_joints.shape[:-3] + (1, 4, 4))
        return np.concatenate([identity, T_base_joints], axis=-3)

    def tip_pose_and_jacobian(self, q: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Return ``(T_base_tip (..., 4, 4), J (..., 6, n))`` from one walk of the chain."""
        G = self._aligned_frames(q)
        T_base_tip = self._tip_from_aligned(G, np.shape(q))
        z = G[..., :3, 2]
        d = T_base_tip[..., None, :3, 3] - G[..., :3, 3]
        # (z x d)_i = eps_ijk z_j d_k: the outer product z d^T contracted with Levi-Civita.
        linear = (z[..., :, None] * d[..., None, :]).reshape(z.shape[:-1] + (9,)) @ _LEVI_CIVITA
        J = np.swapaxes(np.concatenate([linear, z], axis=-1), -1, -2)
        if self._any_prismatic:
            J = J.copy()
            J[..., :3, self._prismatic] = np.swapaxes(z[..., self._prismatic, :], -1, -2)
            J[..., 3:, self._prismatic] = 0.0
        return T_base_tip, J

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """Return the geometric Jacobian ``J`` (..., 6, n) in the base frame."""
        return self.tip_pose_and_jacobian(q)[1]
