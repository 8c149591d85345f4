"""
Differential (servo) IK: one singularity-damped step toward a target, for streaming control.

Frames and units as in :mod:`ros_ik.kinematics.ik_solver`: base frame, metres, radians,
seconds. For the
current joints ``q`` and target ``T_base_target``:

1. task error ``e = [p_target - p_tip; log(R_target R_tip^T)]`` on the masked rows;
2. desired tip twist ``v = K e`` (``K = gain``, 1/s), its linear part capped at
   ``max_linear_speed`` (m/s) and angular part at ``max_angular_speed`` (rad/s);
3. joint velocity ``qdot = J^T (J J^T + lam^2 I)^-1 W v`` with the singularity schedule
   (no error scaling here: near a singularity the damping keeps ``qdot`` bounded,
   ``|qdot| <= |W v| / (2 lam_max)``), joints at a bound that push outward held;
4. ``qdot`` scaled uniformly (direction kept) so every ``|qdot_j| <= scale * vmax_j``;
5. ``qdot`` scaled again so ``q + qdot dt`` stays within the position limits.

The command is ``q_next = q + qdot dt``: never a jump larger than ``scale * vmax_j * dt``.
"""

from dataclasses import dataclass
from typing import Tuple

import numpy as np

from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.damped_least_squares import COMMAND_DAMPING, damped_step, DampingSchedule
from ros_ik.kinematics.joint_limits import JointLimits, speed_scale
from ros_ik.kinematics.task_space import FULL_POSE, row_weights
from ros_ik.kinematics.transforms import pose_error


@dataclass(frozen=True)
class ServoOptions:
    """Gains and caps of a servo step."""

    gain: float = 5.0
    max_linear_speed: float = 0.5
    max_angular_speed: float = 1.5
    velocity_scale: float = 1.0
    orientation_weight: float = 1.0
    mask: Tuple[bool, ...] = FULL_POSE
    damping: DampingSchedule = COMMAND_DAMPING


@dataclass(frozen=True)
class ServoStep:
    """One servo command and what shaped it."""

    q_next: np.ndarray
    velocity: np.ndarray
    position_error: float
    orientation_error: float
    sigma_min: float
    damping: float
    velocity_scaling: float
    at_position_limit: bool


class ServoController:
    """Servo steps for one chain; stateless between calls."""

    def __init__(self, kinematics: ChainKinematics) -> None:
        """Keep the chain's kinematics, limits and velocity limits."""
        self.kinematics = kinematics
        self.limits = JointLimits.from_chain(kinematics.chain, wrap_full_turns=False)
        self.velocity_limits = kinematics.chain.velocity_limits

    def step(self, q: np.ndarray, T_base_target: np.ndarray, dt: float,
             options: ServoOptions) -> ServoStep:
        """Return the step from ``q`` (n,) toward ``T_base_target`` over ``dt`` seconds."""
        q = np.asarray(q, dtype=float)
        T_base_tip, J = self.kinematics.tip_pose_and_jacobian(q)
        e_p, e_o = pose_error(T_base_target, T_base_tip)
        mask = np.array(options.mask)
        e_p, e_o = e_p * mask[:3], e_o * mask[3:]
        v_linear = _capped(options.gain * e_p, options.max_linear_speed)
        v_angular = _capped(options.gain * e_o, options.max_angular_speed)
        weights = row_weights(options.mask, options.orientation_weight)
        twist = np.concatenate([v_linear, v_angular])[mask] * weights
        J_task = J[mask] * weights[:, None]
        step = damped_step(J_task, twist, options.damping)
        held = self.limits.outward_at_bound(q, step.dq)
        velocity = step.dq
        if held.any():
            velocity = damped_step(J_task, twist, options.damping, active=~held).dq
        velocity_scaling = speed_scale(velocity, options.velocity_scale * self.velocity_limits)
        velocity = velocity * velocity_scaling
        position_fraction = float(self.limits.step_fraction(q, velocity * dt))
        velocity = velocity * position_fraction
        q_next = self.limits.wrap_continuous(q + velocity * dt)
        return ServoStep(q_next=q_next, velocity=velocity,
                         position_error=float(np.linalg.norm(e_p)),
                         orientation_error=float(np.linalg.norm(e_o)),
                         sigma_min=float(step.sigma_min), damping=float(step.damping),
                         velocity_scaling=velocity_scaling,
                         at_position_limit=bool(held.any() or position_fraction < 1.0))


def _capped(vector: np.ndarray, limit: float) -> np.ndarray:
    """Return ``vector`` scaled down to norm ``limit`` if it is longer."""
    norm = float(np.linalg.norm(vector))
    return vector * (limit / norm) if norm > limit else vector


def synchronized_step(q: np.ndarray, q_goal: np.ndarray, speed_limits: np.ndarray,
                      dt: float) -> np.ndarray:
    """
    Return the joint velocity (n,) that moves ``q`` straight toward ``q_goal`` in ``dt``.

    ``qdot = (q_goal - q) / dt`` scaled uniformly so every ``|qdot_j| <= speed_limits_j``:
    all joints arrive together and the joint-space path is a straight line.
    """
    velocity = (np.asarray(q_goal, dtype=float) - q) / dt
    return velocity * speed_scale(velocity, speed_limits)
