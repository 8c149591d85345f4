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
How far ahead along its velocity a far servo's goal lies, and how fast it may follow it.

Far from the target the servo's twist is at the tool's speed caps, and its goal ``q + qdot
/ K`` (``K = gain``, 1/s) lies ``1 / K`` s of the step's velocity ahead. The generator moves
to rest at its goal, so a joint at speed ``v`` must be able to stop within ``|qdot_j| / K``:
with the acceleration and jerk limits ``a``, ``j`` the stopping distance ``v (v / a + a / j)
/ 2`` caps ``v`` (about 0.55 of a Panda's 1.3 rad/s at the parameters' default 1 rad/s^2:
the servo crawled at half the speed its caps allow). The goal is refreshed every few
milliseconds, so it need only lie beyond that stopping distance to be followed at speed:

- ``lookahead`` ``tau`` (s) of the step's tool motion (:func:`tool_motion`; its
  null-space part stays at ``1 / K``, as :func:`ros_ik.control.servo_goals.null_motion_kept`
  keeps it) with ``tau`` the largest of ``1 / K`` and ``LOOKAHEAD_MARGIN`` times the time
  each joint needs to stop from the speed it follows at (:func:`stopping_lookahead`), never
  past where the capped twist's linearised motion arrives (``|e| / cap`` of each part of
  the error) nor past a position bound (the goal keeps its direction: a clipped goal would
  turn the motion); drawn halfway back while the tool there has passed the target
  (:func:`drawn_back`, :func:`passes_target`);
- followed at no more than the speed at which the arm can turn with the straight tool line:
  along the servo's velocity field ``qdot(q)`` the joints accelerate by ``qddot = (d qdot /
  d q) qdot``, sampled as ``(qdot(q + qdot h) - qdot(q)) / h`` (``h`` = ``TURN_PROBE`` s);
  at ``s`` times the field's speed that is ``s^2 qddot``, kept within
  ``TURN_ACCELERATION_SHARE`` of each joint's acceleration limit (:func:`turning_scale`).
  A goal as far ahead without this cap left the tool up to 0.45 m off its line (2026-12-06).

Near the target (an uncapped part of the twist), near a singular configuration and near
obstacles the goal stays at ``1 / K`` s.
"""

from typing import Callable, Optional

import numpy as np

from ros_ik.trajectory.motion_limits import MotionLimits

TURN_PROBE = 0.02  # s of the field's motion over which its change is sampled
TURN_ACCELERATION_SHARE = 1.0  # of each joint's acceleration limit the turning may use
LOOKAHEAD_MARGIN = 1.5  # the goal lies this many stopping times ahead
LOOKAHEAD_HALVINGS = 3  # times a goal past the target is drawn halfway back


def arrival_time(errors: tuple, caps: tuple, gain: float) -> float:
    """
    Return when (s) the linearised motion of the step's twist arrives at the target.

    ``errors`` (m, rad) and ``caps`` (m/s, rad/s): the position and orientation parts; a
    part's twist is ``K e`` capped at its cap, so it arrives after ``max(1 / K, |e| /
    cap)`` s; the soonest part bounds the goal (past it, the motion would overshoot that part).
    """
    times = [max(1.0 / gain, error / cap) for error, cap in zip(errors, caps) if error > 0.0]
    return min(times, default=1.0 / gain)


def turning_scale(velocity: np.ndarray, velocity_ahead: np.ndarray, probe: float,
                  acceleration: np.ndarray) -> float:
    """
    Return the speed scale ``s <= 1`` at which the joints can turn with the field.

    ``velocity`` (n,) the field at ``q``, ``velocity_ahead`` (n,) at ``q + velocity probe``
    (rad/s or m/s); ``acceleration`` (n,) the limits. ``qddot = (velocity_ahead - velocity)
    / probe``; at ``s`` times the field's speed each joint accelerates by ``s^2 |qddot_j|
    <= TURN_ACCELERATION_SHARE a_j``.
    """
    needed = float(np.max(np.abs(velocity_ahead - velocity) / (probe * acceleration)))
    if needed <= TURN_ACCELERATION_SHARE:
        return 1.0
    return float(np.sqrt(TURN_ACCELERATION_SHARE / needed))


def stopping_lookahead(velocity: np.ndarray, scale: float, limits: MotionLimits) -> float:
    """
    Return how far ahead (s of ``velocity``) a goal lets every joint follow at ``scale``.

    A joint moving at ``v = scale |qdot_j|`` stops within ``v (v / a_j + a_j / j_j) / 2``
    (jerk-limited, from zero acceleration; an upper bound below ``v = a^2 / j``); the goal
    ``q + qdot tau`` is ``|qdot_j| tau`` away, so ``tau`` must be at least ``scale (v / a_j
    + a_j / j_j) / 2``; times ``LOOKAHEAD_MARGIN``.
    """
    speed = scale * np.abs(velocity)
    needed = scale * (speed / limits.acceleration + limits.acceleration / limits.jerk) / 2.0
    return LOOKAHEAD_MARGIN * float(np.max(np.where(speed > 0.0, needed, 0.0), initial=0.0))


def bounds_lookahead(q: np.ndarray, velocity: np.ndarray, limits: MotionLimits) -> float:
    """Return the longest ``tau`` (s) with ``q + velocity tau`` inside the position bounds."""
    moving = velocity != 0.0
    bound = np.where(velocity > 0.0, limits.upper, limits.lower)[moving]
    room = (bound - q[moving]) / velocity[moving]
    return float(np.min(np.maximum(room, 0.0), initial=np.inf))


def tool_motion(velocity: np.ndarray, J_task: np.ndarray) -> Optional[np.ndarray]:
    """
    Return the part (n,) of ``velocity`` that moves the tool: ``J^T (J J^T)^-1 J qdot``.

    ``J_task`` (m, n): the step's weighted task Jacobian, of full rank (an undamped step:
    ``sigma_min`` at or above the damping threshold); the rest of ``velocity`` is its
    null-space motion, which leaves the tool still. A chain with no more joints than task
    rows has none: all of ``velocity`` moves the tool. None where ``J J^T`` is singular.
    """
    if J_task.shape[0] >= J_task.shape[1]:
        return velocity
    try:
        return J_task.T @ np.linalg.solve(J_task @ J_task.T, J_task @ velocity)
    except np.linalg.LinAlgError:
        return None


def passes_target(twist: np.ndarray, twist_at_goal: np.ndarray) -> bool:
    """
    Return whether the tool at the goal has passed the target: its error points back.

    ``twist`` and ``twist_at_goal`` (m,): the servo steps' weighted task twists (``K e``,
    capped: along the error) at ``q`` and at the goal. A straight tool line's joint path is
    curved, so the linearised arrival can lie past the target's solution (a polar arm's
    wheel overshot its solution by 16 mrad); a joint that turns back on the way (its
    solution lies behind it) does not count.
    """
    return float(twist @ twist_at_goal) < 0.0


def drawn_back(tau: Optional[float], passes: Callable[[float], bool],
               gain: float) -> Optional[float]:
    """
    Return ``tau`` (s) drawn halfway back while the goal there ``passes`` the target.

    At most ``LOOKAHEAD_HALVINGS`` times; None (the goal stays ``1 / gain`` ahead) once
    ``tau`` would be ``1 / gain`` or less, or where it still passes after them.
    """
    for _ in range(LOOKAHEAD_HALVINGS):
        if tau is None or not passes(tau):
            return tau
        tau = 0.5 * tau if 0.5 * tau > 1.0 / gain else None
    return None


def lookahead(q: np.ndarray, tool_velocity: np.ndarray, turning: float, arrival: float,
              gain: float, limits: MotionLimits) -> Optional[float]:
    """
    Return the goal's lookahead ``tau`` (s) past ``1 / gain``, or None where it stays there.

    ``tool_velocity`` (n,): the step's velocity that moves the tool; ``turning``: its
    :func:`turning_scale`; ``arrival``: :func:`arrival_time`; ``limits``: the generator's.
    """
    tau = min(arrival, stopping_lookahead(tool_velocity, turning, limits),
              bounds_lookahead(q, tool_velocity, limits))
    return tau if tau > 1.0 / gain else None
