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
   ``qdot_0`` that pushes joints within ``LIMIT_MARGIN`` (of
   :mod:`ros_ik.kinematics.twist_motion`) of a bound back toward the middle is projected
   into the null space of the task Jacobian, ``(I - J^+ J) qdot_0``, which leaves the
   tool's twist unchanged;
6. ``qdot`` scaled uniformly (direction kept) so every ``|qdot_j| <= scale * vmax_j``.

Steps 1-6 are one compiled call (:func:`servo_motion`; steps 3-6 in
:mod:`ros_ik.kinematics.twist_motion`, which a jog calls alone). The caller turns
``qdot`` into motion under acceleration and jerk limits
(:mod:`ros_ik.trajectory.online_generator`).
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Tuple

import numba
import numpy as np

from ros_ik.kinematics.chain_kinematics import ChainKinematics, tip_pose_and_jacobian_into
from ros_ik.kinematics.damped_least_squares import (COMMAND_DAMPING, DampingSchedule,
                                                    DlsWorkspace, make_workspace)
from ros_ik.kinematics.joint_limits import JointLimits
from ros_ik.kinematics.task_space import FULL_POSE, row_weights
from ros_ik.kinematics.transforms import pose_error_into
from ros_ik.kinematics.twist_motion import task_twist_motion

# Weighted task error (m, or rad times orientation_weight) below which damping fades.
ERROR_DAMPING_SCALE = 0.05


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
    task_jacobian: np.ndarray  # (m, n): TwistMotion.task_jacobian
    # (m,): the weighted twist W v of step 3 on the task rows (m/s; rad/s times
    # orientation_weight), the motion the step was asked for
    task_twist: np.ndarray

    def realized_fraction(self, velocity: np.ndarray) -> float:
        """
        Return how much of the asked twist the joint velocity ``velocity`` (n,) realizes.

        ``<J qdot, W v> / (c |W v|^2)`` with ``J`` the weighted task Jacobian, ``W v`` the
        asked twist and ``c`` the uniform speed scaling of step 6 (so a step slowed only by
        the joints' speed limits counts as realized): 1 when the tool moves as asked, near
        0 when the asked twist lies in the Jacobian's near-null directions (a singular
        configuration), when joints held at a bound cannot give it, or when the velocity
        damper stops the motion; 1 for no asked twist (nothing to realize).
        """
        asked = float(self.task_twist @ self.task_twist)
        if asked == 0.0 or self.velocity_scaling <= 0.0:
            return 1.0
        realized = float((self.task_jacobian @ velocity) @ self.task_twist)
        return realized / (self.velocity_scaling * asked)


@dataclass(frozen=True)
class TwistMotion:
    """The joint velocity (n,) for a twist and what shaped it."""

    velocity: np.ndarray
    sigma_min: float
    damping: float
    velocity_scaling: float
    at_position_limit: bool
    # (m, n): the masked rows of the geometric Jacobian at q (base frame), the J of step 3:
    # linear rows in m/rad (m/m for a prismatic joint), angular rows in rad/rad times
    # orientation_weight (m/rad)
    task_jacobian: np.ndarray


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
        """Return the joint velocity (n,) at ``q`` (n,) toward ``T_base_target``: one kernel."""
        rows, kept, weights = _task_rows(options.mask, options.orientation_weight)
        kinematics, limits, damping = self.kinematics, self.limits, options.damping
        (velocity, J_task, twist, position_error, orientation_error, sigma_min, lam,
         velocity_scaling, held) = servo_motion(
            np.ascontiguousarray(q, dtype=float),
            np.ascontiguousarray(T_base_target, dtype=float), kinematics.A,
            kinematics.prismatic, kinematics.G_tip, rows, kept, weights, float(options.gain),
            float(options.max_linear_speed), float(options.max_angular_speed), limits.lower,
            limits.upper, limits.wraps_in_range, self._avoids_limits,
            self._velocity_limits(options), float(damping.singular_value_threshold),
            float(damping.max_damping), self._workspace)
        task_twist = (weights * twist)[rows]
        return ServoStep(velocity=velocity, position_error=position_error,
                         orientation_error=orientation_error, sigma_min=sigma_min,
                         damping=lam, velocity_scaling=velocity_scaling,
                         at_position_limit=held, task_jacobian=J_task,
                         task_twist=task_twist)

    def jog(self, q: np.ndarray, twist: np.ndarray, options: ServoOptions) -> 'TwistMotion':
        """
        Return the joint velocity (n,) at ``q`` for a tool twist (6,) in the base frame.

        ``twist = [v; w]`` (m/s at the tool origin, rad/s), masked by ``options.mask``; the
        singularity schedule damps at full strength (a jog has no error to fade with), so
        the tool slows through a singularity and moves on past it.
        """
        q = np.ascontiguousarray(q, dtype=float)
        _, J = self.kinematics.tip_pose_and_jacobian(q)
        rows, _, weights = _task_rows(options.mask, options.orientation_weight)
        limits, damping = self.limits, options.damping
        velocity, J_task, sigma_min, lam, velocity_scaling, held = task_twist_motion(
            J, np.ascontiguousarray(twist, dtype=float), rows, weights, q, limits.lower,
            limits.upper, limits.wraps_in_range, self._avoids_limits,
            self._velocity_limits(options), float(damping.singular_value_threshold),
            float(damping.max_damping), 1.0, self._workspace)
        return TwistMotion(velocity=velocity, sigma_min=sigma_min, damping=lam,
                           velocity_scaling=velocity_scaling, at_position_limit=held,
                           task_jacobian=J_task)

    def task_jacobian(self, q: np.ndarray, options: ServoOptions) -> np.ndarray:
        """
        Return the weighted task Jacobian (m, n) at ``q``: what a step's ``task_jacobian`` is.

        The masked rows of the geometric Jacobian (base frame), angular rows times
        ``orientation_weight`` (m/rad): the velocity damper's metric for a velocity that
        came from no step (a joint jog).
        """
        rows, _, weights = _task_rows(options.mask, options.orientation_weight)
        return self.kinematics.jacobian(q)[rows] * weights[rows, None]

    def _velocity_limits(self, options: ServoOptions) -> np.ndarray:
        """Return the joints' speed caps (n,): the options' own, or velocity_scale x URDF."""
        velocity_limits = (options.velocity_scale * self.velocity_limits
                           if options.velocity_limits is None else options.velocity_limits)
        return np.ascontiguousarray(velocity_limits, dtype=float)


@lru_cache(maxsize=16)
def _task_rows(mask: Tuple[bool, ...], orientation_weight: float
               ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """
    Return the rows ``mask`` keeps: indices, as a (6,) bool array, and all six weights.

    The weights are ``(1, 1, 1, k, k, k)`` (:func:`row_weights`), zero on the rows the mask
    drops. Computed once per mask and weight (a control cycle asks every time).
    """
    kept = np.array(mask, dtype=bool)
    rows = np.flatnonzero(kept)
    weights = np.zeros(6)
    weights[rows] = row_weights(mask, orientation_weight)
    for array in (rows, kept, weights):
        array.flags.writeable = False
    return rows, kept, weights


@numba.njit(cache=True, nogil=True)
def servo_motion(q: np.ndarray, T_base_target: np.ndarray, A: np.ndarray, prismatic: np.ndarray,
                 G_tip: np.ndarray, rows: np.ndarray, kept: np.ndarray, weights: np.ndarray,
                 gain: float, max_linear_speed: float, max_angular_speed: float,
                 lower: np.ndarray, upper: np.ndarray, wraps: np.ndarray,
                 avoids_limits: np.ndarray, velocity_limits: np.ndarray,
                 singular_value_threshold: float, max_damping: float, work: DlsWorkspace
                 ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, float, float, float, float, float,
                            bool]:
    """
    Return one servo step at ``q`` (n,), steps 1-6 of the module docstring in one call.

    Returns ``(qdot, J_task, twist, |e_p|, |e_o|, sigma_min, lam, scaling, held)``
    (``twist`` (6,): the unweighted twist of step 2): the tip pose
    and geometric Jacobian (6, n) from the chain's aligned frames ``A``, ``prismatic``,
    ``G_tip`` (:func:`tip_pose_and_jacobian_into`), the twist (:func:`servo_twist_into`),
    then the task rows ``rows`` weighted by ``weights`` (6,) through
    :func:`ros_ik.kinematics.twist_motion.task_twist_motion` with the error scale
    ``s = min(1, (|W e| / ERROR_DAMPING_SCALE)^2)``.
    """
    n = q.shape[0]
    T_base_tip = np.empty((4, 4))
    J = np.empty((6, n))
    tip_pose_and_jacobian_into(q, A, prismatic, G_tip, np.empty((n, 3, 4)), T_base_tip, J)
    twist = np.empty(6)
    position_error, orientation_error, error_norm = servo_twist_into(
        T_base_target, T_base_tip, kept, weights, gain, max_linear_speed, max_angular_speed,
        twist)
    velocity, J_task, sigma_min, damping, scaling, held = task_twist_motion(
        J, twist, rows, weights, q, lower, upper, wraps, avoids_limits, velocity_limits,
        singular_value_threshold, max_damping, min(1.0, (error_norm / ERROR_DAMPING_SCALE) ** 2),
        work)
    return (velocity, J_task, twist, position_error, orientation_error, sigma_min, damping,
            scaling, held)


@numba.njit(cache=True, nogil=True)
def servo_twist_into(T_base_target: np.ndarray, T_base_tip: np.ndarray, kept: np.ndarray,
                     weights: np.ndarray, gain: float, max_linear_speed: float,
                     max_angular_speed: float, twist: np.ndarray) -> Tuple[float, float, float]:
    """
    Write the servo twist (6,) toward a target; return the errors it comes from.

    Steps 1-2 of the module docstring: ``e = [p_target - p_tip; log(R_target R_tip^T)]``
    (m, rad, base frame), zero on the rows not ``kept`` (the mask, (6,)); ``twist =
    gain e``, its linear part (m/s) scaled down to norm ``max_linear_speed`` and its
    angular part (rad/s) to ``max_angular_speed`` where longer. Returns ``|e_p|`` (m),
    ``|e_o|`` (rad) and the weighted error norm ``|W e|`` (``W = diag(weights)``) of the
    damping's error scale.
    """
    error = np.empty(6)
    pose_error_into(T_base_target, T_base_tip, error)
    for i in range(6):
        if not kept[i]:
            error[i] = 0.0
    weighted = 0.0
    for i in range(6):
        weighted += (weights[i] * error[i]) ** 2
    norms = np.empty(2)
    for part, cap in ((0, max_linear_speed), (1, max_angular_speed)):
        norm = np.sqrt(error[3 * part] ** 2 + error[3 * part + 1] ** 2
                       + error[3 * part + 2] ** 2)
        norms[part] = norm
        scale = gain
        if gain * norm > cap:
            scale = cap / norm
        for i in range(3 * part, 3 * part + 3):
            twist[i] = scale * error[i]
    return norms[0], norms[1], np.sqrt(weighted)
