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
Differential (servo) IK: the joint velocity of one damped step toward a target.

Frames and units as in :mod:`ros_ik.kinematics.ik_solver`: base frame, metres, radians,
seconds. For joints ``q`` and target ``T_base_target``:

1. task error ``e = [p_target - p_tip; log(R_target R_tip^T)]`` on the masked rows;
2. desired tip twist ``v = K e`` (``K = gain``, 1/s), its linear part capped at
   ``max_linear_speed`` (m/s) and angular part at ``max_angular_speed`` (rad/s);
3. joint velocity ``qdot = J^T (J J^T + s lam^2 I)^-1 W v`` with the singularity schedule
   ``lam(sigma_min)`` and the error scale ``s = min(1, (|W e| / e_ref)^2)`` (damping
   proportional to the error energy, as in Sugihara's Levenberg-Marquardt IK): far from
   the target the damping keeps ``|qdot| <= |W v| / (2 lam_max)`` near a singularity; close
   to it the damping fades, so the last millimetres next to a singularity still converge;
4. joints at a bound whose velocity points outward are held and the step re-solved without
   them, repeated until no free joint pushes outward (holding one joint can push another
   out: one pass would freeze the arm);
5. for redundant chains (more free joints than task rows), a secondary velocity
   ``qdot_0`` that pushes joints within ``LIMIT_MARGIN`` of a bound back toward the middle
   is projected into the null space of the task Jacobian, ``(I - J^+ J) qdot_0``, which
   leaves the tool's twist unchanged;
6. ``qdot`` scaled uniformly (direction kept) so every ``|qdot_j| <= scale * vmax_j``.

Steps 3-6 are one compiled call (:mod:`ros_ik.kinematics.twist_motion`). The caller turns
``qdot`` into motion under acceleration and jerk limits
(:mod:`ros_ik.trajectory.online_generator`).
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.damped_least_squares import (COMMAND_DAMPING, DampingSchedule,
                                                    make_workspace)
from ros_ik.kinematics.joint_limits import JointLimits
from ros_ik.kinematics.task_space import FULL_POSE, row_weights
from ros_ik.kinematics.transforms import pose_error
from ros_ik.kinematics.twist_motion import twist_motion_into

# Weighted task error (m, or rad times orientation_weight) below which damping fades.
ERROR_DAMPING_SCALE = 0.05
# Fraction of a joint's range next to each bound where the null-space motion pushes it back.
LIMIT_MARGIN = 0.1
# Null-space joint speed at a bound (rad/s or m/s), falling linearly to 0 at the margin.
LIMIT_AVOIDANCE_SPEED = 0.3
PSEUDO_INVERSE_RCOND = 1e-6


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
    velocity_limits: Optional[np.ndarray] = None  # (n,); None: velocity_scale x URDF


@dataclass(frozen=True)
class ServoStep:
    """One servo step: the joint velocity and what shaped it."""

    velocity: np.ndarray
    position_error: float
    orientation_error: float
    sigma_min: float
    damping: float
    velocity_scaling: float
    at_position_limit: bool


@dataclass(frozen=True)
class TwistMotion:
    """The joint velocity (n,) for a twist and what shaped it."""

    velocity: np.ndarray
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
        bounded = np.isfinite(self.limits.lower) & np.isfinite(self.limits.upper)
        self._avoids_limits = bounded & ~self.limits.wraps_in_range
        self._workspace = make_workspace(kinematics.chain.n_joints)

    def step(self, q: np.ndarray, T_base_target: np.ndarray,
             options: ServoOptions) -> ServoStep:
        """Return the joint velocity (n,) at ``q`` (n,) toward ``T_base_target``."""
        q = np.asarray(q, dtype=float)
        T_base_tip, J = self.kinematics.tip_pose_and_jacobian(q)
        e_p, e_o = pose_error(T_base_target, T_base_tip)
        mask = np.array(options.mask)
        e_p, e_o = e_p * mask[:3], e_o * mask[3:]
        v_linear = _capped(options.gain * e_p, options.max_linear_speed)
        v_angular = _capped(options.gain * e_o, options.max_angular_speed)
        weights = row_weights(options.mask, options.orientation_weight)
        error_norm = float(np.linalg.norm(np.concatenate([e_p, e_o])[mask] * weights))
        motion = self._twist_motion(q, J, np.concatenate([v_linear, v_angular]), options,
                                    min(1.0, (error_norm / ERROR_DAMPING_SCALE) ** 2))
        return ServoStep(velocity=motion.velocity, position_error=float(np.linalg.norm(e_p)),
                         orientation_error=float(np.linalg.norm(e_o)),
                         sigma_min=motion.sigma_min, damping=motion.damping,
                         velocity_scaling=motion.velocity_scaling,
                         at_position_limit=motion.at_position_limit)

    def jog(self, q: np.ndarray, twist: np.ndarray, options: ServoOptions) -> 'TwistMotion':
        """
        Return the joint velocity (n,) at ``q`` for a tool twist (6,) in the base frame.

        ``twist = [v; w]`` (m/s at the tool origin, rad/s), masked by ``options.mask``; the
        singularity schedule damps at full strength (a jog has no error to fade with), so
        the tool slows through a singularity and moves on past it.
        """
        q = np.asarray(q, dtype=float)
        _, J = self.kinematics.tip_pose_and_jacobian(q)
        return self._twist_motion(q, J, np.asarray(twist, dtype=float), options, 1.0)

    def _twist_motion(self, q: np.ndarray, J: np.ndarray, twist: np.ndarray,
                      options: ServoOptions, damping_scale: float) -> 'TwistMotion':
        """Return steps 3-6 of the module docstring for the twist (6,) and Jacobian (6, n)."""
        mask = np.array(options.mask)
        weights = row_weights(options.mask, options.orientation_weight)
        velocity_limits = (options.velocity_scale * self.velocity_limits
                           if options.velocity_limits is None else options.velocity_limits)
        velocity = np.empty(len(q))
        limits, damping = self.limits, options.damping
        sigma_min, lam, velocity_scaling, held = twist_motion_into(
            np.ascontiguousarray(J[mask] * weights[:, None]),
            np.ascontiguousarray(twist[mask] * weights), np.ascontiguousarray(q, dtype=float),
            limits.lower, limits.upper, limits.wraps_in_range, self._avoids_limits,
            np.ascontiguousarray(velocity_limits, dtype=float),
            float(damping.singular_value_threshold), float(damping.max_damping),
            float(damping_scale), velocity, self._workspace)
        return TwistMotion(velocity=velocity, sigma_min=sigma_min, damping=lam,
                           velocity_scaling=velocity_scaling, at_position_limit=held)


def _capped(vector: np.ndarray, limit: float) -> np.ndarray:
    """Return ``vector`` scaled down to norm ``limit`` if it is longer."""
    norm = float(np.linalg.norm(vector))
    return vector * (limit / norm) if norm > limit else vector
