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
vmax_j``: the generator moves toward the goal at the servo's speed. Inside the tool's speed
caps, with the step undamped (``sigma_min`` at or above the damping threshold), the twist
is ``gain e`` and the goal the linearised solution ``q + J^+ e``; held to the speed of
``qdot`` the generator would close the error as ``exp(-gain t)``, a tail of about 1 s from
2 cm to 0.1 mm at gain 5. There the speed fraction is lifted to what the caps allow
(:func:`tool_cap_factor`; the null-space motion not with it: :func:`null_motion_kept`), so
the generator ends the motion at rest on the solution in finite time, as solve mode's does
(0.2-0.3 s for 2 cm), and follows a moving target closer than the P-law's lag
``speed / gain``. Not where a pair is within the velocity damper's slow-down distance,
whose approach speeds are chosen for commands that follow ``qdot`` (a servo approaching
faster there went deeper and stalled where every motion out was blocked: the demo's SO-101
stretch). Far from the target, where both parts of the twist are at their caps and the step
is undamped and clear of obstacles, the goal lies farther ahead along the step's tool
motion, as far as the joints need to stop from the speed they follow it at, and that speed
is held to what lets them turn with the straight tool line
(:mod:`ros_ik.control.servo_lookahead`).

It is computed at most every ``SERVO_PERIOD`` s of command time while the joints
move (at once for a new target, mask, settings or collision model) and held in between, as
a 200 Hz loop holds it for a whole period; an arm at rest at a reached target (the same
``q`` bit for bit) reuses it (:mod:`ros_ik.control.last_result`).

A servo that makes no progress (:mod:`ros_ik.control.servo_recovery`: at a singular
configuration, a joint limit, an obstacle, a local minimum) on a chain that moves the tip in
every task direction recovers by a solve-mode motion to the nearest collision-free IK
solution and servos again from there; the status says which (WARN) and why, and a refusal
of that motion is the servo's (ERROR). A new target that finds the arm at a singular
configuration starts with that escape at once and servos as soon as the arm is clear of the
singular region. On other chains the status says why a servo that
stays still for ``STALL_SECONDS`` short of the target stopped: a joint limit (WARN), the
closest pose of the chain (WARN), a collision it is held at without getting
``BLOCKED_PROGRESS`` closer (ERROR, refused). A target provably out of reach brakes to rest
at once (ERROR).
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
from ros_ik.control.servo_lookahead import (arrival_time, drawn_back, lookahead,
                                            passes_target, tool_motion, TURN_PROBE,
                                            turning_scale)
from ros_ik.control.servo_recovery import (moving_on, ProgressWatch, RESUME_SIGMA_FACTOR,
                                           ServoRecovery, stuck_reason)
from ros_ik.kinematics.servo_step import ServoOptions, ServoStep
from ros_ik.trajectory.jtc_spline import whole_nanoseconds
from ros_ik.trajectory.online_generator import MotionState

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
    velocity through the damper, and its speed fraction (module docstring); ``realized``: the
    fraction of the step's twist ``qdot`` realizes (:meth:`ServoStep.realized_fraction`);
    ``stopping_contact``: what the damper stops for; ``reach_reason``: why the target is
    provably out of reach ('' if not).
    """

    step: ServoStep
    goal: Goal
    realized: float
    stopping_contact: Optional[Contact]
    reach_reason: str
    q_from: np.ndarray


def tool_cap_factor(step: ServoStep, options: ServoOptions) -> float:
    """
    Return how much faster than the P-law the tool may approach the step's goal (>= 1).

    Inside the tool's speed caps the step's twist is ``K e`` (``K = gain``, 1/s), and its
    goal ``q + qdot / K`` the linearised solution ``q + J^+ e``. Held to the speed of
    ``qdot`` the generator would close the error as ``exp(-K t)``: a tail of ``ln(e0 /
    tolerance) / K`` s (about 1 s at gain 5 from 2 cm to 0.1 mm). The tool may move toward
    that goal at up to its caps, ``min(v_max / (K |e_p|), w_max / (K |e_o|))`` times faster
    (m/s over m/s, rad/s over rad/s), so the generator, which brakes to rest at the goal
    under the acceleration and jerk limits, ends the motion in finite time; 1 where a part
    of the twist is capped already (far from the target, the tool speed is the cap's).
    """
    caps = ((options.max_linear_speed, step.position_error),
            (options.max_angular_speed, step.orientation_error))
    factors = [cap / (options.gain * error) for cap, error in caps if error > 0.0]
    return max(1.0, min(factors, default=1.0))


def null_motion_kept(velocity: np.ndarray, J_task: np.ndarray, factor: float) -> np.ndarray:
    """
    Return the goal's velocity (n,) for a generator ``factor`` times faster than ``velocity``.

    ``velocity = qdot_t + qdot_0`` with ``qdot_t = J^+ J qdot`` the part that moves the tool
    (``J_task`` (m, n), full row rank) and ``qdot_0`` the null-space part (on a redundant
    arm, the motion away from joint limits, which leaves the tool still). Returns
    ``qdot_t + qdot_0 / factor``: followed up to ``factor`` times faster, the tool closes
    its error that much faster while the null-space motion goes no faster than it did
    (lifted with the rest, it ran a Panda's joints at full speed in the null space, whose
    tool stillness is first-order only: the tool drifted off by a millimetre for seconds).
    Once the tool has arrived the null-space motion ends with it: the arm settles.
    """
    tool_part = np.linalg.pinv(J_task) @ (J_task @ velocity)
    return tool_part + (velocity - tool_part) / factor


class ServoGoals:
    """The servo's goal per cycle and its stall and blocking watch (module docstring)."""

    def __init__(self, arm: ControlledArm, stepper: MotionStepper,
                 options: DifferentialOptions, recovery: ServoRecovery) -> None:
        """Keep the arm, the motion step (generator, damper), options cache and recovery."""
        self.arm, self.stepper, self.options = arm, stepper, options
        self.recovery = recovery
        self._progress = ProgressWatch()
        self._last_target: Optional[np.ndarray] = None  # T_base_target of the last cycle
        self._last_time = -np.inf  # command time (s) of the last cycle that asked the servo
        self._sequence = -1  # the target the watch below counts for
        self._stopped_cycles = 0
        self._blocked_time, self._blocked_error = 0.0, np.inf  # held by a collision
        self._motion: LastResult[ServoMotion] = LastResult()
        self._held_until = -np.inf  # command time (s) until which the motion is held
        self._fresh = False  # another target came and no servo step was taken toward it

    def release_hold(self) -> None:
        """Compute the motion anew next cycle (the commanded state left its path)."""
        self._held_until = -np.inf

    def choose(self, target: Target, mask: Tuple[bool, ...], state: MotionState, time: float,
               dt: float, settings: Settings, notices: List[Notice],
               values: Dict[str, object]) -> GoalChoice:
        """
        Return the servo's goal from the commanded ``state``.

        ``time``: this command's time (s); ``dt``: the step (s). Adds the step's damping,
        velocity scaling and recovery (``none``, ``escape``, ``fallback``) to ``values``.
        """
        moved = self._take(target, time, dt, settings)
        values['servo_recovery'] = self.recovery.kind or 'none'
        recovering = self._recovering(target, mask, state, time, settings, notices, values)
        if recovering is not None:
            return recovering
        motion = self._motion_at(state.position, target, mask, time, settings)
        step = motion.step
        values.update(damping=step.damping, velocity_scaling=step.velocity_scaling)
        reached = (step.position_error <= settings.position_tolerance
                   and step.orientation_error <= settings.orientation_tolerance)
        fresh, self._fresh = self._fresh, False
        singular_start = fresh and self._escapes_at_once(motion, reached, settings)
        if singular_start or (self._stuck(motion, moved, reached, time, settings)
                              and not motion.reach_reason):
            kind, why = stuck_reason(step, settings, motion.stopping_contact is not None)
            self.recovery.start(kind, why, step, notices, until_regular=singular_start)
            recovering = self.recovery.choose(target, mask, state, settings, notices, values)
            if recovering is not None:
                values['servo_recovery'] = kind
                return recovering
            self._progress.reset(time)
        return self._servoing(motion, reached, state, dt, notices)

    def _take(self, target: Target, time: float, dt: float, settings: Settings) -> bool:
        """
        Take this cycle's target; return whether it moved since the last cycle.

        Cycles that did not ask the servo (a brake, a jog) restart the progress watch; a
        new target that is not the last one moving on (:func:`moving_on`) restarts the
        watches and ends a recovery, as does one that moved on after a refusal.
        """
        previous, self._last_target = self._last_target, target.T_base_target
        moved = not np.array_equal(target.T_base_target, previous)
        if time - self._last_time > 2.0 * max(dt, 1.0 / settings.update_rate):  # not asked
            self._progress.reset(time)
        self._last_time = time
        if target.sequence != self._sequence:
            self._sequence = target.sequence
            if not moving_on(previous, target.T_base_target):  # another target's watch
                self._fresh = True
                self._stopped_cycles = 0
                self._blocked_time, self._blocked_error = 0.0, np.inf
                self._progress.reset(time)
                self.recovery.stop()  # the servo takes it
            elif moved and self.recovery.active and self.recovery.solve.goal is None:
                self.recovery.stop()  # moved on after a refusal: servo it again
        return moved

    def _recovering(self, target: Target, mask: Tuple[bool, ...], state: MotionState,
                    time: float, settings: Settings, notices: List[Notice],
                    values: Dict[str, object]) -> Optional[GoalChoice]:
        """Return the recovery's goal while it runs; None: servo (again, once it ends)."""
        if not self.recovery.active:
            return None
        if self.recovery.until_regular and self._regular(state.position, target, mask,
                                                         settings):
            self.recovery.stop()
            text = 'the arm is clear of the singular configuration; servoing again'
        else:
            recovering = self.recovery.choose(target, mask, state, settings, notices, values)
            if recovering is not None:
                return recovering
            text = 'the recovery brought the arm to an IK solution of the target; servoing again'
        notices.append(Notice('info', 'servo:resume', text))
        values['servo_recovery'] = 'none'
        self._progress.reset(time)
        self.release_hold()
        return None

    def _escapes_at_once(self, motion: ServoMotion, reached: bool, settings: Settings) -> bool:
        """
        Return whether a new target's first step finds the arm where it escapes at once.

        At a singular configuration (``sigma_min`` under ``singular_value_threshold``) short
        of a target not provably out of reach, on a chain that moves the tip in every task
        direction (module docstring of :mod:`ros_ik.control.servo_recovery`).
        """
        return (not reached and not motion.reach_reason
                and self.arm.reaches_every_task_direction
                and motion.step.sigma_min < settings.singular_value_threshold)

    def _regular(self, q: np.ndarray, target: Target, mask: Tuple[bool, ...],
                 settings: Settings) -> bool:
        """
        Return whether the joints ``q`` are clear of the singular region.

        ``sigma_min`` of the weighted task Jacobian (m/rad) at ``q`` at least
        ``RESUME_SIGMA_FACTOR`` times ``singular_value_threshold``.
        """
        options = self.options.of(settings, mask)
        sigma_min = self.arm.servo.step(q, target.T_base_target, options).sigma_min
        return sigma_min >= RESUME_SIGMA_FACTOR * settings.singular_value_threshold

    def _servoing(self, motion: ServoMotion, reached: bool, state: MotionState, dt: float,
                  notices: List[Notice]) -> GoalChoice:
        """Return the servo step's goal and status: out of reach, refused, stalled, moving."""
        step, goal = motion.step, motion.goal
        stopped = float(np.abs(state.velocity).max(initial=0.0)) < STALL_SPEED
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

    def _stuck(self, motion: ServoMotion, moved: bool, reached: bool, time: float,
               settings: Settings) -> bool:
        """
        Return whether the servo is stuck short of the target and can recover.

        ``moved``: the target is not where it was last cycle.
        """
        if reached or not self.arm.reaches_every_task_direction:
            self._progress.reset(time)
            return False
        step = motion.step
        error = float(np.hypot(step.position_error,
                               settings.orientation_weight * step.orientation_error))
        asked_rate = step.velocity_scaling * float(np.linalg.norm(step.task_twist))
        return self._progress.stuck(error, motion.realized, asked_rate, time, moved)

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
            # half a period short of SERVO_PERIOD: timer jitter never stretches the hold;
            # in whole nanoseconds, as the command times (CommandStream.advance_clock)
            self._held_until = float(whole_nanoseconds(
                time + SERVO_PERIOD - 0.5 / settings.update_rate))
        return kept

    def _computed(self, q: np.ndarray, target: Target, mask: Tuple[bool, ...],
                  settings: Settings) -> ServoMotion:
        """Compute the servo step at ``q``, its velocity through the damper and its goal."""
        options = self.options.of(settings, mask)
        step = self.arm.servo.step(q, target.T_base_target, options)
        velocity, stopping = self.stepper.damped_velocity(
            q, step.velocity, step.task_jacobian, step.damping, options.velocity_limits,
            settings)
        factor = (tool_cap_factor(step, options)
                  if step.sigma_min >= options.damping.singular_value_threshold  # undamped
                  else 1.0)
        if factor > 1.0 and self.stepper.near_obstacle(q, settings):  # a damper row may bind
            factor = 1.0
        toward = (null_motion_kept(velocity, step.task_jacobian, factor) if factor > 1.0
                  else velocity)
        speed = float(np.max(np.abs(toward) / options.velocity_limits, initial=0.0))
        goal = Goal(q + toward / settings.gain, min(1.0, factor * speed))
        if (factor == 1.0 and step.sigma_min >= options.damping.singular_value_threshold
                and stopping is None and not self.stepper.near_obstacle(q, settings)):
            goal = self._ahead(q, step, velocity, speed, target, options, settings) or goal
        return ServoMotion(step, goal,
                           step.realized_fraction(velocity), stopping,
                           self.arm.solver.out_of_reach_reason(target.T_base_target,
                                                               step.position_error),
                           q.copy())

    def _ahead(self, q: np.ndarray, step: ServoStep, velocity: np.ndarray, speed: float,
               target: Target, options: ServoOptions, settings: Settings) -> Optional[Goal]:
        """
        Return the far servo's goal ahead along its step (:mod:`servo_lookahead`), or None.

        ``velocity`` (n,): the step's, through the damper; ``speed``: its speed fraction.
        """
        arrival = arrival_time((step.position_error, step.orientation_error),
                               (options.max_linear_speed, options.max_angular_speed),
                               settings.gain)
        if arrival <= 1.0 / settings.gain:
            return None
        limits = self.stepper.generator(settings).limits
        tool_part = tool_motion(velocity, step.task_jacobian)
        if tool_part is None:
            return None
        ahead = self.arm.servo.step(q + TURN_PROBE * velocity, target.T_base_target, options)
        turning = turning_scale(velocity, ahead.velocity, TURN_PROBE, limits.acceleration)
        null_part = (velocity - tool_part) / settings.gain
        tau = drawn_back(lookahead(q, tool_part, turning, arrival, settings.gain, limits),
                         lambda tau: passes_target(step.task_twist, self.arm.servo.step(
                             q + tool_part * tau + null_part, target.T_base_target,
                             options).task_twist), settings.gain)
        if tau is None:
            return None
        return Goal(q + tool_part * tau + null_part, turning * speed)
