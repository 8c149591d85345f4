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
The simulation steps due at a wall-clock time, and the time they reach.

A loop that steps a simulation by fixed ``dt`` s in wall-clock time runs at irregular
instants on a loaded machine. At wall time ``t`` (s, any monotonic clock) the simulation
stands at ``t0 + S`` (``S``: simulated time so far); ``b = t - t0 - S`` is due, of which
``k = floor(b / dt)`` whole steps are taken now and the rest ``r = b - k dt < dt`` waits
for the next loop. The steps end ``r`` before ``t``: a reference sampled for them must be
sampled at ``t - r``, or the curve between two loops spans another time than the motion
it drives (sampled at ``t``, a loop of one step after one of 1.9 ms drives 1.9 ms of the
reference's motion through 1 ms of simulation, nearly twice its speed).

At most ``max_catch_up`` s are stepped at once: a longer stall (``b > max_catch_up``) is
time the simulation skips (``t0`` moves on by the skipped part), reported as such.

The reference's clock (ROS time, in which commands are stamped) and the wall clock are two
readings; a process preempted between them (a CPU hog beside it) would sample the
reference a preemption away from the steps' time. :func:`paired_reading` reads them
within a tolerance of each other.
"""

from dataclasses import dataclass
from typing import Callable, Tuple

PAIRING_TOLERANCE = 1e-4  # s: the wall clock's advance across one paired reading, at most
PAIRING_TRIES = 5


@dataclass(frozen=True)
class StepsDue:
    """The steps one loop takes: how many, how long before now they end, a skip before."""

    steps: int
    lag: float  # s: the steps end this long before the loop's wall time (0 <= lag < dt)
    skipped: bool  # a stall longer than max_catch_up was skipped before these steps


class WallClockSteps:
    """Whole timesteps due in wall-clock time; a stall over ``max_catch_up`` s skipped."""

    def __init__(self, timestep: float, max_catch_up: float, started: float) -> None:
        """Start at wall time ``started`` (s) with ``timestep`` s steps, nothing simulated."""
        self.timestep = timestep
        self.max_catch_up = max_catch_up
        self.started = started
        self.simulated = 0.0  # s of wall-clock time covered by the steps so far

    def due(self, wall: float) -> StepsDue:
        """Return the steps due at wall time ``wall`` (s) and count them as simulated."""
        behind = wall - self.started - self.simulated
        steps = min(int(behind / self.timestep), int(self.max_catch_up / self.timestep))
        skipped = behind > self.max_catch_up
        if skipped:
            self.started += behind - steps * self.timestep
            behind = steps * self.timestep
        self.simulated += steps * self.timestep
        return StepsDue(steps, max(behind - steps * self.timestep, 0.0), skipped)


def paired_reading(read_other: Callable[[], float], read_wall: Callable[[], float],
                   tolerance: float = PAIRING_TOLERANCE, tries: int = PAIRING_TRIES
                   ) -> Tuple[float, float]:
    """
    Return ``(other, wall)``: another clock's reading and the wall clock's at that instant.

    The wall clock is read before and after ``read_other``; a pair is taken once the two
    wall readings are within ``tolerance`` s (the process was not preempted between them),
    else after ``tries`` the last one. ``wall`` is the mean of the two wall readings.
    """
    for _ in range(tries):
        before = read_wall()
        other = read_other()
        after = read_wall()
        if after - before <= tolerance:
            break
    return other, 0.5 * (before + after)
