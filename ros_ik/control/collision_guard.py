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
The controller's collision rules: free goals, free motions, a free way to stop, the damper.

Every command the controller sends must keep a collision-free way to rest. The guard
checks, with :class:`ros_ik.collision.collision_checker.CollisionChecker` (no point of the
robot closer than ``collision_padding`` to another body or scene object, anywhere along
the motion, sampled so that no point moves more than ``collision_check_resolution``
between two samples):

* a solve-mode goal: the generator's whole motion from the commanded state to it;
* every cycle's step: the move to the next command followed by the hardest stop from it
  (what a brake would do). A step that fails is replaced by the brake from the current
  command, whose own stop was checked the cycle before: by induction the stream is never
  without a free stop;
* servo and jog velocities go through the velocity damper
  (:mod:`ros_ik.collision.velocity_damper`): they slow down within
  ``collision_slowdown_distance`` and stop at ``collision_stop_distance``.

A pair already in collision (a bad start, a new scene object) may only move apart.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.contact import Contact
from ros_ik.collision.velocity_damper import constrained_velocity, damped_velocity, DamperRule
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.joint_limits import speed_scale
from ros_ik.trajectory.online_generator import MotionState, OnlineGenerator

MAX_PATH_SAMPLES = 20000
# Velocity-damper metric: H = J^T J + lam^2 I with at least this lam [m/rad].
DAMPER_METRIC_DAMPING = 0.01
STOP_TOLERANCE = 0.002  # m: a pair this close to the stop distance is stopping the arm
BLOCKED_FRACTION = 0.2  # ... when the damper leaves less than this of the joint velocity
APPROACH_RATE = 2.0  # 1/s: the damper's approach speed per metre above the stop distance


def _slowdown_distance(settings: Settings) -> float:
    """Return the distance (m) within which the damper slows a pair's approach."""
    return max(settings.collision_slowdown_distance, settings.collision_stop_distance)


@dataclass(frozen=True)
class PreparedDamper:
    """Every pair within the slow-down distance of an arm at rest, and its damper row."""

    key: Tuple[bytes, float, int]  # the joints' bytes, the slow-down distance (m), the walk
    contacts: Tuple[Contact, ...]  # coal's, each closer than the slow-down distance
    rows: np.ndarray  # (k, n): their clearance rates (CollisionChecker.clearance_rates)
    distances: np.ndarray  # (k,): their clearances (m)


NOTHING_PREPARED = PreparedDamper((b'', 0.0, -1), (), np.zeros((0, 0)), np.zeros(0))


def _prepared_key(checker: CollisionChecker, q: np.ndarray,
                  within: float) -> Tuple[bytes, float, int]:
    """Return :attr:`PreparedDamper.key` of joints ``q`` and slow-down distance ``within``."""
    return q.tobytes(), within, checker.walk_count


class CollisionGuard:
    """The collision checks of one controller (see the module docstring)."""

    def __init__(self, checker: CollisionChecker) -> None:
        """Keep the checker (its padding and resolution are the settings')."""
        self.checker = checker
        self._prepared = NOTHING_PREPARED  # what prepare_damper measured last

    def _path(self, generator: OnlineGenerator, state: MotionState,
              target: np.ndarray) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """Return samples and joint variations of the motion from ``state`` to ``target``."""
        checker = self.checker
        return generator.samples(state, target, checker.model.motion_weights,
                                 checker.spacing, MAX_PATH_SAMPLES)

    def goal_contact(self, generator: OnlineGenerator, state: MotionState,
                     q_goal: np.ndarray) -> Optional[Contact]:
        """Return where the motion from ``state`` to rest at ``q_goal`` collides, or None."""
        path = self._path(generator, state, q_goal)
        if path is None:  # a motion too long to sample counts as blocked at its start
            return self.checker.nearest(state.position)
        return self.checker.first_contact(*path)

    def step_contact(self, generator: OnlineGenerator, state: MotionState,
                     next_state: MotionState, dt: float) -> Optional[Contact]:
        """
        Return where the step to ``next_state`` and the hardest stop after it collide.

        Each joint moves at most ``|v_j| dt + a_max_j dt^2 / 2`` during the step
        (:meth:`OnlineGenerator.step_and_stop_samples`).
        """
        checker = self.checker
        path = generator.step_and_stop_samples(state, next_state, dt,
                                               checker.model.motion_weights, checker.spacing,
                                               MAX_PATH_SAMPLES)
        if path is None:
            return checker.nearest(state.position)
        return checker.first_contact(*path)

    def damped_velocity(self, q: np.ndarray, qdot: np.ndarray, J_task: np.ndarray,
                        damping: float, velocity_limits: np.ndarray,
                        settings: Settings) -> Tuple[np.ndarray, Optional[Contact]]:
        """
        Return ``qdot`` (n,) with the velocity damper's rows imposed, and what stops it.

        ``J_task`` (m, n): the weighted task Jacobian the velocity came from; the damper
        keeps the velocity closest to ``qdot`` in ``H = J^T J + lam^2 I``; approach speed
        ``xi = min(max_linear_speed, APPROACH_RATE (d_i - d_s))``, so the clearance closes
        no faster than ``APPROACH_RATE (d - d_s)``: slow enough for the jerk-limited
        commands to follow without overshoot; the result within the velocity limits. The contact
        returned is the closest pair when it is at the stop distance and the damper took
        most of the velocity away (None: nothing stops the arm).

        At joints :meth:`prepare_damper` measured (while the checker walked nowhere else),
        one compiled solve with every prepared pair's row
        (:func:`ros_ik.collision.velocity_damper.constrained_velocity`): the same velocity
        as the lazy :func:`ros_ik.collision.velocity_damper.damped_velocity` (whose rows'
        solution meets every pair's row, so solves the problem with all of them; H is
        positive definite, the solution unique) without its rounds of bounds and rows.
        The pairs closer than the stop tolerance, the only ones ``stopping`` looks at, are
        among the contacts of both.
        """
        within = _slowdown_distance(settings)
        rule = DamperRule(settings.collision_stop_distance, within,
                          min(settings.max_linear_speed,
                              APPROACH_RATE * (within - settings.collision_stop_distance)),
                          self.checker.padding)
        lam = max(damping, DAMPER_METRIC_DAMPING)
        H = J_task.T @ J_task
        H.flat[::len(q) + 1] += lam * lam
        prepared = self._prepared
        if prepared.key == _prepared_key(self.checker, q, within):
            damped, contacts = constrained_velocity(
                np.ascontiguousarray(qdot, dtype=float), H, prepared.rows,
                rule.bound(prepared.distances)), prepared.contacts
        else:
            damped, contacts = damped_velocity(
                self.checker, q, qdot, H, rule,
                max(settings.collision_stop_distance + STOP_TOLERANCE, self.checker.padding))
        closest = min(contacts, key=lambda contact: contact.distance, default=None)
        stopping = (closest is not None
                    and closest.distance <= settings.collision_stop_distance + STOP_TOLERANCE
                    and np.linalg.norm(damped) < BLOCKED_FRACTION * np.linalg.norm(qdot))
        return damped * speed_scale(damped, velocity_limits), closest if stopping else None

    def may_slow(self, q: np.ndarray, settings: Settings) -> bool:
        """
        Return whether the velocity damper may act at ``q``: a pair within its slow-down distance.

        From the checker's lower bounds of the clearances (proxies and coal's last measures,
        :meth:`CollisionChecker.clearance_bounds`): False proves every pair farther.
        """
        within = _slowdown_distance(settings)
        return bool(np.min(self.checker.clearance_bounds(q, within), initial=np.inf) < within)

    def prepare_damper(self, q: np.ndarray, settings: Settings) -> None:
        """
        Measure every pair within the slow-down distance at ``q``: an arm at rest.

        Coal's clearance and witnesses, and the clearance-rate row each pair adds to the
        damper. The damper's first call at ``q`` (the first cycle toward a new target,
        whose velocity may bring any of them into play) then solves with them at once
        (:meth:`damped_velocity`), while the checker has walked nowhere else. Measured
        once; later calls at the same ``q`` cost a comparison.
        """
        checker, within = self.checker, _slowdown_distance(settings)
        if self._prepared.key == _prepared_key(checker, q, within):
            return
        contacts = checker.contacts(q, within)
        rows = checker.clearance_rates(q, contacts)
        self._prepared = PreparedDamper(
            _prepared_key(checker, q, within), contacts, rows,
            np.array([contact.distance for contact in contacts], dtype=float))

    def nearest(self, q: np.ndarray) -> Optional[Contact]:
        """Return the closest checked pair at ``q`` (None without pairs)."""
        return self.checker.nearest(q)

    def touches(self, contact: Contact) -> bool:
        """Return whether ``contact`` is closer than ``collision_padding`` (in collision)."""
        return contact.distance < self.checker.padding

    def in_collision_at(self, q: np.ndarray) -> Optional[Contact]:
        """
        Return the closest pair at joint positions ``q`` if it is in collision there.

        In collision: closer than ``collision_padding`` (m); None: not in collision. A
        refusal names the pair at the nearest goal before the contact of the last motion
        checked: a target inside an obstacle (or under the floor) is refused naming the
        obstacle, whichever pair the motions toward its solutions would meet first.
        """
        contact = self.nearest(q)
        return contact if contact is not None and self.touches(contact) else None
