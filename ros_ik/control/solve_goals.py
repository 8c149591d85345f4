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
Solve mode's goal: an IK solution of the target whose whole motion is collision-free.

One IK solve per new target (:mod:`ros_ik.kinematics.ik_solver`), seeded at the commanded
joints, retried on the following cycles while it fails (``SOLVE_ATTEMPTS`` solves and
``SEARCH_RESTARTS`` restarts in all, so a loaded machine searches as much before it gives
up; none when the target is provably out of reach); continuous joints take the short way. With
collision checks the IK search gets ``IK_BUDGET_SHARE`` of ``solve_time_budget`` and the
motions to its solutions, nearest first, are checked in the rest (at most
``MAX_CHECKED_SOLUTIONS`` distinct ones): the first free one is the goal, followed as a
checked motion (:class:`MotionStepper`). When every straight motion is blocked, detours
to the ``DETOUR_GOALS`` nearest blocked solutions are searched with the arm at rest
(:mod:`ros_ik.control.detours`): via first, then the solution. A goal whose motion must be
checked again (after a brake, a restart, a new ``velocity_scale`` or scene) is followed
again where still free, else the target is solved anew. A chain that cannot move the tip
in every task direction takes a target off its reachable poses to the closest pose found
(WARN, not an error).
"""

from dataclasses import replace
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ros_ik.collision.contact import Contact
from ros_ik.control.arm import ControlledArm
from ros_ik.control.cycle_types import Goal, GoalChoice, HOLD, Notice
from ros_ik.control.detours import DetourSearch
from ros_ik.control.differential_options import damping_schedule
from ros_ik.control.inputs import Target
from ros_ik.control.motion_step import MotionStepper
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.joint_limits import wrapped_difference
from ros_ik.trajectory.online_generator import MotionState

# A target counts as unreachable (or blocked) after SOLVE_ATTEMPTS IK solves (one per
# cycle) that searched SEARCH_RESTARTS restarts in all, or after MAX_SOLVE_ATTEMPTS solves:
# on a loaded machine a solve's time budget holds fewer restarts, and the refusal waits for
# the same search (a quiet machine runs 70-350 restarts per 2.5 ms solve on the bundled arms).
SOLVE_ATTEMPTS = 20
SEARCH_RESTARTS = 1000
MAX_SOLVE_ATTEMPTS = 10 * SOLVE_ATTEMPTS
# Solve mode checks the motions to at most this many distinct IK solutions per attempt;
# solutions closer than DUPLICATE_SOLUTION (rad or m, every joint) count as one.
MAX_CHECKED_SOLUTIONS = 6
DUPLICATE_SOLUTION = 1e-3
# Solutions looked at per attempt, those in collision themselves (not checked as motions)
# included.
MAX_TRIED_SOLUTIONS = 4 * MAX_CHECKED_SOLUTIONS
# With collision checks the IK search gets this share of solve_time_budget; the motion
# checks of its solutions take the rest (at least the nearest solution is checked).
IK_BUDGET_SHARE = 0.5
# When every straight motion is blocked, detours to this many of the nearest blocked
# solutions are tried (ros_ik.control.detours), within solve_time_budget per cycle.
DETOUR_GOALS = 3
LOCAL_ATTEMPTS = 2  # solves of a target restarting near the seed (given a local_spread)


def same_solution(a: np.ndarray, b: np.ndarray) -> bool:
    """Return whether two joint vectors count as one solution (``DUPLICATE_SOLUTION``)."""
    return float(np.abs(a - b).max(initial=0.0)) < DUPLICATE_SOLUTION


def short_way(q_goal: np.ndarray, q_from: np.ndarray, is_continuous: np.ndarray) -> np.ndarray:
    """Return ``q_goal`` (n,) with continuous joints within pi of ``q_from`` (same angle)."""
    return q_from + wrapped_difference(q_goal - q_from, is_continuous)


class SolveGoals:
    """The solve-mode goal of the current target (see the module docstring)."""

    def __init__(self, arm: ControlledArm, stepper: MotionStepper,
                 local_spread: Optional[float] = None) -> None:
        """
        Keep the arm and the motion step (generator, collision guard, checked goal).

        ``local_spread`` (rad or m; None: none): the first ``LOCAL_ATTEMPTS`` solves of a
        target restart within that distance of the seed (``IkOptions.restart_spread``), so
        a solution near the commanded joints is found before any far one.
        """
        self.arm, self.stepper = arm, stepper
        self._local_spread = local_spread
        self._sequence = -1  # the target solved for
        self._attempts = 0
        self._restarts = 0  # restarts the solves of this target searched
        self._out_of_reach = False  # provably: no further solve
        self._goal_q: Optional[np.ndarray] = None
        self._final_goal: Optional[np.ndarray] = None  # the goal after a detour's via
        # (start, solution, contact): solutions whose straight motion from start collides
        self._blocked_goals: List[Tuple[np.ndarray, np.ndarray, Contact]] = []
        self._detour: Optional[DetourSearch] = None
        self._note = ''  # why the goal is not an exact solution ('' when it is)
        self._reason = ''  # why the last solve failed
        self._refusal: Optional[Contact] = None  # the collision a refusal names
        self._values: Dict[str, object] = {}

    def choose(self, target: Target, mask: Tuple[bool, ...], state: MotionState,
               settings: Settings, notices: List[Notice],
               values: Dict[str, object]) -> GoalChoice:
        """Return the goal from the commanded ``state``; add the solve's values."""
        if target.sequence != self._sequence:
            self._sequence = target.sequence
            self._attempts = self._restarts = 0
            self._out_of_reach = False
            self._goal_q = self._final_goal = self._detour = None
            self._blocked_goals = []
            self._note = ''
        if self._final_goal is not None and self._at_rest_at(state, self._goal_q):
            self._goal_q, self._final_goal = self._final_goal, None  # the detour's second leg
        if (self._goal_q is not None and self.stepper.guard is not None
                and self._goal_q is not self.stepper.checked_goal):
            self._recheck_goal(state, settings, notices)
        if self._goal_q is None and not self._searched:
            self._solve(target, mask, state, settings, notices)
        elif self._goal_q is None and self._blocked_goals and state.is_at_rest():
            self._search_detour(state, settings)
        values.update(self._values, solve_attempts=self._attempts)
        if self._goal_q is None:
            return self._no_goal()
        if self._note:
            return GoalChoice('WARN', self._note, Goal(self._goal_q))
        if self._final_goal is not None:
            return GoalChoice('OK', 'moving to the IK solution by a detour', Goal(self._goal_q))
        return GoalChoice('OK', 'moving to the IK solution', Goal(self._goal_q))

    def _no_goal(self) -> GoalChoice:
        """Return the status while no goal is found: detours searched, a retry, a refusal."""
        exhausted = self._searched
        if exhausted and self._blocked_goals and (self._detour is None
                                                  or not self._detour.exhausted):
            checked = (f' ({self._detour.tried} of {self._detour.total} checked)'
                       if self._detour is not None else '')
            return GoalChoice('WARN', 'every straight motion to an IK solution is blocked; '
                              f'trying detours{checked}', HOLD)
        if exhausted and self._refusal is not None:
            message = (f'target refused: the motion would bring {self._refusal.text()}; '
                       'holding until a new target')
        elif exhausted:
            message = (f'IK failed {self._attempts} times ({self._reason}); holding until a '
                       'new target')
        else:
            message = f'IK failed ({self._reason}); braking, retrying next cycle'
        return GoalChoice('ERROR', message, HOLD)

    def forget(self) -> None:
        """Solve the next target anew, even one solved before (a servo recovering)."""
        self._sequence = -1

    @property
    def goal(self) -> Optional[np.ndarray]:
        """Return the solution the arm moves to (None: none yet, or a detour's via first)."""
        return self._goal_q if self._final_goal is None else None

    def reached(self, state: MotionState) -> bool:
        """Return whether the commanded motion rests at the current target's solution."""
        return self._final_goal is None and self._at_rest_at(state, self._goal_q)

    def gave_up(self) -> bool:
        """Return whether the current target is given up: no goal, no retry, no detour left."""
        detours_left = bool(self._blocked_goals) and (self._detour is None
                                                      or not self._detour.exhausted)
        return self._goal_q is None and self._searched and not detours_left

    @property
    def _searched(self) -> bool:
        """Return whether the target was searched enough to give it up (``SOLVE_ATTEMPTS``)."""
        return self._out_of_reach or self._attempts >= MAX_SOLVE_ATTEMPTS or (
            self._attempts >= SOLVE_ATTEMPTS and self._restarts >= SEARCH_RESTARTS)

    @staticmethod
    def _at_rest_at(state: MotionState, q: Optional[np.ndarray]) -> bool:
        """Return whether the commanded motion is at rest at ``q``."""
        return q is not None and state.is_at_rest() and same_solution(state.position, q)

    def _search_detour(self, state: MotionState, settings: Settings) -> None:
        """
        Check detours to the nearest blocked solutions (the arm at rest), within the budget.

        A free one becomes the goal: its via first (a checked motion), then the solution.
        """
        if self._detour is None:
            start = state.position
            goals: List[np.ndarray] = []
            for _, goal, _ in sorted(self._blocked_goals,
                                     key=lambda entry: float(np.abs(entry[1] - start).sum())):
                if len(goals) < DETOUR_GOALS and not any(same_solution(goal, other)
                                                         for other in goals):
                    goals.append(goal)
            self._detour = DetourSearch(start, goals)
        generator, guard = self.stepper.generator(settings), self.stepper.guard
        found = self._detour.search(
            lambda via: guard.goal_contact(generator, state, via),
            lambda via, goal: guard.goal_contact(generator, MotionState.at_rest(via), goal),
            time.perf_counter() + settings.solve_time_budget)
        if found is not None:
            self._goal_q, self._final_goal = found
            self.stepper.checked_goal = self._goal_q
        elif self._detour.blocked is not None and self._refusal is None:
            self._refusal = self._detour.blocked

    def _solve(self, target: Target, mask: Tuple[bool, ...], state: MotionState,
               settings: Settings, notices: List[Notice]) -> None:
        """Solve the target once, seeded at the commanded joints (a new seed per attempt)."""
        arm = self.arm
        deadline = time.perf_counter() + settings.solve_time_budget
        ik_share = IK_BUDGET_SHARE if self.stepper.guard is not None else 1.0
        options = replace(arm.solver.options, mask=mask,
                          orientation_weight=settings.orientation_weight,
                          time_budget=ik_share * settings.solve_time_budget,
                          solution_choice='closest', damping=damping_schedule(settings),
                          random_seed=self._attempts,
                          restart_spread=(self._local_spread if self._attempts < LOCAL_ATTEMPTS
                                          else None))
        result = arm.solver.solve(target.T_base_target, state.position, options)
        self._attempts += 1
        self._restarts += result.restarts + 1
        self._reason = result.reason
        self._values = {'iterations': result.iterations, 'restarts': result.restarts,
                        'solve_time_ms': result.time * 1e3, 'damping': result.damping}
        self._refusal = None
        if result.success:
            self._goal_q = self._free_goal(result.solutions, state, settings, notices, deadline)
        elif arm.solver.out_of_reach_reason(target.T_base_target, 0.0):
            self._out_of_reach = True
            notices.append(Notice('warn', 'target:reach', f'IK failed: {result.reason}'))
        elif not arm.reaches_every_task_direction:
            # Off the poses this chain reaches: the best pose of the whole time budget is
            # the closest one (least squares on the weighted task error).
            self._goal_q = self._free_goal((result.q,), state, settings, notices, deadline)
            self._note = (f'moving to the closest pose this chain reaches: '
                          f'{result.position_error:.3g} m and '
                          f'{result.orientation_error:.3g} rad from the target')
            notices.append(Notice('warn', 'target:closest', self._note))
        else:
            notices.append(Notice('warn', 'target:ik', f'IK failed: {result.reason} '
                                  f'(attempt {self._attempts})'))

    def _recheck_goal(self, state: MotionState, settings: Settings,
                      notices: List[Notice]) -> None:
        """
        Check the motion to the goal again from the commanded state (off its motion).

        After a brake (the arm lagged, joint states were stale), a restart, a new
        ``velocity_scale`` or a new scene the path to the goal is another one: free, it is
        followed again; blocked, the target is solved anew.
        """
        contact = self.stepper.guard.goal_contact(self.stepper.generator(settings), state,
                                                  self._goal_q)
        if contact is None:
            self.stepper.checked_goal = self._goal_q
            return
        notices.append(Notice('warn', 'target:collision', 'the motion to the IK solution '
                              f'would now bring {contact.text()}; solving again'))
        self._goal_q = self._final_goal = None
        self._refusal = contact

    def _free_goal(self, solutions: Sequence[np.ndarray], state: MotionState,
                   settings: Settings, notices: List[Notice],
                   deadline: float) -> Optional[np.ndarray]:
        """
        Return the nearest solution whose whole motion is collision-free (None: none is).

        Solutions are tried nearest first (continuous joints the short way), at most
        ``MAX_CHECKED_SOLUTIONS`` distinct motions and none after ``deadline``
        (perf_counter s) but the first; without collision checks the nearest wins. A
        solution in collision itself (:meth:`CollisionGuard.in_collision_at`: one
        configuration, far cheaper than a motion) is passed over before its motion is
        checked, and never kept for a detour: a redundant arm's nearest solutions can
        all put a link into another (the SO-101 folded onto its base) while farther ones
        are free. A refusal names the pair in collision at the nearest goal if there is
        one, else the first contact of the last motion checked.
        """
        seed, guard = state.position, self.stepper.guard
        goals = [short_way(q, seed, self.arm.chain.is_continuous) for q in solutions]
        if guard is None:
            return goals[0]
        tried: List[np.ndarray] = []
        checks = 0
        contact = None
        for goal in goals:
            if any(same_solution(goal, other) for other in tried):
                continue
            if (checks == MAX_CHECKED_SOLUTIONS or len(tried) == MAX_TRIED_SOLUTIONS
                    or (checks and time.perf_counter() > deadline)):
                break
            tried.append(goal)
            contact = self._known_blocked(state, goal) or guard.in_collision_at(goal)
            if contact is not None:
                continue
            checks += 1
            contact = guard.goal_contact(self.stepper.generator(settings), state, goal)
            if contact is None:
                self.stepper.checked_goal = goal
                return goal
            self._blocked_goals.append((seed.copy(), goal, contact))
        contact = self._refusal = guard.in_collision_at(tried[0]) or contact
        self._reason = f'the motion would bring {contact.text()}'
        notices.append(Notice('warn', 'target:collision', f'no collision-free IK solution: '
                              f'the motion would bring {contact.text()} (attempt '
                              f'{self._attempts})'))
        return None

    def _known_blocked(self, state: MotionState, goal: np.ndarray) -> Optional[Contact]:
        """Return the contact of ``goal``'s motion if checked before from this rest state."""
        if not state.is_at_rest():
            return None
        for start, blocked, contact in self._blocked_goals:
            if np.array_equal(start, state.position) and same_solution(blocked, goal):
                return contact
        return None
