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
The servo's way out when its step makes no progress: a joint-space motion to an IK solution.

A damped servo step ``qdot`` gives the tool the twist ``J qdot`` where ``W v`` was asked
(:meth:`ros_ik.kinematics.servo_step.ServoStep.realized_fraction`). It cannot make progress
when the asked twist lies in the Jacobian's near-null directions (a stretched elbow, aligned
wrist axes: the damped step has no component along the direction the arm must fold), when
joints held at a bound cannot give it (a local minimum of the error inside the limits), or
when the velocity damper holds the arm at an obstacle.

:class:`ProgressWatch` calls the servo stuck when the weighted error ``E = sqrt(|e_p|^2 +
(k |e_o|)^2)`` (m; ``k`` the orientation weight in m/rad) does not fall as the steps ask:

- by ``PROGRESS_FRACTION`` in ``PROGRESS_WINDOW`` s of command time in which each step
  realized less than ``REALIZED_MIN`` of its twist (it pushes the arm nowhere near the asked
  way: a singular configuration, a joint limit, an obstacle), or
- by ``STILL_TARGET_SHARE`` of ``integral c |W v| dt`` over ``STILL_TARGET_WINDOW`` s in
  which the target stood still (``c |W v|``: the asked twist's rate after the joints' speed
  limits; the steps realize their twist but the arm gets no closer: it chatters about a
  singular configuration).

A servo that tracks (a moving target it follows with a lag, a far target it approaches at
its speed caps, an arm slowed by ``velocity_scale``) realizes its twist and gets closer as
fast as asked, so it never counts as stuck.

:class:`ServoRecovery` then moves the arm as solve mode does
(:class:`ros_ik.control.solve_goals.SolveGoals`: the nearest IK solution of the target
whose whole motion is collision-free, seeded at the commanded joints, its first solves
restarting within ``RECOVERY_SPREAD`` of them so that the arm keeps its posture where it
can; detours where every straight motion is blocked; the same jerk-limited generator and
checks). It is an *escape* when the step's smallest singular value is under
``singular_value_threshold`` (a singular configuration), else a *fallback* (a joint limit,
the velocity damper, a local minimum). Servoing resumes once the commanded joints are
within ``RESUME_DISTANCE`` of the solution (each joint, rad or m). A new target that finds
the arm at a singular configuration is escaped from at once, without waiting to see the
step stall (``until_regular``): which way a stretched elbow or aligned wrist must fold is
the nearest solution's, and the straight tool line taken from there can lead onto the
other branch, where the arm ends at a joint limit or at a solution a whole turn away; that
escape hands back to the servo as soon as ``sigma_min`` at the commanded joints is
``RESUME_SIGMA_FACTOR`` times the threshold (the caller checks): clear of the damped
region, so that the first servo steps are not damped back into it. A target
that moves on (each new message within ``FOLLOW_STEP`` of the last: :func:`moving_on`) is
solved anew for each message, so it is followed throughout and servoed again once the arm
is there; another target ends the recovery (the servo takes it). Where IK finds no
solution or every motion collides, the solve's refusal is the servo's (ERROR) until the
target moves or another comes.
"""

from typing import Dict, List, Optional, Tuple

import numpy as np

from ros_ik.control.cycle_types import GoalChoice, Notice
from ros_ik.control.inputs import Target
from ros_ik.control.parameters import Settings
from ros_ik.control.solve_goals import SolveGoals
from ros_ik.kinematics.servo_step import ServoStep
from ros_ik.kinematics.transforms import pose_error
from ros_ik.trajectory.online_generator import MotionState

PROGRESS_WINDOW = 0.25  # s of command time the step may realize too little of its twist
STILL_TARGET_WINDOW = 1.0  # s over which a still target's progress is compared
STILL_TARGET_SHARE = 0.25  # share of the asked progress a still target must see
PROGRESS_FRACTION = 0.05  # the weighted error must fall by this fraction per window
REALIZED_MIN = 0.25  # a step realizing at least this much of its twist is progressing
RESUME_DISTANCE = 0.02  # rad or m (every joint) from the solution: servo again
# An escape at a new target's start servos again at this multiple of the damping threshold.
RESUME_SIGMA_FACTOR = 2.0
# A new target within this of the last one (m, and rad) is the same target moving on (or
# sent again): the progress watch and a recovery go on for it.
FOLLOW_STEP = 0.05
# The recovery's first solves restart within this distance of the commanded joints (rad or
# m, each joint): the arm leaves the trap for a solution near it, in the posture it had.
RECOVERY_SPREAD = 0.5


class ProgressWatch:
    """Whether the servo is stuck short of its target (see the module docstring)."""

    def __init__(self) -> None:
        """Start with no reference error."""
        self.reset(0.0)

    def reset(self, time: float) -> None:
        """Forget the progress so far; count from command time ``time`` (s)."""
        self._realizing = (np.inf, time)  # (E, s) when the step last realized or progressed
        self._still = (np.inf, time, 0.0)  # (E, s, asked m) since the target last moved
        self._time = time

    def stuck(self, error: float, realized: float, asked_rate: float, time: float,
              target_moved: bool) -> bool:
        """
        Return whether the servo is stuck at command time ``time`` (s).

        ``error``: the weighted task error ``E`` (m); ``realized``: the step's realized
        fraction of its twist; ``asked_rate``: ``c |W v|`` (m/s); ``target_moved``: the
        target is not where it was last cycle.
        """
        if realized >= REALIZED_MIN or error <= (1.0 - PROGRESS_FRACTION) * self._realizing[0]:
            self._realizing = (error, time)
        start_error, since, asked = self._still
        asked += asked_rate * (time - self._time)
        self._time = time
        elapsed = time - since
        if target_moved or not np.isfinite(start_error):
            self._still = (error, time, 0.0)
        elif elapsed > STILL_TARGET_WINDOW and start_error - error >= STILL_TARGET_SHARE * asked:
            self._still = (error, time, 0.0)  # a window with progress: the next one
        else:
            self._still = (start_error, since, asked)
        return (time - self._realizing[1] > PROGRESS_WINDOW
                or time - self._still[1] > STILL_TARGET_WINDOW)


def moving_on(T_base_previous: Optional[np.ndarray], T_base_target: np.ndarray) -> bool:
    """
    Return whether a new target is the last one moving on (or sent again), not another.

    Within ``FOLLOW_STEP`` m and rad of the last cycle's ``T_base_previous`` (None: there
    was none): a dragged marker or a target republished at a fixed rate keeps the servo's
    progress watch and recovery; a jump starts them afresh.
    """
    if T_base_previous is None:
        return False
    e_p, e_o = pose_error(T_base_target, T_base_previous)
    return float(np.linalg.norm(e_p)) <= FOLLOW_STEP and float(
        np.linalg.norm(e_o)) <= FOLLOW_STEP


def stuck_reason(step: ServoStep, settings: Settings, blocked: bool) -> Tuple[str, str]:
    """
    Return ``(kind, why)``: 'escape' or 'fallback' and what held the servo.

    ``blocked``: whether the velocity damper stopped the step at an obstacle.
    """
    if step.sigma_min < settings.singular_value_threshold:
        return 'escape', (f'a singular configuration (sigma_min {step.sigma_min:.3g} < '
                          f'{settings.singular_value_threshold})')
    if blocked:
        return 'fallback', 'an obstacle the velocity damper stops at'
    if step.at_position_limit:
        return 'fallback', 'a joint limit'
    return 'fallback', 'a local minimum of the error'


class ServoRecovery:
    """A solve-mode motion that takes a stuck servo to the target (module docstring)."""

    def __init__(self, solve: SolveGoals) -> None:
        """Keep the solve-mode goal it moves by (its own: solve mode's state is not shared)."""
        self.solve = solve
        self.kind = ''  # 'escape' or 'fallback' while recovering, '' while servoing
        self.until_regular = False  # ends once out of the singular region (start())
        self._why = ''

    @property
    def active(self) -> bool:
        """Return whether the servo is recovering."""
        return bool(self.kind)

    def start(self, kind: str, why: str, step: ServoStep, notices: List[Notice],
              until_regular: bool = False) -> None:
        """
        Start recovering: ``kind`` from :func:`stuck_reason`, ``why`` the servo stopped.

        ``until_regular``: a new target found the arm at a singular configuration; the
        servo takes over again as soon as the commanded joints are clear of the singular
        region (the caller checks), not only at the solution.
        """
        self.kind, self._why, self.until_regular = kind, why, until_regular
        self.solve.forget()
        errors = f'{step.position_error:.3g} m and {step.orientation_error:.3g} rad'
        if until_regular:
            text = (f'servo starting {errors} from the target at {why}; {self._action} it by '
                    'a joint-space motion toward the nearest collision-free IK solution, '
                    'servoing again once clear of the singular region')
        else:
            text = (f'servo stuck {errors} from the target at {why}; {self._action} it by a '
                    'joint-space motion to the nearest collision-free IK solution, then '
                    'servoing again')
        notices.append(Notice('info', 'servo:' + kind, text))

    def stop(self) -> None:
        """Servo again (the caller resumes its progress watch)."""
        self.kind, self.until_regular = '', False

    def choose(self, target: Target, mask: Tuple[bool, ...], state: MotionState,
               settings: Settings, notices: List[Notice],
               values: Dict[str, object]) -> Optional[GoalChoice]:
        """Return the recovery's goal this cycle; None when the servo takes over again."""
        choice = self.solve.choose(target, mask, state, settings, notices, values)
        goal = self.solve.goal
        if goal is not None and float(
                np.abs(state.position - goal).max(initial=0.0)) <= RESUME_DISTANCE:
            self.stop()
            return None
        if choice.level == 'ERROR':  # the refusal first: what a user must act on
            return GoalChoice('ERROR', f'{choice.message} (the servo was stuck at '
                              f'{self._why})', choice.goal)
        return GoalChoice('WARN', f'servo {self._action} {self._why}: {choice.message}',
                          choice.goal)

    @property
    def _action(self) -> str:
        """Return what the recovery does to what held the servo: escaping or leaving it."""
        return 'escaping' if self.kind == 'escape' else 'leaving'
