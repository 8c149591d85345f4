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

A twist ``[v; w]`` (m/s, rad/s) is given in a frame ``F`` of the chain (its orientation; ``v``
is the tool origin's velocity): in the base frame it is ``[R_base_F v; R_base_F w]`` at the
commanded joints, scaled by ``jog_linear_scale`` / ``jog_angular_scale`` and masked by
``task_axes``. The servo's damped least squares (full singularity damping, joints at a
limit held, the null space on redundant arms) turns it into joint velocities ``qdot``;
joint jogs give ``qdot`` directly (clipped to the limits). The generator then moves toward
``q + qdot T`` with each joint's velocity capped at ``|qdot_j|``, with ``T`` several times
what any joint needs to stop, so the arm cruises at ``qdot`` and re-plans every cycle; a
command
older than ``jog_timeout`` ends the jog: the arm brakes to rest.
"""

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ros_ik.control.arm import ControlledArm
from ros_ik.kinematics.servo_step import ServoOptions
from ros_ik.trajectory.motion_limits import MotionLimits

# The goal lies LOOKAHEAD_FACTOR x the slowest joint's stopping time plus LOOKAHEAD_MARGIN
# ahead: the plan is then mostly cruise, so every joint moves at its qdot (within a few %).
LOOKAHEAD_FACTOR = 4.0
LOOKAHEAD_MARGIN = 0.2  # s


@dataclass(frozen=True)
class JogCommand:
    """A jog: ``kind`` 'twist' (values (6,), in ``frame``) or 'joint' (values (n,))."""

    kind: str
    frame: str
    values: np.ndarray
    receive_time: float


@dataclass(frozen=True)
class JogGoal:
    """Where the jog moves this cycle: the goal, each joint's speed, and what shaped it."""

    q_goal: np.ndarray
    joint_speeds: np.ndarray
    damping: float
    at_position_limit: bool


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


def jog_goal(arm: ControlledArm, limits: MotionLimits, options: ServoOptions,
             q: np.ndarray, jog: JogCommand, scales: Tuple[float, float]) -> JogGoal:
    """Return the generator goal of one jog cycle at the commanded joints ``q``."""
    velocity_limits = options.velocity_limits
    damping, at_limit = 0.0, False
    if jog.kind == 'twist':
        R_base_frame = arm.kinematics.frame_pose(q, jog.frame)[:3, :3]
        twist = np.concatenate([R_base_frame @ jog.values[:3] * scales[0],
                                R_base_frame @ jog.values[3:] * scales[1]])
        motion = arm.servo.jog(q, twist, options)
        qdot, damping, at_limit = motion.velocity, motion.damping, motion.at_position_limit
    else:
        qdot = np.clip(jog.values, -velocity_limits, velocity_limits)
    stopping = np.abs(qdot) / limits.acceleration + limits.acceleration / limits.jerk
    lookahead = LOOKAHEAD_FACTOR * float(np.max(stopping, initial=0.0)) + LOOKAHEAD_MARGIN
    return JogGoal(q + qdot * lookahead, np.abs(qdot), damping, at_limit)


def describe(jog: JogCommand) -> Dict[str, object]:
    """Return the diagnostics values of the active jog."""
    return {'input': f'jog ({jog.kind}' + (f' in {jog.frame})' if jog.kind == 'twist' else ')')}
