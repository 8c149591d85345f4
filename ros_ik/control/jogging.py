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
Jogging: a tool twist or joint velocities from a joystick or keyboard, turned into a goal.

A twist ``[v; w]`` (m/s, rad/s) is given in a frame ``F`` (its orientation; ``v`` is the
tool origin's velocity): a chain frame or a TF frame. In the base frame it is
``[R_base_F v; R_base_F w]`` (a chain frame at the commanded joints, a TF frame at its latest
transform), scaled by ``jog_linear_scale`` / ``jog_angular_scale`` and masked by
``task_axes``. The servo's damped least squares (the singularity damping with a quarter of
the threshold and ``lam_max``, see ``JOG_DAMPING_FRACTION``; joints at a limit held, the
null space on redundant arms) turns it into joint velocities ``qdot``;
joint jogs give ``qdot`` directly (clipped to the limits). The generator then moves toward
``q + qdot T`` with each joint's velocity capped at ``|qdot_j|``, with ``T`` several times
what any joint needs to stop, so the arm cruises at ``qdot`` and re-plans every cycle; a
command
older than ``jog_timeout`` ends the jog: the arm brakes to rest.

A twist jog also keeps the tool on its path: :class:`JogPath` integrates the commanded
twist into the pose the tool should have reached, ``T_ref``, and the twist sent to the
damped least squares is ``twist + K_path [p_ref - p_tip; log(R_ref R_tip^T)]``. Where the
damping lets the tool stray (through a singularity), it comes back to the line after it.
``T_ref`` never leads the tool by more than ``MAX_LEAD`` (m, rad) along the commanded
motion (a blocked arm does not build up a lead to rush after) and the correction is
bounded by ``K_path MAX_LEAD``.
"""

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ros_ik.control.arm import ControlledArm
from ros_ik.kinematics.servo_step import ServoOptions
from ros_ik.kinematics.transforms import axis_angle_matrix, pose_error
from ros_ik.trajectory.motion_limits import MotionLimits

# The goal lies LOOKAHEAD_FACTOR x the slowest joint's stopping time plus LOOKAHEAD_MARGIN
# ahead: the plan is then mostly cruise, so every joint moves at its qdot (within a few %).
LOOKAHEAD_FACTOR = 4.0
LOOKAHEAD_MARGIN = 0.2  # s
PATH_GAIN = 5.0  # 1/s, K_path
MAX_LEAD = 0.01  # m and rad


@dataclass(frozen=True)
class JogCommand:
    """A jog: ``kind`` 'twist' (values (6,), in ``frame``) or 'joint' (values (n,))."""

    kind: str
    frame: str
    values: np.ndarray
    receive_time: float


@dataclass(frozen=True)
class JogVelocity:
    """A jog cycle's joint velocity (n,) and what shaped it."""

    qdot: np.ndarray
    damping: float
    at_position_limit: bool
    # (m, n): the weighted task Jacobian a twist's velocity came from (TwistMotion's);
    # None for joint jogs
    task_jacobian: Optional[np.ndarray]


class JogPath:
    """The pose a twist jog should have reached by now (base frame), ``None`` between jogs."""

    def __init__(self) -> None:
        """Start without a path."""
        self.T_base_reference: Optional[np.ndarray] = None

    def reset(self) -> None:
        """Forget the path: the next twist starts a new one at the tool."""
        self.T_base_reference = None

    def correction(self, T_base_tip: np.ndarray, twist: np.ndarray, dt: float) -> np.ndarray:
        """Advance the path by ``twist`` (6,) over ``dt`` s; return ``K_path`` x the error."""
        if self.T_base_reference is None:
            self.T_base_reference = T_base_tip.copy()
        reference = self.T_base_reference
        reference[:3, 3] += twist[:3] * dt
        reference[:3, :3] = _rotation(twist[3:] * dt) @ reference[:3, :3]
        e_p, e_o = pose_error(reference, T_base_tip)
        e_p, e_o = _lead_kept(e_p, twist[:3]), _lead_kept(e_o, twist[3:])
        reference[:3, 3] = T_base_tip[:3, 3] + e_p
        reference[:3, :3] = _rotation(e_o) @ T_base_tip[:3, :3]
        return PATH_GAIN * np.concatenate([_capped(e_p), _capped(e_o)])


def _lead_kept(error: np.ndarray, velocity: np.ndarray) -> np.ndarray:
    """Return ``error`` with its component along ``velocity`` at most ``MAX_LEAD``."""
    speed = float(np.linalg.norm(velocity))
    if speed == 0.0:
        return error
    direction = velocity / speed
    along = float(error @ direction)
    return error - (along - MAX_LEAD) * direction if along > MAX_LEAD else error


def _capped(error: np.ndarray) -> np.ndarray:
    """Return ``error`` shortened to ``MAX_LEAD`` if longer (bounds the correction)."""
    norm = float(np.linalg.norm(error))
    return error * (MAX_LEAD / norm) if norm > MAX_LEAD else error


def _rotation(r: np.ndarray) -> np.ndarray:
    """Return ``exp([r]x)``, exactly orthonormal (the path integrates many small ones)."""
    angle = float(np.linalg.norm(r))
    return axis_angle_matrix(r / angle, angle) if angle > 0.0 else np.eye(3)


def joint_velocity_command(joint_names: Sequence[str], names: Sequence[str],
                           velocities: Sequence[float]) -> Tuple[Optional[np.ndarray], str]:
    """
    Return the chain's joint velocities (n,) from named velocities, or None and why not.

    Joints the command does not name get 0; names outside the chain are an error.
    """
    if len(names) != len(velocities):
        return None, (f'joint jog has {len(names)} names but {len(velocities)} velocities; '
                      'ignored')
    values = np.asarray(velocities, dtype=float)
    if not np.all(np.isfinite(values)):
        return None, 'joint jog has non-finite velocities; ignored'
    index = {name: position for position, name in enumerate(joint_names)}
    unknown = [name for name in names if name not in index]
    if unknown:
        return None, (f'joint jog names joints outside the chain: {", ".join(unknown)}; '
                      'ignored')
    qdot = np.zeros(len(joint_names))
    for name, value in zip(names, values):
        qdot[index[name]] = value
    return qdot, ''


def jog_velocity(arm: ControlledArm, options: ServoOptions, q: np.ndarray, jog: JogCommand,
                 R_base_frame: Optional[np.ndarray], scales: Tuple[float, float],
                 path: JogPath, dt: float) -> JogVelocity:
    """
    Return the joint velocity of one jog cycle at the commanded joints ``q``.

    A twist jog: the twist in the base frame (rotated by ``R_base_frame``, the
    orientation of the jog's frame; scaled by ``scales`` = (linear, angular), corrected
    back onto ``path``) through the servo's damped least squares
    (:meth:`ServoController.jog`). A joint jog: its velocities clipped to the options'
    speed caps.
    """
    if jog.kind != 'twist':
        velocity_limits = options.velocity_limits
        return JogVelocity(np.clip(jog.values, -velocity_limits, velocity_limits), 0.0,
                           False, None)
    twist = np.concatenate([R_base_frame @ jog.values[:3] * scales[0],
                            R_base_frame @ jog.values[3:] * scales[1]])
    twist = twist + path.correction(arm.kinematics.tip_pose(q), twist, dt)
    motion = arm.servo.jog(q, twist, options)
    return JogVelocity(motion.velocity, motion.damping, motion.at_position_limit,
                       motion.task_jacobian)


def jog_goal(limits: MotionLimits, q: np.ndarray, qdot: np.ndarray) -> np.ndarray:
    """
    Return the generator goal ``q + qdot T`` (n,) of a jog at ``q`` cruising at ``qdot``.

    ``T = LOOKAHEAD_FACTOR t_stop + LOOKAHEAD_MARGIN`` (s) with ``t_stop = max_j (|qdot_j| /
    a_max_j + a_max_j / j_max_j)``, what the slowest joint needs to stop: the plan is then
    mostly cruise.
    """
    stopping = np.abs(qdot) / limits.acceleration + limits.acceleration / limits.jerk
    lookahead = LOOKAHEAD_FACTOR * float(np.max(stopping, initial=0.0)) + LOOKAHEAD_MARGIN
    return q + qdot * lookahead


def describe(jog: JogCommand) -> Dict[str, object]:
    """Return the diagnostics values of the active jog."""
    return {'input': f'jog ({jog.kind}' + (f' in {jog.frame})' if jog.kind == 'twist' else ')')}
