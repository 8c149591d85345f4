"""
Joint position-limit handling for steps ``dq`` (pure numpy, batched).

Plain clamping ``clip(q + dq)`` changes the step's direction and can stall or flip a
solution. Instead (1) joints already at a bound whose step points outward are held and the
step is re-solved without them, and (2) the remaining step is scaled uniformly by
``alpha = min(1, min_j room_j / |dq_j|)`` so no joint passes its bound and the direction is
kept. Continuous joints have infinite bounds and are never held or scaled.
"""

import numpy as np

AT_BOUND_TOLERANCE = 1e-10


def outward_at_bound(q: np.ndarray, dq: np.ndarray, lower: np.ndarray,
                     upper: np.ndarray) -> np.ndarray:
    """Return the joints (..., n) that sit at a bound and whose step ``dq`` pushes past it."""
    return (((q <= lower + AT_BOUND_TOLERANCE) & (dq < 0.0))
            | ((q >= upper - AT_BOUND_TOLERANCE) & (dq > 0.0)))


def step_fraction_within_limits(q: np.ndarray, dq: np.ndarray, lower: np.ndarray,
                                upper: np.ndarray) -> np.ndarray:
    """Return ``alpha`` (...,) in [0, 1] so that ``q + alpha dq`` stays within the limits."""
    room = np.maximum(np.where(dq > 0.0, upper - q, q - lower), 0.0)
    reach = np.abs(dq)
    limiting = reach > room
    if not limiting.any():
        return np.ones(dq.shape[:-1])
    fraction = np.where(limiting, room / np.where(limiting, reach, 1.0), 1.0)
    return fraction.min(axis=-1)


def apply_step(q: np.ndarray, dq: np.ndarray, lower: np.ndarray,
               upper: np.ndarray) -> np.ndarray:
    """
    Return ``q + alpha dq`` with ``alpha`` from :func:`step_fraction_within_limits`.

    The final min/max only removes floating-point round-off at a bound.
    """
    alpha = step_fraction_within_limits(q, dq, lower, upper)
    return np.minimum(np.maximum(q + alpha[..., None] * dq, lower), upper)


def wrap_continuous(q: np.ndarray, is_continuous: np.ndarray) -> np.ndarray:
    """Wrap continuous joints to (-pi, pi]; other joints are returned unchanged."""
    wrapped = np.pi - np.mod(np.pi - q, 2.0 * np.pi)
    return np.where(is_continuous, wrapped, q)
