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
  time, and arrive with the jitter of their delivery (a millisecond on a quiet machine,
  tens on a loaded one). The driver estimates the stream's velocity from their arrivals
  over at least ``VELOCITY_WINDOW`` s, ``v_s = (q_k - q_j) / (t_k - t_j)`` (0 while the
  arrivals of the last ``MAX_EXTRAPOLATION`` s span less: a stream's start, or commands
  queued through a stall arriving microseconds apart, whose quotient is no speed), moves the
  newest command on with it, ``L(t) = q_k + v_s min(t - t_k, MAX_EXTRAPOLATION)``, and
  converges onto that line with the time constant ``SMOOTHING`` from where its reference
  stood when the command arrived, ``q_a``:
  ``q_ref(t) = L(t) - e_0 exp(-(t - t_k) / SMOOTHING)``, ``e_0 = q_k - q_a``,
  ``v_ref = dL/dt + (e_0 / SMOOTHING) exp(-(t - t_k) / SMOOTHING)``. The reference stays
  continuous in position whatever the arrival times, its velocity steps only by the
  arrival jitter times the speed over ``SMOOTHING``, and a gap in the stream is carried
  through at the stream's speed (for at most ``MAX_EXTRAPOLATION`` s), as a UR's servoj
  with its lookahead time smooths a position stream. (Holding each position as a step
  with zero velocity, the drives' velocity feed-forward swung between zero and more than
  the stream's speed every period and saturated them whenever the arm moved.)

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
        self.time = time
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
        self._offset = np.zeros_like(self.target)
        self._arrivals = []

    def take_positions(self, q: np.ndarray, arrival: float,
                       bounds: Tuple[np.ndarray, np.ndarray]) -> None:
        """Take a position-only command arriving at ``arrival`` (s): converge onto it."""
        reference = self.at(arrival, bounds)[0]
        q = np.array(q, dtype=float)
        recent = spanning([entry for entry in self._arrivals
                           if entry[0] >= arrival - MAX_EXTRAPOLATION], arrival,
                          VELOCITY_WINDOW)
        if recent and recent[0][0] <= arrival - VELOCITY_WINDOW:  # as spanning() compares
            self.velocity = (q - recent[0][1]) / (arrival - recent[0][0])
        else:  # a stream's first 20 ms, or a burst after a gap: no speed known
            self.velocity = np.zeros_like(q)
        self._arrivals = recent + [(arrival, q)]
        self.target, self.time = q, arrival
        self._offset = q - reference

    def at(self, time: float, bounds: Tuple[np.ndarray, np.ndarray]
           ) -> Tuple[np.ndarray, np.ndarray]:
        """Return ``(q_ref, v_ref)`` at ``time`` (s); ``q_ref`` held inside ``bounds``."""
        elapsed = max(time - self.time, 0.0)
        moving = elapsed < MAX_EXTRAPOLATION
        reference = self.target + self.velocity * min(elapsed, MAX_EXTRAPOLATION)
        velocity = self.velocity if moving else np.zeros_like(self.velocity)
        if self._arrivals:
            decay = np.exp(-elapsed / SMOOTHING)
            reference = reference - self._offset * decay
            velocity = velocity + self._offset * (decay / SMOOTHING)
        bounded = np.clip(reference, *bounds)
        return bounded, np.where(bounded == reference, velocity, 0.0)
