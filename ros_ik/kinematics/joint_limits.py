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
Joint position-limit handling for steps ``dq`` (numba-compiled kernels, numpy wrappers).

Plain clamping ``clip(q + dq)`` changes the step's direction and can stall or flip a
solution. Instead (1) joints already at a bound whose step points outward are held and the
step is re-solved without them, and (2) the remaining step is scaled uniformly by
``alpha = min(1, min_j room_j / |dq_j|)`` so no joint passes its bound and the direction is
kept. Continuous joints have infinite bounds and are never held or scaled.

A revolute joint whose range spans a full turn (``upper - lower >= 2 pi``, e.g. +-2 pi on UR
arms, or +-pi written to 8 digits, within ``FULL_TURN_TOLERANCE``) can express nearly every
angle inside the range: such a joint is not scaled at its bound but wrapped by ``2 pi`` back
into ``[lower, lower + 2 pi)``, the same physical configuration (clipped into the range, for
the sliver of a turn a range just short of 2 pi leaves out).
"""

from dataclasses import dataclass

import numba
import numpy as np

from ros_ik.kinematics.chain import Chain

AT_BOUND_TOLERANCE = 1e-10
FULL_TURN = 2.0 * np.pi
# A range this close to a full turn counts as one: URDFs write +-3.14, +-3.14159265 or +-3.1416.
FULL_TURN_TOLERANCE = 0.01


@numba.njit(cache=True, nogil=True)
def held_at_bound_into(q: np.ndarray, dq: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                       wraps: np.ndarray, held: np.ndarray) -> bool:
    """Mark in ``held`` (n,) the joints at a bound whose step pushes past it; return any."""
    any_held = False
    for j in range(q.shape[0]):
        held[j] = (not wraps[j]) and (
            (q[j] <= lower[j] + AT_BOUND_TOLERANCE and dq[j] < 0.0)
            or (q[j] >= upper[j] - AT_BOUND_TOLERANCE and dq[j] > 0.0))
        any_held = any_held or held[j]
    return any_held


@numba.njit(cache=True, nogil=True)
def step_fraction_of(q: np.ndarray, dq: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                     wraps: np.ndarray) -> float:
    """Return ``alpha`` in [0, 1] so that ``q + alpha dq`` (n,) stays within the limits."""
    fraction = 1.0
    for j in range(q.shape[0]):
        if wraps[j] or dq[j] == 0.0:
            continue
        room = max(upper[j] - q[j] if dq[j] > 0.0 else q[j] - lower[j], 0.0)
        if abs(dq[j]) > room:
            fraction = min(fraction, room / abs(dq[j]))
    return fraction


@numba.njit(cache=True, nogil=True)
def apply_step_into(q: np.ndarray, dq: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                    wraps: np.ndarray, q_next: np.ndarray) -> None:
    """
    Write ``q + alpha dq`` (n,) within the limits into ``q_next``, wrapping full-turn joints.

    The final min/max only removes floating-point round-off at a bound.
    """
    alpha = step_fraction_of(q, dq, lower, upper, wraps)
    for j in range(q.shape[0]):
        value = q[j] + alpha * dq[j]
        if wraps[j] and (value < lower[j] or value > upper[j]):
            value = lower[j] + np.mod(value - lower[j], FULL_TURN)
        q_next[j] = min(max(value, lower[j]), upper[j])


def wrapped_difference(difference: np.ndarray, is_continuous: np.ndarray) -> np.ndarray:
    """
    Return ``difference`` (..., n) with continuous joints' entries wrapped into [-pi, pi).

    The shortest signed turn between two angles of a continuous joint; other joints'
    entries are returned unchanged.
    """
    return np.where(is_continuous, np.remainder(difference + np.pi, FULL_TURN) - np.pi,
                    difference)


@numba.njit(cache=True, nogil=True)
def nearest_row_distance(rows: np.ndarray, first: int, end: int, q: np.ndarray,
                         is_continuous: np.ndarray) -> float:
    """
    Return ``min_k max_j |rows[k, j] - q_j|`` over rows ``first`` to ``end - 1``.

    Continuous joints' differences are wrapped into [-pi, pi) first (see
    :func:`wrapped_difference`); inf without rows.
    """
    best = np.inf
    for k in range(first, end):
        worst = 0.0
        for j in range(q.shape[0]):
            difference = rows[k, j] - q[j]
            if is_continuous[j]:
                difference = (difference + np.pi) % FULL_TURN - np.pi
            worst = max(worst, abs(difference))
        best = min(best, worst)
    return best


def speed_scale(velocity: np.ndarray, speed_limits: np.ndarray) -> float:
    """
    Return the largest ``s`` in [0, 1] with ``|s velocity_j| <= speed_limits_j`` for all j.

    Scaling a joint velocity (n,) by one factor keeps its direction: all joints slow
    together and the joint-space path is unchanged. A NaN velocity or limit constrains
    nothing (the caller's finiteness checks catch it).
    """
    return _speed_scale(np.ascontiguousarray(velocity, dtype=float),
                        np.ascontiguousarray(speed_limits, dtype=float))


@numba.njit(cache=True, nogil=True)
def _speed_scale(velocity: np.ndarray, speed_limits: np.ndarray) -> float:
    """Return :func:`speed_scale` of contiguous float arrays (n,)."""
    scale = 1.0
    for j in range(velocity.shape[0]):
        speed = abs(velocity[j])
        if speed > speed_limits[j]:
            scale = min(scale, speed_limits[j] / speed)
    return scale


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
                 & (upper - lower >= FULL_TURN - FULL_TURN_TOLERANCE) & wrap_full_turns)
        return cls(lower=lower, upper=upper, wraps_in_range=wraps,
                   is_continuous=chain.is_continuous)

    def outward_at_bound(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """Return the joints (n,) at a bound whose step ``dq`` (n,) pushes past it."""
        held = np.empty(len(q), dtype=bool)
        held_at_bound_into(np.asarray(q, dtype=float), np.asarray(dq, dtype=float),
                           self.lower, self.upper, self.wraps_in_range, held)
        return held

    def wrap_continuous(self, q: np.ndarray) -> np.ndarray:
        """Wrap continuous joints to (-pi, pi]; other joints are returned unchanged."""
        if not self.is_continuous.any():
            return np.asarray(q)
        return np.where(self.is_continuous, np.pi - np.mod(np.pi - q, FULL_TURN), q)
