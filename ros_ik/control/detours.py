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
Two-leg motions for solve mode when every straight motion to an IK solution is blocked.

A detour moves one group of joints first. Its via configuration ``v`` takes the goal's
values on the group and keeps the start's on the other joints: the first leg
(start -> ``v``) moves only the group, the second (``v`` at rest -> goal) only the others.
The groups are the first ``k`` joints (the base side: the arm swings, then folds) and the
last ``k`` (the tool side: it folds, then swings), ``k = 1 .. n - 1``: ``2 (n - 1)``
detours per goal, the nearest goal's first. An arm lying low whose straight motions sweep
a link through the floor can often lift or fold first. Both legs are checked as any
solve-mode motion is (the generator's path, sampled so that no link point moves more than
``collision_check_resolution`` between samples). This is no path planner: a target whose
detours are all blocked is refused.
"""

import time
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np
from ros_ik.collision.contact import Contact

# A via closer than this (rad or m, every joint) to the start or the goal is no detour.
SAME_CONFIGURATION = 1e-3

FirstLeg = Callable[[np.ndarray], Optional[Contact]]  # via -> contact from the current state
SecondLeg = Callable[[np.ndarray, np.ndarray], Optional[Contact]]  # (via, goal) from rest


def joint_group_vias(start: np.ndarray, goal: np.ndarray) -> List[np.ndarray]:
    """
    Return the via configurations of the detours from ``start`` to ``goal`` (both (n,)).

    Base side first, ``k = 1 .. n - 1``: ``[goal[:k], start[k:]]``, then the tool side:
    ``[start[:n-k], goal[n-k:]]``; vias equal to ``start`` or ``goal`` (the joints of a
    group already there) are left out.
    """
    n = len(start)
    vias = [np.concatenate([goal[:k], start[k:]]) for k in range(1, n)]
    vias += [np.concatenate([start[:n - k], goal[n - k:]]) for k in range(1, n)]
    return [via for via in vias
            if np.abs(via - start).max() > SAME_CONFIGURATION
            and np.abs(via - goal).max() > SAME_CONFIGURATION]


class DetourSearch:
    """The detours from one start to the nearest goals, checked a few per control cycle."""

    def __init__(self, start: np.ndarray, goals: Sequence[np.ndarray]) -> None:
        """Queue every goal's detours, ``goals`` nearest first."""
        self._candidates: List[Tuple[np.ndarray, np.ndarray]] = [
            (goal, via) for goal in goals for via in joint_group_vias(start, goal)]
        self.tried = 0
        self.blocked: Optional[Contact] = None  # the last leg found blocked

    @property
    def total(self) -> int:
        """Return the number of detours queued."""
        return len(self._candidates)

    @property
    def exhausted(self) -> bool:
        """Return whether every detour has been checked."""
        return self.tried >= len(self._candidates)

    def search(self, first_leg: FirstLeg, second_leg: SecondLeg,
               deadline: float) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """
        Check detours until one is free, none is left or ``deadline`` (perf_counter s).

        Returns ``(via, goal)`` of the first free detour (None: none found yet). At least
        one detour is checked per call, whatever the deadline.
        """
        while not self.exhausted:
            goal, via = self._candidates[self.tried]
            self.tried += 1
            contact = first_leg(via)
            if contact is None:
                contact = second_leg(via, goal)
            if contact is None:
                return via, goal
            self.blocked = contact
            if time.perf_counter() > deadline:
                break
        return None
