"""
Singularity-aware damped least squares (pure numpy, batched).

For a task Jacobian ``J`` (..., m, n) and task error ``e`` (..., m) the step is

    dq = J^T (J J^T + lam^2 I)^-1 e = sum_i  sigma_i / (sigma_i^2 + lam^2) (u_i . e) v_i,

evaluated from the eigen-decomposition of ``J J^T`` (never an explicit inverse). The damping
follows the smallest singular value ``sigma_min`` (Maciejewski & Klein / Chiaverini):

    lam^2 = (1 - (sigma_min / eps)^2) lam_max^2   if sigma_min < eps,   else 0,

so steps are exact Gauss-Newton steps away from singularities, and near one the gain
``sigma / (sigma^2 + lam^2)`` is at most ``1 / (2 lam)`` as ``sigma -> 0``. ``eps`` and
``lam_max`` carry the units of ``J`` (m/rad for position rows).

Columns of joints that are held (``active`` False) are removed from ``J``; ``sigma_min`` is
then the smallest of the ``min(m, n_active)`` singular values the reduced problem has.
"""

from dataclasses import dataclass
from typing import Optional

import numpy as np

# Eigenvalues of J J^T below this fraction of the largest are structural zeros (rank).
STRUCTURAL_ZERO = 1e-12


@dataclass(frozen=True)
class DampingSchedule:
    """Damping ``lam^2 = (1 - (sigma_min / eps)^2) lam_max^2`` below ``eps``, else 0."""

    singular_value_threshold: float = 0.02
    max_damping: float = 0.05

    def damping_squared(self, sigma_min: np.ndarray) -> np.ndarray:
        """Return ``lam^2`` for ``sigma_min`` (any shape)."""
        ratio = np.minimum(np.asarray(sigma_min) / self.singular_value_threshold, 1.0)
        return (1.0 - ratio * ratio) * self.max_damping ** 2


@dataclass(frozen=True)
class DlsStep:
    """A damped step ``dq`` (..., n) with the ``sigma_min`` and ``lam`` that produced it."""

    dq: np.ndarray
    sigma_min: np.ndarray
    damping: np.ndarray


def damped_step(J: np.ndarray, error: np.ndarray, schedule: DampingSchedule,
                active: Optional[np.ndarray] = None,
                damping_scale: Optional[np.ndarray] = None) -> DlsStep:
    """
    Return the singularity-damped least-squares step for ``J dq = error``.

    ``J``: (..., m, n); ``error``: (..., m); ``active``: optional boolean (..., n) mask of the
    joints that may move (held joints get ``dq = 0``); ``damping_scale``: optional factor
    (...,) in [0, 1] applied to ``lam^2`` (the IK solver shrinks it with the error).
    Uses the eigen-decomposition ``J J^T = U diag(sigma^2) U^T`` (ascending), so
    ``dq = J^T U diag(g) U^T e`` with ``g = 1 / (sigma^2 + lam^2)``; directions with
    ``sigma^2`` structurally zero (below ``1e-12 sigma_max^2``: rows beyond the rank) get
    ``g = 0`` since ``J^T u = 0`` there.
    """
    m, n = J.shape[-2], J.shape[-1]
    if active is not None:
        J = J * active[..., None, :]
        rank = np.minimum(m, np.count_nonzero(active, axis=-1))
    else:
        rank = min(m, n)
    J_transpose = np.swapaxes(J, -1, -2)
    sigma_squared, U = np.linalg.eigh(J @ J_transpose)
    if active is None:
        smallest = sigma_squared[..., m - rank]
    else:
        smallest = np.take_along_axis(sigma_squared, (m - np.maximum(rank, 1))[..., None],
                                      axis=-1)[..., 0]
    sigma_min = np.sqrt(np.maximum(smallest, 0.0))
    damping_squared = schedule.damping_squared(sigma_min)
    if damping_scale is not None:
        damping_squared = damping_squared * damping_scale
    structural = sigma_squared <= STRUCTURAL_ZERO * sigma_squared[..., -1:]
    gain = 1.0 / (np.where(structural, np.inf, sigma_squared) + damping_squared[..., None])
    projected = (error[..., None, :] @ U)[..., 0, :] * gain
    dq = (J_transpose @ (U @ projected[..., None]))[..., 0]
    return DlsStep(dq=dq, sigma_min=sigma_min, damping=np.sqrt(damping_squared))
