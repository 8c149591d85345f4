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
The demo's jog segments: a twist streamed at 50 Hz, and whether the tool kept advancing.

A jog is judged over the IK node's control cycles (the cycle times of its commands) while
the jog is live, not wall time: beside a CPU hog the node's process runs fewer cycles, and
between them the controller executes the stop its last command ends with; this process,
starved for longer than ``jog_timeout``, ends the jog itself. Those pauses are the
machine's; a tool that stands still while the node runs the jog's cycles is the jog
stalling.
"""

from typing import Callable, List, Optional, Tuple

from geometry_msgs.msg import TwistStamped
import numpy as np
from rclpy.publisher import Publisher
from ros_ik.demo.segments import Segment
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.tools.node_processes import RosPeer

JOG_PERIOD = 0.02  # s between twists (50 Hz) and between progress samples
JOG_WINDOW = 0.25  # s of the node's cycles in which a jog's tool must advance
JOG_RAMP = 0.5  # s from a jog's start before its progress is checked (the ramp-up)
JOG_STARVED_FACTOR = 2.0  # a jog streams at most this many times its seconds of cycles
JOG_STRETCHED = 1.1  # a jog this many times as long as its seconds is reported
JOG_SETTLE = 0.5  # s after the last twist: jog_timeout passes, the arm comes to rest
COVERED = 0.8  # of the commanded distance: a jog that covered it went through


def live_cycles(cycles: np.ndarray, sent: np.ndarray, jog_timeout: float) -> np.ndarray:
    """
    Return the ``cycles`` (s) in which the jog was live: a twist sent within ``jog_timeout``.

    ``sent`` (sorted, s): when this process sent its twists. A process of its own starved
    for longer than ``jog_timeout`` ends the node's jog (it brakes to rest, as it should):
    cycles after that, until the next twist, are not the jog's.
    """
    if not len(sent):
        return cycles[:0]
    last_sent = np.searchsorted(sent, cycles, side='right') - 1  # the twist before each
    return cycles[(last_sent >= 0) & (cycles - sent[np.maximum(last_sent, 0)] <= jog_timeout)]


def first_stall(times: np.ndarray, along: np.ndarray, cycles: np.ndarray,
                window_cycles: int, after: float) -> Optional[float]:
    """
    Return when the tool first stood still over ``window_cycles`` cycles (s), or None.

    ``times`` (k,) s and ``along`` (k,) m: the samples of the tool's progress along the
    jog; ``cycles`` (sorted, s): the IK node's control cycles of the jog. From each sample
    at or after ``after`` s, the first later sample with ``window_cycles`` more cycles up
    to it must be farther along; else the stall starts at that sample. A stretch in which
    the node ran no cycle of the jog (a starved process: the controller executes the last
    command's stop) is not the jog stalling; one in which it ran them and the tool stood
    still is.
    """
    counts = np.searchsorted(cycles, times, side='right')  # cycles up to each sample
    for i in np.flatnonzero(times >= after):
        j = int(np.searchsorted(counts, counts[i] + window_cycles))
        if j < len(times) and along[j] <= along[i]:
            return float(times[i])
    return None


class JogRunner:
    """Streams a segment's twist and samples the tool's progress along it."""

    def __init__(self, peer: RosPeer, kinematics: ChainKinematics, publisher: Publisher,
                 now: Callable[[], float], measured: Callable[[], np.ndarray],
                 update_rate: float, jog_timeout: float) -> None:
        """
        Jog through ``publisher`` (TwistStamped, base frame).

        ``now``: the clock of the commands' stamps (s); ``measured``: the arm's latest
        joints; ``update_rate`` (Hz) and ``jog_timeout`` (s): the IK node's.
        """
        self.peer = peer
        self.kinematics = kinematics
        self.publisher = publisher
        self.now = now
        self.measured = measured
        self.update_rate = update_rate
        self.jog_timeout = jog_timeout
        self._cycles: Optional[List[float]] = None  # during a jog: its commands' cycles

    def cycle(self, cycle_time: float) -> None:
        """Count a command of the IK node, of its control cycle at ``cycle_time`` (s)."""
        if self._cycles is not None:
            self._cycles.append(cycle_time)

    def run(self, segment: Segment) -> Tuple[bool, bool, float]:
        """
        Stream the segment's twist; return (covered, moving, largest deviation m).

        The twist streams until the IK node has run ``jog_seconds`` of the jog's control
        cycles (:func:`live_cycles`), at most ``JOG_STARVED_FACTOR`` times as long (said
        when over ``JOG_STRETCHED``).
        ``covered``: the tool covered ``COVERED`` of the commanded distance; ``moving``:
        its progress never stalled for ``JOG_WINDOW`` s of the node's cycles
        (:func:`first_stall`); the deviation is off the jog's line. A jog that did not do
        as its segment expects says how far it went and where it stalled; one during which
        this process heard fewer than ``jog_seconds`` of the jog's cycles (it fell behind
        the commands) is not moving: it cannot be judged.
        """
        cycles_wanted = segment.jog_seconds * self.update_rate
        start = self.now()
        times, along, deviation, cycles = self._stream(segment, cycles_wanted)
        if times[-1] - start > JOG_STRETCHED * segment.jog_seconds:
            print(f'({times[-1] - start:.1f} s for {len(cycles) / self.update_rate:.1f} s '
                  "of the IK node's jog cycles: a process was starved) ", end='', flush=True)
        self.peer.spin_for(JOG_SETTLE)
        distance = np.linalg.norm(segment.jog_velocity) * segment.jog_seconds
        covered = along[-1] >= COVERED * distance
        if len(cycles) < cycles_wanted:  # cannot be judged
            print(f"(heard {len(cycles) / self.update_rate:.1f} s of the IK node's jog "
                  'cycles: not judged) ', end='', flush=True)
            return covered, False, float(np.max(deviation, initial=0.0))
        stall = first_stall(times, along, cycles, round(JOG_WINDOW * self.update_rate),
                            start + JOG_RAMP)
        if covered == segment.stops or (stall is not None and not segment.stops):
            print(f'(covered {along[-1]:.3f} of {distance:.3f} m'
                  + (f"; no progress over {JOG_WINDOW} s of the jog's cycles from "
                     f'{stall - start:.2f} s' if stall is not None else '') + ') ',
                  end='', flush=True)
        return covered, stall is None, float(np.max(deviation, initial=0.0))

    def _stream(self, segment: Segment, cycles_wanted: float
                ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """
        Stream the twist every ``JOG_PERIOD`` s; return the samples and the live cycles.

        Until this process heard ``cycles_wanted`` live cycles or ``JOG_STARVED_FACTOR``
        times the jog's seconds passed. Returns the samples' times (s), the tool's progress
        along the jog and its distance off the jog's line (m), and the live cycles (s).
        """
        message = TwistStamped()
        message.header.frame_id = self.kinematics.chain.base_link
        velocity = segment.jog_velocity
        message.twist.linear.x, message.twist.linear.y, message.twist.linear.z = (
            float(v) for v in velocity)
        direction = velocity / np.linalg.norm(velocity)
        tip_start = self.kinematics.tip_pose(self.measured())[:3, 3]
        times, along, deviation, sent = [], [], [], []
        start = self.now()
        self._cycles = []
        cycles = np.zeros(0)
        while (len(cycles) < cycles_wanted
               and self.now() < start + JOG_STARVED_FACTOR * segment.jog_seconds):
            self.publisher.publish(message)
            sent.append(self.now())
            self.peer.spin_for(JOG_PERIOD)
            offset = self.kinematics.tip_pose(self.measured())[:3, 3] - tip_start
            times.append(self.now())
            along.append(float(offset @ direction))
            deviation.append(float(np.linalg.norm(offset - along[-1] * direction)))
            cycles = live_cycles(np.array(self._cycles), np.array(sent), self.jog_timeout)
        self._cycles = None
        return np.array(times), np.array(along), np.array(deviation), cycles
