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
The IK controller in closed loop with an emulated ros2_control controller, on a simulated clock.

The controller's cycles run at ``update_rate`` with timer jitter; each cycle's command is
serialized as the node publishes it (:mod:`ros_ik.node.serialized_commands`: the real bytes,
read back as the controller's message) and delivered after a random delay in
``[0, delivery_jitter]`` (some messages lost, a stall of the controller's process); the
ros2_control controller runs at its own ``controller_rate``: joint_trajectory_controller
(:mod:`ros_ik.node.jtc_emulation`) for ``joint_trajectory``, a forward position controller
(the newest array, held) for ``float64_multi_array``. The hardware follows the setpoint
exactly and reports it as joint_states every update. What counts is the setpoint the
hardware executes, sampled at ``controller_rate``: its velocity, acceleration and jerk are
the divided differences of :mod:`ros_ik.trajectory.stream_check` (the sampled setpoint of a
spline within the limits never exceeds them).
"""

from dataclasses import dataclass, field
import heapq
from typing import List, Optional, Tuple

import numpy as np
from rclpy.serialization import deserialize_message
from ros_ik.control.controller import IkController
from ros_ik.kinematics.transforms import matrix_to_quaternion
from ros_ik.node.jtc_emulation import JointTrajectoryControllerEmulation
from ros_ik.node.messages import COMMAND_MESSAGES
from ros_ik.node.serialized_commands import command_serializer
from ros_ik.trajectory.stream_check import stream_peaks

EPOCH_NS = 1_700_000_000 * 10 ** 9  # the simulated clock's zero, as a ROS time
REACHED = 2e-3  # m: a target counts as reached with the tip this close


@dataclass(frozen=True)
class LoopFaults:
    """
    What goes wrong between the node and the controller.

    ``delivery_jitter`` (s): each message arrives a uniform random delay in [0, it] after
    its cycle; ``timer_jitter``: each cycle period is stretched by a factor in [1 - it,
    1 + it]; every ``lost_every``-th message is lost (0: none); the node's process does not
    run from ``stall_at`` for ``stall_seconds`` (s). ``stall_in_cycle``: the stall stops
    the process inside the first cycle at or after ``stall_at``, between its clock and its
    publish (the node then asks the controller whether to send the late command).
    """

    delivery_jitter: float = 0.0
    timer_jitter: float = 0.0
    lost_every: int = 0
    stall_at: float = -1.0
    stall_seconds: float = 0.0
    stall_in_cycle: bool = False


@dataclass
class LoopRecord:
    """The setpoints the hardware executed (times (k,), positions (k, n)) and rejections."""

    times: List[float] = field(default_factory=list)
    positions: List[np.ndarray] = field(default_factory=list)
    rejections: List[str] = field(default_factory=list)
    messages: int = 0


class Ros2ControlLoop:
    """One controller, its emulated ros2_control controller and a perfect arm."""

    def __init__(self, controller: IkController, q_start: np.ndarray, controller_rate: float,
                 faults: LoopFaults = LoopFaults(), seed: int = 0) -> None:
        """Start the arm at rest at ``q_start``, the simulated clock at 0."""
        self.controller = controller
        self.command_type = controller.settings.command_type
        self.names = controller.arm.chain.joint_names
        self._serialize = command_serializer(self.command_type, self.names, EPOCH_NS)
        self.faults = faults
        self.period = 1.0 / controller_rate
        self.rng = np.random.default_rng(seed)
        self.jtc = JointTrajectoryControllerEmulation(self.names, q_start, EPOCH_NS)
        self.q = np.array(q_start, dtype=float)
        self.now = 0.0
        self.record = LoopRecord()
        self._next_cycle = 0.0
        self._in_flight: List[Tuple[float, int, object]] = []  # (arrival, order, message)
        self._sent = 0
        self._stalled_in_cycle = False
        self.withdrawn = 0  # commands the controller took back as sent too late

    def run_until(self, end: float) -> np.ndarray:
        """Advance the simulated clock to ``end`` (s); return the arm's joints."""
        controller, faults = self.controller, self.faults
        cycle_period = 1.0 / controller.settings.update_rate
        while self.now < end:
            self.now += self.period
            while self._next_cycle <= self.now:
                stall_end = faults.stall_at + faults.stall_seconds
                if faults.stall_at <= self._next_cycle < stall_end:
                    if faults.stall_in_cycle and not self._stalled_in_cycle:
                        self._stalled_in_cycle = True
                        self._cycle(self._next_cycle, stall_end)
                    self._next_cycle = stall_end
                    continue
                self._cycle(self._next_cycle)
                self._next_cycle += cycle_period * (
                    1.0 + faults.timer_jitter * self.rng.uniform(-1.0, 1.0))
            self._deliver()
            self._update()
        return self.q

    def _cycle(self, t: float, sent_at: Optional[float] = None) -> None:
        """
        Run one controller cycle at ``t`` with the arm's joints; send its message.

        ``sent_at`` (s): a stall inside the cycle ends then; the message leaves then unless
        the controller withdraws it as the node does.
        """
        self.controller.update_joint_state(self.names, self.q, t)
        command = self.controller.cycle(t).command
        if command is None:
            return
        if sent_at is not None and self.controller.withdraw_late_command(sent_at) is not None:
            self.withdrawn += 1
            return
        self._sent += 1
        if self.faults.lost_every and self._sent % self.faults.lost_every == 0:
            return
        message = deserialize_message(self._serialize(command),
                                      COMMAND_MESSAGES[self.command_type])
        arrival = (t if sent_at is None else sent_at) + (
            self.faults.delivery_jitter * self.rng.uniform())
        heapq.heappush(self._in_flight, (arrival, self._sent, message))

    def _deliver(self) -> None:
        """Hand every message that has arrived by now to the controller, in arrival order."""
        while self._in_flight and self._in_flight[0][0] <= self.now:
            arrival, _, message = heapq.heappop(self._in_flight)
            self.record.messages += 1
            if self.command_type == 'joint_trajectory':
                reason = self.jtc.receive(message, arrival)
                if reason:
                    self.record.rejections.append(reason)
            elif self.command_type == 'float64_multi_array':
                self.q = np.array(message.data)
            else:
                self.q = np.array(message.position)

    def _update(self) -> None:
        """Run the controller update: the arm takes the setpoint; record it."""
        if self.command_type == 'joint_trajectory':
            self.q = self.jtc.update(self.now).position
        self.record.times.append(self.now)
        self.record.positions.append(self.q.copy())


def setpoint_peaks(record: LoopRecord, controller: IkController) -> np.ndarray:
    """Return the setpoint's peak / limit for velocity, acceleration and jerk, as (3,)."""
    limits = controller.limits
    peaks = stream_peaks(np.array(record.times), np.array(record.positions), limits.lower,
                         limits.upper)
    return peaks.ratios(limits.velocity, limits.acceleration, limits.jerk)


def wall_speed(record: LoopRecord, controller: IkController, since: float) -> float:
    """Return the setpoint's peak velocity / limit over the samples after ``since`` (s)."""
    times = np.array(record.times)
    keep = times >= since
    positions = np.array(record.positions)[keep]
    if len(positions) < 2:
        return 0.0
    speeds = np.abs(np.diff(positions, axis=0)) / np.diff(times[keep])[:, None]
    return float(np.max(speeds / controller.limits.velocity))


def final_error(controller: IkController, q: np.ndarray, T_base_target: np.ndarray) -> float:
    """Return the tip position error (m) at ``q``."""
    return float(np.linalg.norm(controller.arm.kinematics.tip_pose(q)[:3, 3]
                                - T_base_target[:3, 3]))


def run_random_targets(controller: IkController, q_start: np.ndarray, controller_rate: float,
                       faults: LoopFaults, targets: int, seconds: float, seed: int = 4
                       ) -> Tuple[Ros2ControlLoop, int]:
    """
    Send ``targets`` random reachable pose targets, ``seconds`` apart, through a loop.

    Each target is the tip pose of a random configuration within 70 % of the joint range
    (at most +-3 rad). Return the loop and how many targets were reached (tip within 2 mm).
    """
    chain = controller.arm.chain
    loop = Ros2ControlLoop(controller, q_start, controller_rate, faults, seed=seed)
    rng = np.random.default_rng(seed)
    reached = 0
    for index in range(targets):
        q_goal = rng.uniform(0.7 * np.maximum(chain.lower, -3.0),
                             0.7 * np.minimum(chain.upper, 3.0))
        T_base_target = controller.arm.kinematics.tip_pose(q_goal)
        controller.set_target('', T_base_target[:3, 3],
                              matrix_to_quaternion(T_base_target[:3, :3]), 'pose')
        q = loop.run_until(seconds * (index + 1))
        reached += final_error(controller, q, T_base_target) < REACHED
    return loop, reached
