"""
Joint position-limit handling for steps ``dq`` (pure numpy, batched).

Plain clamping ``clip(q + dq)`` changes the step's direction and can stall or flip a
solution. Instead (1) joints already at a bound whose step points outward are held and the
step is re-solved without them, and (2) the remaining step is scaled uniformly by
``alpha = min(1, min_j room_j / |dq_j|)`` so no joint passes its bound and the direction is
kept. Continuous joints have infinite bounds and are never held or scaled.

A revolute joint whose range spans at least a full turn (``upper - lower >= 2 pi``, e.g.
+-2 pi on UR arms) can always express its angle inside the range: such a joint is not
scaled at its bound but wrapped by ``2 pi`` back into ``[lower, lower + 2 pi)``, the same
physical configuration.
"""

from dataclasses import dataclass

import numpy as np

from ros_ik.chain import Chain

AT_BOUND_TOLERANCE = 1e-10
FULL_TURN = 2.0 * np.pi


@dataclass(frozen=True)
class JointLimits:
    """Position limits (n,) of a chain and which joints wrap instead of stopping."""

    lower: np.ndarray
    upper: np.ndarray
    wraps_in_range: np.ndarray
    is_continuous: np.ndarray

    @classmethod
    def from_chain(cls, chain: Chain, wrap_full_turns: bool) -> 'JointLimits':
        """
        Return the limits of ``chain``.

        With ``wrap_full_turns`` (IK search) bounded revolute joints of >= 2 pi range wrap;
        without it (commands to a real arm, where a 2 pi jump is a full spin) they stop.
        """
        lower, upper = chain.lower, chain.upper
        wraps = (~chain.is_prismatic & ~chain.is_continuous
                 & (upper - lower >= FULL_TURN - 1e-9) & wrap_full_turns)
        return cls(lower=lower, upper=upper, wraps_in_range=wraps,
                   is_continuous=chain.is_continuous)

    def outward_at_bound(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """Return the joints (..., n) at a bound whose step ``dq`` pushes past it."""
        return ((((q <= self.lower + AT_BOUND_TOLERANCE) & (dq < 0.0))
                 | ((q >= self.upper - AT_BOUND_TOLERANCE) & (dq > 0.0)))
                & ~self.wraps_in_range)

    def step_fraction(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """Return ``alpha`` (...,) in [0, 1] so that ``q + alpha dq`` stays within the limits."""
        room = np.maximum(np.where(dq > 0.0, self.upper - q, q - self.lower), 0.0)
        reach = np.abs(dq)
        limiting = (reach > room) & ~self.wraps_in_range
        if not limiting.any():
            return np.ones(dq.shape[:-1])
        fraction = np.where(limiting, room / np.where(limiting, reach, 1.0), 1.0)
        return fraction.min(axis=-1)

    def apply_step(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """
        Return ``q + alpha dq`` within the limits, wrapping full-turn joints into range.

        The final min/max only removes floating-point round-off at a bound.
        """
        q_next = q + self.step_fraction(q, dq)[..., None] * dq
        if self.wraps_in_range.any():
            outside = self.wraps_in_range & ((q_next < self.lower) | (q_next > self.upper))
            if outside.any():
                wrapped = self.lower + np.mod(q_next - self.lower, FULL_TURN)
                q_next = np.where(outside, wrapped, q_next)
        return np.minimum(np.maximum(q_next, self.lower), self.upper)

    def wrap_continuous(self, q: np.ndarray) -> np.ndarray:
        """Wrap continuous joints to (-pi, pi]; other joints are returned unchanged."""
        return np.where(self.is_continuous, np.pi - np.mod(np.pi - q, FULL_TURN), q)
