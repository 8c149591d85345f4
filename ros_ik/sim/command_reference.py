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
The reference a simulated arm's drives follow between streamed commands (no ROS).

Two kinds of command, as drivers take them:

- **with velocities** (a stamped JointState with positions and velocities): the command
  moves on with its velocity, ``q_ref(t) = q_cmd + v_cmd min(t - t_cmd, MAX_EXTRAPOLATION)``,
  ``v_ref = v_cmd`` until the extrapolation ends, then 0;
- **positions only** (Float64MultiArray, a JointState without velocities): they carry no
  time, and arrive with the delay of their delivery (a millisecond on a quiet machine, tens
  on a loaded one; commands queued through a stall of either process arrive together). The
  driver dates each from its positions: the stream's line so far,
  ``L(t) = q_k + v_s min(t - t_k, MAX_EXTRAPOLATION)``, explains a command ``q`` that lies
  ``delta = (L(t_a) - q) . v_s / |v_s|^2`` s behind it at its arrival ``t_a`` as one
  delivered that late: its time is ``t_a - delta`` (``delta`` clipped to
  ``[0, MAX_LATENESS]`` and shrunk by ``exp(-(t_a - delta - t_k) / LATENESS_DECAY)``, no
  earlier than the newest command's time; at rest, or ahead of the line, its arrival). Over
  a steady stream this is about the lower envelope of the arrivals,
  ``t_k = min(t_a, t_(k-1) + (s_k - s_(k-1)))``: the times the commands were sent at, less
  the shortest delivery delay. (Undecayed, a speed estimated too high dated the next
  commands too early, which kept the estimate high: the dating drifted away from the
  arrivals up to ``MAX_LATENESS``.) The stream's velocity is estimated from these times over at
  least ``VELOCITY_WINDOW`` s, ``v_s = (q_k - q_j) / (t_k - t_j)`` (0 while the commands of
  the last ``MAX_EXTRAPOLATION`` s span less: a stream's start), the newest command moves on
  with it along ``L``, and the reference converges onto that line with the time constant
  ``SMOOTHING`` from where it stood when the command arrived, ``q_a``:
  ``q_ref(t) = L(t) - e_0 exp(-(t - t_a) / SMOOTHING)``, ``e_0 = L(t_a) - q_a``,
  ``v_ref = dL/dt + (e_0 / SMOOTHING) exp(-(t - t_a) / SMOOTHING)``. The reference stays
  continuous in position whatever the arrival times; a command delivered late (alone, or
  in a burst after a stall) lies on the line and changes neither its speed nor its place
  (dated by its arrival, it pulled the line back by the speed times the delay, and the next
  one forward: velocity swings of the delay over ``SMOOTHING`` that saturated the drives);
  a gap in the stream is carried through at the stream's speed (for at most
  ``MAX_EXTRAPOLATION`` s), as a UR's servoj with its lookahead time smooths a position
  stream. (Holding each position as a step with zero velocity, the drives' velocity
  feed-forward swung between zero and more than the stream's speed every period and
  saturated them whenever the arm moved.)

Positions stay within the bounds the caller gives (a joint past a limit moves only back in).
"""

from typing import List, Sequence, Tuple

import numpy as np

# Commands move on with their velocity for at most this long (s) when none follows.
MAX_EXTRAPOLATION = 0.1
# Position-only commands: the shortest span of arrivals their velocity is estimated over (s).
VELOCITY_WINDOW = 0.02
# Position-only commands: time constant of the convergence onto the newest one's line (s).
SMOOTHING = 0.02
# Position-only commands: the longest delivery delay a command behind the line is dated by (s).
MAX_LATENESS = 0.05
# Position-only commands: time constant of the lateness' decay (s): no dating drifts away.
LATENESS_DECAY = 0.1
# Position-only commands: below this stream speed (norm, rad/s or m/s) commands are not dated.
RESTING_SPEED = 1e-3


def spanning(entries: Sequence[Tuple[float, np.ndarray]], time: float,
             span: float) -> List[Tuple[float, np.ndarray]]:
    """
    Return the ``(time, positions)`` entries before ``time`` from the newest one ``span`` s old.

    That is, the entries at or after the newest with ``t <= time - span`` (all of them
    when none is that old), oldest first as given: the shortest tail spanning ``span``.
    """
    before = [entry for entry in entries if entry[0] < time]
    old = [index for index, entry in enumerate(before) if entry[0] <= time - span]
    return before[old[-1] if old else 0:]


class CommandReference:
    """The last command and the reference it gives at any time (s, node clock)."""

    def __init__(self, q: np.ndarray, time: float) -> None:
        """Hold ``q`` (rad or m per joint) from ``time`` (s)."""
        self.target = np.array(q, dtype=float)
        self.velocity = np.zeros_like(self.target)
        self.time = time  # s: the newest command's time (position-only: as dated)
        self._arrived = time  # s: its arrival, from which the convergence runs
        # Position-only: the offset e_0 of the reference from the newest command on arrival.
        self._offset = np.zeros_like(self.target)
        self._arrivals: List[Tuple[float, np.ndarray]] = []  # the last position-only ones

    def hold(self, q: np.ndarray, time: float) -> None:
        """Stop at ``q`` from ``time`` (a fault: the arm stays where it is)."""
        self.take(q, np.zeros_like(self.target), time)

    def take(self, q: np.ndarray, velocity: np.ndarray, time: float) -> None:
        """Take a command with velocities (rad/s or m/s) for ``time``: extrapolated."""
        self.target, self.velocity, self.time = (np.array(q, dtype=float),
                                                 np.array(velocity, dtype=float), time)
        self._arrived = time
        self._offset = np.zeros_like(self.target)
        self._arrivals = []

    def dated(self, q: np.ndarray, arrival: float) -> float:
        """
        Return the time (s) of the position-only command ``q`` arriving at ``arrival``.

        ``arrival - delta``, ``delta = clip((L(arrival) - q) . v_s / |v_s|^2, 0,
        MAX_LATENESS)``, no earlier than the newest command's time (the module docstring);
        ``arrival`` for a stream's first command or one at rest.
        """
        speed_squared = float(self.velocity @ self.velocity)
        if not self._arrivals or speed_squared < RESTING_SPEED ** 2:
            return arrival
        behind = float((self._line(arrival) - np.asarray(q, dtype=float)) @ self.velocity)
        behind /= speed_squared  # s
        lateness = min(max(behind, 0.0), MAX_LATENESS)
        lateness *= np.exp(-max(arrival - lateness - self.time, 0.0) / LATENESS_DECAY)
        return max(arrival - lateness, self.time)

    def take_positions(self, q: np.ndarray, arrival: float,
                       bounds: Tuple[np.ndarray, np.ndarray]) -> None:
        """Take a position-only command arriving at ``arrival`` (s): date it, converge onto it."""
        reference = self.at(arrival, bounds)[0]
        q = np.array(q, dtype=float)
        time = self.dated(q, arrival)
        recent = spanning([entry for entry in self._arrivals
                           if entry[0] >= time - MAX_EXTRAPOLATION], time, VELOCITY_WINDOW)
        if recent and recent[0][0] <= time - VELOCITY_WINDOW:  # as spanning() compares
            self.velocity = (q - recent[0][1]) / (time - recent[0][0])
        else:  # a stream's first 20 ms: no speed known
            self.velocity = np.zeros_like(q)
        self._arrivals = recent + [(time, q)]
        self.target, self.time, self._arrived = q, time, arrival
        self._offset = self._line(arrival) - reference

    def _line(self, time: float) -> np.ndarray:
        """Return ``L(time)``: the newest command moved on with its velocity (capped)."""
        return self.target + self.velocity * min(max(time - self.time, 0.0), MAX_EXTRAPOLATION)

    def at(self, time: float, bounds: Tuple[np.ndarray, np.ndarray]
           ) -> Tuple[np.ndarray, np.ndarray]:
        """Return ``(q_ref, v_ref)`` at ``time`` (s); ``q_ref`` held inside ``bounds``."""
        moving = time - self.time < MAX_EXTRAPOLATION
        reference = self._line(time)
        velocity = self.velocity if moving else np.zeros_like(self.velocity)
        if self._arrivals:
            decay = np.exp(-max(time - self._arrived, 0.0) / SMOOTHING)
            reference = reference - self._offset * decay
            velocity = velocity + self._offset * (decay / SMOOTHING)
        bounded = np.clip(reference, *bounds)
        return bounded, np.where(bounded == reference, velocity, 0.0)
