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
Servo mode's goal: one damped differential step toward the target per cycle.

At the commanded joints ``q`` (rad or m) the servo step
(:mod:`ros_ik.kinematics.servo_step`) gives the joint velocity ``qdot`` toward
``T_base_target``; the velocity damper (:meth:`MotionStepper.damped_velocity`) slows it
near obstacles. The goal is ``q + qdot / gain`` with the speed fraction ``max_j |qdot_j| /
vmax_j``. It is computed at most every ``SERVO_PERIOD`` s of command time while the joints
move (at once for a new target, mask, settings or collision model) and held in between, as
a 200 Hz loop holds it for a whole period; an arm at rest at a reached target (the same
``q`` bit for bit) reuses it (:mod:`ros_ik.control.last_result`).

The status says why a servo that stays still for ``STALL_SECONDS`` short of the target
stopped: a joint limit (WARN), the closest pose of a chain that cannot move the tip in
every task direction (WARN), a collision it is held at without getting ``BLOCKED_PROGRESS``
closer (ERROR, refused), anything else (ERROR, unreachable). A target provably out of reach
brakes to rest at once (ERROR).
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from ros_ik.collision.contact import Contact
from ros_ik.control.arm import ControlledArm
from ros_ik.control.cycle_types import Goal, GoalChoice, HOLD, Notice
from ros_ik.control.differential_options import DifferentialOptions
from ros_ik.control.inputs import Target
from ros_ik.control.last_result import LastResult
from ros_ik.control.motion_step import MotionStepper
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.servo_step import ServoStep

STALL_SPEED = 1e-4  # rad/s: below this the servo counts as stopped
STALL_SECONDS = 0.5  # s stopped short of the target before it is reported
# A servo held at an obstacle that gets less than this closer (m) in STALL_SECONDS refuses.
BLOCKED_PROGRESS = 1e-3
# The servo velocity (damped step and velocity damper) is computed at most this often (s);
# faster loops hold it in between, as a 200 Hz loop does for a whole period.
SERVO_PERIOD = 0.005


@dataclass(frozen=True)
class ServoMotion:
    """
    A servo step and what follows from it until the next one.

    ``goal``: the joints ``q_from + qdot / gain`` (rad or m) with ``qdot`` the step's
    velocity through the damper and its speed fraction; ``stopping_contact``: what the
    damper stops for; ``reach_reason``: why the target is provably out of reach ('' if
    not).
    """

    step: ServoStep
    goal: Goal
    stopping_contact: Optional[Contact]
    reach_reason: str
    q_from: np.ndarray


class ServoGoals:
    """The servo's goal per cycle and its stall and blocking watch (module docstring)."""

    def __init__(self, arm: ControlledArm, stepper: MotionStepper,
                 options: DifferentialOptions) -> None:
        """Keep the arm, the motion step (generator, damper) and the options cache."""
        self.arm, self.stepper, self.options = arm, stepper, options
        self._sequence = -1  # the target the watch below counts for
        self._stopped_cycles = 0
        self._blocked_time, self._blocked_error = 0.0, np.inf  # held by a collision
        self._motion: LastResult[ServoMotion] = LastResult()
        self._held_until = -np.inf  # command time (s) until which the motion is held

    def release_hold(self) -> None:
        """Compute the motion anew next cycle (the commanded state left its path)."""
        self._held_until = -np.inf

    def choose(self, target: Target, mask: Tuple[bool, ...], q: np.ndarray,
               velocity: np.ndarray, time: float, dt: float, settings: Settings,
               notices: List[Notice], values: Dict[str, object]) -> GoalChoice:
        """
        Return the servo's goal at the commanded joints ``q`` (velocity ``velocity``).

        ``time``: this command's time (s); ``dt``: the step (s). Adds the step's damping
        and velocity scaling to ``values``.
        """
        if target.sequence != self._sequence:  # a new target's stall is its own
            self._sequence = target.sequence
            self._stopped_cycles = 0
            self._blocked_time, self._blocked_error = 0.0, np.inf
        motion = self._motion_at(q, target, mask, time, settings)
        step, goal = motion.step, motion.goal
        values.update(damping=step.damping, velocity_scaling=step.velocity_scaling)
        reached = (step.position_error <= settings.position_tolerance
                   and step.orientation_error <= settings.orientation_tolerance)
        stopped = float(np.abs(velocity).max(initial=0.0)) < STALL_SPEED
        self._stopped_cycles = self._stopped_cycles + 1 if stopped and not reached else 0
        stalled = self._stopped_cycles * dt > STALL_SECONDS
        if motion.reach_reason:
            notices.append(Notice('warn', 'target:reach', motion.reach_reason))
            return GoalChoice('ERROR', motion.reach_reason + '; braking to rest', HOLD)
        blocking = motion.stopping_contact
        if blocking is None or step.position_error < self._blocked_error - BLOCKED_PROGRESS:
            self._blocked_time, self._blocked_error = 0.0, step.position_error
        else:
            self._blocked_time += dt
        if blocking is not None and self._blocked_time > STALL_SECONDS:
            message = ('target refused: the motion would bring '
                       f'{blocking.text()}; stopped short of the collision')
            notices.append(Notice('warn', 'target:collision', message))
            return GoalChoice('ERROR', message, HOLD)
        if stalled:
            return self._stalled(step, goal, notices)
        if step.at_position_limit:
            return GoalChoice('WARN', 'moving along a joint limit', goal)
        return GoalChoice('OK', 'tracking the target', goal)

    def _stalled(self, step: ServoStep, goal: Goal, notices: List[Notice]) -> GoalChoice:
        """Return why a servo that stayed still short of the target stopped."""
        if step.at_position_limit:
            return GoalChoice('WARN', 'stopped at a joint limit short of the target', goal)
        if not self.arm.reaches_every_task_direction:
            message = (f'at the closest pose this chain reaches: {step.position_error:.3g} m '
                       f'and {step.orientation_error:.3g} rad from the target')
            notices.append(Notice('warn', 'target:closest', message))
            return GoalChoice('WARN', message, goal)
        message = (f'target unreachable: stopped {step.position_error:.3g} m and '
                   f'{step.orientation_error:.3g} rad away')
        notices.append(Notice('warn', 'target:unreachable', message))
        return GoalChoice('ERROR', message, goal)

    def _motion_at(self, q: np.ndarray, target: Target, mask: Tuple[bool, ...], time: float,
                   settings: Settings) -> ServoMotion:
        """
        Return the servo motion at the commanded joints ``q``: computed, reused or held.

        Depends only on the joints, the target, the mask, the settings and the collision
        model: the same ``q`` bit for bit reuses the last one; while the joints move it is
        held for ``SERVO_PERIOD`` s of command time with the joints it is from, so the goal
        ``q_from + qdot / gain`` stays where it was (the generator and the step check still
        run every cycle); another target, mask, settings or collision model computes it at
        once.
        """
        inputs = (target, mask, settings, self.stepper.guard)
        kept = self._motion.reused(inputs)
        same_joints = kept is not None and q.tobytes() == kept.q_from.tobytes()
        if kept is None or not (same_joints or time < self._held_until):
            kept = self._motion.keep(inputs, self._computed(q, target, mask, settings))
            # half a period short of SERVO_PERIOD: timer jitter never stretches the hold
            self._held_until = time + SERVO_PERIOD - 0.5 / settings.update_rate
        return kept

    def _computed(self, q: np.ndarray, target: Target, mask: Tuple[bool, ...],
                  settings: Settings) -> ServoMotion:
        """Compute the servo step at ``q``, its velocity through the damper and its goal."""
        options = self.options.of(settings, mask)
        step = self.arm.servo.step(q, target.T_base_target, options)
        velocity, stopping = self.stepper.damped_velocity(
            q, step.velocity, step.task_jacobian, step.damping, options.velocity_limits,
            settings)
        speed_fraction = float(np.max(np.abs(velocity) / options.velocity_limits, initial=0.0))
        return ServoMotion(step, Goal(q + velocity / settings.gain, speed_fraction), stopping,
                           self.arm.solver.out_of_reach_reason(target.T_base_target,
                                                               step.position_error),
                           q.copy())
