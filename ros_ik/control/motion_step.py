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
The motion step: the generator moves the commanded state toward the goal, guarded.

A path step (``Goal.path_state``) is taken as it is: its path was proven collision-free when
it was planned (:mod:`ros_ik.paths.path_clearance`) and its stop is along that path.

Each cycle the online trajectory generator (:mod:`ros_ik.trajectory.online_generator`)
advances the commanded state (position, velocity, acceleration, chain order) ``dt`` s
toward the goal under the velocity (times ``velocity_scale``), acceleration and jerk
limits, or brakes to rest. With collision checks (:class:`CollisionGuard`) every step must
keep a collision-free stop: a step toward a goal whose whole motion was found free (the
*checked goal*, followed since) stays on that motion; a step that holds the arm at rest
where it is commands nothing new; any other step is checked with the hardest stop after
it and replaced by the brake where it would collide. A brake off a checked motion that
would collide finishes the checked motion instead. Whatever the goal, the result is
finite: a non-finite step is replaced by the brake, a non-finite brake by rest.

The stage also owns the velocity damper's use (servo and jog velocities slow down near
obstacles and stop at ``collision_stop_distance``) and the start-state check (a commanded
state already in collision may only move apart).
"""

from typing import List, Optional, Tuple

import numpy as np

from ros_ik.collision.contact import Contact
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.cycle_types import Goal, Notice
from ros_ik.control.parameters import Settings
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.online_generator import (all_finite, MotionState, MotionStep,
                                                OnlineGenerator)


def _holds_still(state: MotionState, following: MotionState) -> bool:
    """Return whether ``following`` is ``state`` held at rest (the same joints, bit for bit)."""
    return (state.is_at_rest() and following.is_at_rest()
            and np.array_equal(state.position, following.position))


class MotionStepper:
    """The generator and the collision guard of one controller (see the module docstring)."""

    def __init__(self, limits: MotionLimits, guard: Optional[CollisionGuard]) -> None:
        """Keep the chain's motion limits and the collision checks (None: none)."""
        self.limits = limits
        self.guard = guard
        self.checked_goal: Optional[np.ndarray] = None  # its motion was found free
        self.collision_stop: Optional[Contact] = None  # what stopped this cycle's step
        self._check_start = True
        # ((velocity_scale, acceleration_scale) it was made for, the generator)
        self._generator_for: Tuple[Tuple[float, float], Optional[OnlineGenerator]] = (
            (0.0, 0.0), None)

    def set_guard(self, guard: Optional[CollisionGuard]) -> None:
        """Check against a new model from the next step on; check the start state again."""
        self.guard = guard
        self.forget_checked_motion(check_start=True)

    def forget_checked_motion(self, check_start: bool) -> None:
        """
        Drop the checked goal: the commanded state left its motion (a restart, a stall).

        ``check_start``: check the commanded state for a collision again.
        """
        self.checked_goal = None
        self._check_start = self._check_start or check_start

    def generator(self, settings: Settings) -> OnlineGenerator:
        """Return the trajectory generator for the current velocity and acceleration scales."""
        scale = (settings.velocity_scale, settings.acceleration_scale)
        if self._generator_for[0] != scale or self._generator_for[1] is None:
            self._generator_for = (scale, OnlineGenerator(self.limits.scaled(*scale)))
            self.checked_goal = None  # another speed: another path
        return self._generator_for[1]

    def start_notices(self, state: MotionState) -> List[Notice]:
        """Say so, once after a (re)start, when the commanded state is in collision."""
        if not self._check_start:
            return []
        self._check_start = False
        contact = self.guard.in_collision_at(state.position) if self.guard is not None else None
        if contact is None:
            return []
        return [Notice('warn', 'collision:start', contact.in_collision_text())]

    def damped_velocity(self, q: np.ndarray, qdot: np.ndarray, J_task: Optional[np.ndarray],
                        damping: float, velocity_limits: np.ndarray,
                        settings: Settings) -> Tuple[np.ndarray, Optional[Contact]]:
        """
        Return ``qdot`` (n,) through the velocity damper and the pair it stops at (if any).

        ``J_task`` (m, n): the weighted task Jacobian at ``q`` the velocity came from (the
        damper's metric). Without collision checks ``qdot`` is returned unchanged.
        """
        if self.guard is None:
            return qdot, None
        return self.guard.damped_velocity(q, qdot, J_task, damping, velocity_limits, settings)

    def near_obstacle(self, q: np.ndarray, settings: Settings) -> bool:
        """Return whether the velocity damper may slow the arm at ``q`` (False: no checks)."""
        return self.guard is not None and self.guard.may_slow(q, settings)

    def advance(self, state: MotionState, goal: Goal, dt: float, settings: Settings,
                notices: List[Notice]) -> MotionStep:
        """Return the step ``dt`` s from ``state`` toward ``goal`` (module docstring)."""
        generator = self.generator(settings)
        step = None
        self.collision_stop = None
        if goal.path_state is not None:
            self.checked_goal = None
            if goal.path_state.is_finite():
                return MotionStep(goal.path_state, 0.0)
            notices.append(Notice('warn', 'command:non_finite', 'the path state is not '
                                  'finite (numeric overflow); braking to rest'))
            return generator.brake_step(state, dt)
        if goal.q is not None and all_finite(goal.q):
            step = generator.step(state, goal.q, dt, goal.speed_fraction, goal.velocity_caps)
            if (step.state.is_finite() and goal.q is not self.checked_goal
                    and not _holds_still(state, step.state)):
                step = self._guarded(generator, state, step, dt, notices)
        elif goal.q is not None:
            notices.append(Notice('warn', 'command:non_finite', 'the goal is not finite '
                                  '(numeric overflow); braking to rest'))
        checked_goal = (goal.q if goal.q is not None and goal.q is self.checked_goal
                        and step is not None else None)
        if step is None and self.checked_goal is not None and not state.is_at_rest():
            step, checked_goal = self._brake_or_finish(generator, state, dt, notices)
        self.checked_goal = checked_goal
        if step is None or not step.state.is_finite():
            step = generator.brake_step(state, dt)
        if not step.state.is_finite():
            step = MotionStep(MotionState.at_rest(state.position), 0.0)
        return step

    def prepare_damper_at_rest(self, state: MotionState, settings: Settings) -> None:
        """
        At rest, measure the pairs the damper may need when a target or jog comes.

        From the cycle that brings the commands to rest (a target arriving with that
        command finds them measured): the first cycle toward a new target or jog then
        solves the damper with them at once (:meth:`CollisionGuard.prepare_damper`,
        :meth:`CollisionGuard.damped_velocity`). Later rest cycles at the same joints
        cost a comparison, unless the checker measured elsewhere meanwhile.
        """
        if self.guard is not None and state.is_at_rest():
            self.guard.prepare_damper(state.position, settings)

    def _guarded(self, generator: OnlineGenerator, state: MotionState, step: MotionStep,
                 dt: float, notices: List[Notice]) -> Optional[MotionStep]:
        """Return ``step`` if it and the hardest stop after it are free, else None (brake)."""
        if self.guard is None:
            return step
        contact = self.guard.step_contact(generator, state, step.state, dt)
        if contact is None:
            return step
        self.collision_stop = contact
        notices.append(Notice('warn', 'collision:stop', 'stopping: the motion would bring '
                              f'{contact.text()} (clearance {contact.distance:.3g} m)'))
        return None

    def _brake_or_finish(self, generator: OnlineGenerator, state: MotionState, dt: float,
                         notices: List[Notice]) -> Tuple[MotionStep, Optional[np.ndarray]]:
        """Return the brake, or the checked motion's next step where braking would collide."""
        brake = generator.brake_step(state, dt)
        contact = self.guard.step_contact(generator, state, brake.state, dt)
        if contact is None:
            return brake, None
        notices.append(Notice('warn', 'collision:finish', 'braking here would bring '
                              f'{contact.text()}: finishing the checked motion'))
        return generator.step(state, self.checked_goal, dt), self.checked_goal
