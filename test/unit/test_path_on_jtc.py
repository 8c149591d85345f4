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
Cartesian paths as joint_trajectory_controller (JTC) executes them, through stalls.

The controller's horizons fed to the emulated JTC at their cycles' times (no DDS): its
setpoint through corners on a jittery timer, a stall of the node near a corner, a stall
inside a cycle (its late message withdrawn), and random stalls and joint-state dropouts in a
closed loop whose arm is JTC's setpoint.
"""

from dataclasses import dataclass
from typing import List, Tuple

import numpy as np
import pytest
from ros_ik.control.cycle_types import Command
from ros_ik.control.path_goals import RUNNING, SUCCEEDED
from ros_ik.node.jtc_emulation import JointTrajectoryControllerEmulation
from ros_ik.node.messages import joint_trajectory_command
from ros_ik_testing.ros2_control_loop import EPOCH_NS
from test_controller import run_loop, UR5_HOME
from test_path_following import send, square, started, tool_deviation


def jtc_samples(controller, commands: List[Command], q_start: np.ndarray
                ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """
    Return JTC's setpoint every 0.1 ms: times (k,), positions and accelerations (k, n).

    Each command's horizon reaches JTC at its cycle's time (the command's less the lead)
    and is executed until the next one's, through any gap between them.
    """
    names = controller.arm.chain.joint_names
    lead = controller.settings.trajectory_lead_time
    jtc = JointTrajectoryControllerEmulation(names, q_start, EPOCH_NS)
    times, positions, accelerations = [], [], []
    for command, following in zip(commands, commands[1:]):
        sent = command.time - lead
        assert jtc.receive(joint_trajectory_command(names, command.horizon, EPOCH_NS),
                           sent) is None
        for time in np.arange(sent, following.time - lead, 1e-4):
            setpoint = jtc.update(time)
            times.append(time)
            positions.append(setpoint.position)
            accelerations.append(setpoint.acceleration)
    return np.array(times), np.array(positions), np.array(accelerations)


def jtc_peak_acceleration(controller, commands: List[Command], q_start: np.ndarray) -> float:
    """Return the peak |acceleration| / limit of JTC's setpoint (:func:`jtc_samples`)."""
    _, _, accelerations = jtc_samples(controller, commands, q_start)
    return float(np.max(np.abs(accelerations) / controller.limits.acceleration))


def test_jtc_stays_within_the_acceleration_limit_through_corners_on_a_jittery_timer():
    """
    Check JTC's spline of the horizons as the cycles come 1-19 ms apart.

    A cycle whose step spans a corner (one stretch comes to rest, the next starts) must give
    the approach to the corner between its commands, not the next stretch held at it: that
    was a step of the horizon, 8.3x the acceleration limit in JTC's quintic (seed 2).
    """
    controller = started('ur5', UR5_HOME, command_type='joint_trajectory')
    send(controller, square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.12))
    _, commands = run_loop(controller, UR5_HOME, 8.0, start=0.01, jitter=0.9, seed=2)
    assert controller.path_outcome().status == SUCCEEDED
    assert 0.5 < jtc_peak_acceleration(controller, commands, UR5_HOME) <= 1.0


@pytest.mark.parametrize('stall_at', [0.944, 1.277, 1.573, 1.943, 2.313, 2.498])
def test_a_stall_on_joint_trajectories_near_a_corner_brakes_and_finishes_the_path(stall_at):
    """
    Check a 67 ms stall of the node as the tool nears a corner of the square (JTC).

    JTC follows the last horizon's brake along the path; the node resumes from it. A brake
    that comes to rest at the corner, or micrometres before it, goes on to the next side
    (before: the path ended "not on the path", or the micrometres left took hours).
    """
    controller = started('ur5', UR5_HOME, command_type='joint_trajectory')
    corners = square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.12)
    send(controller, corners)
    q, commands = run_loop(controller, UR5_HOME, stall_at, start=0.01)
    _, more = run_loop(controller, q, 8.0 - stall_at, start=commands[-1].time
                       - controller.settings.trajectory_lead_time + 0.077)
    commands += more
    outcome = controller.path_outcome()
    assert outcome.status == SUCCEEDED and outcome.fraction == pytest.approx(1.0)
    assert tool_deviation(controller, commands, corners) <= 1e-3
    assert jtc_peak_acceleration(controller, commands, UR5_HOME) <= 1.0


@pytest.mark.parametrize('stall_at', [0.729, 0.944, 1.36, 1.573, 1.99, 2.313])
def test_a_stall_inside_a_cycle_withdraws_its_message_and_finishes_the_path(stall_at):
    """
    Check a 77 ms stall between a cycle's clock and its publish, mid-side and near a corner.

    Sent that late, the message would reach JTC on the previous one's brake and JTC would
    jump to it; withdrawn, JTC brakes along the previous one and the node resumes from it:
    the setpoint moves continuously (no step: its speed between 0.1 ms samples within the
    limit) and within the acceleration limit, and the path ends. Mid-side (0.729, 1.36,
    1.99 s) the path's step of the withdrawn cycle was kept: the brake after the stall
    started one period later than the stop JTC followed, 1500-3500x the acceleration limit.
    """
    controller = started('ur5', UR5_HOME, command_type='joint_trajectory')
    corners = square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.12)
    send(controller, corners)
    q, commands = run_loop(controller, UR5_HOME, stall_at, start=0.01)
    period = 1.0 / controller.settings.update_rate
    now = commands[-1].time - controller.settings.trajectory_lead_time + period
    controller.update_joint_state(controller.arm.chain.joint_names, q, now)
    assert controller.cycle(now).command is not None
    assert 'stalled inside it' in controller.withdraw_late_command(now + 0.077).message
    _, more = run_loop(controller, q, 8.0 - stall_at, start=now + 0.077)
    commands += more
    outcome = controller.path_outcome()
    assert outcome.status == SUCCEEDED and outcome.fraction == pytest.approx(1.0)
    assert tool_deviation(controller, commands, corners) <= 1e-3
    times, positions, accelerations = jtc_samples(controller, commands, UR5_HOME)
    speed = np.abs(np.diff(positions, axis=0)) / np.diff(times)[:, None]
    assert np.max(speed / controller.limits.velocity) <= 1.0
    assert np.max(np.abs(accelerations) / controller.limits.acceleration) <= 1.0


@dataclass(frozen=True)
class Faults:
    """Chances per cycle: a stall before it, a stall inside it, a joint-state dropout."""

    stall: float
    inside: float
    dropout: float


def square_through_faults(seed: int, faults: Faults, seconds: float = 9.0):
    """
    Draw the square on an emulated JTC through random faults (for at most ``seconds``).

    The cycles come 0.5-1.5 periods apart. Each cycle, by chance: the next one comes
    20-250 ms late (the node stalled between cycles); its message is published 20-150 ms
    after its clock (withdrawn if that is late, else delivered then); the joint states
    stop for 0.2-0.7 s (past the 0.5 s timeout the node brakes along the path and holds).
    JTC updates every 0.5 ms; the joint states report its setpoint (the arm). Return the peak
    |acceleration| / limit of the setpoint, its peak speed / limit between updates, and
    the path's outcome.
    """
    rng = np.random.default_rng(seed)
    controller = started('ur5', UR5_HOME, command_type='joint_trajectory')
    send(controller, square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.12))
    names, limits = controller.arm.chain.joint_names, controller.limits
    period = 1.0 / controller.settings.update_rate
    jtc = JointTrajectoryControllerEmulation(names, UR5_HOME, EPOCH_NS)
    in_flight: List[tuple] = []  # (arrival s, message)
    clock, peaks = 0.0, np.zeros(2)
    position = jtc.update(0.0).position

    def execute_until(until: float) -> None:
        nonlocal clock, position
        while clock + 5e-4 <= until:
            clock += 5e-4
            while in_flight and in_flight[0][0] <= clock:
                arrival, message = in_flight.pop(0)
                assert jtc.receive(message, arrival) is None
            setpoint = jtc.update(clock)
            speed = np.abs(setpoint.position - position) / 5e-4
            position = setpoint.position
            peaks[:] = np.maximum(peaks, (np.max(np.abs(setpoint.acceleration)
                                                 / limits.acceleration),
                                          np.max(speed / limits.velocity)))

    now, dropout_until, end = 0.01, -1.0, seconds
    while now < end:
        execute_until(now)
        if now >= dropout_until:
            if rng.uniform() < faults.dropout:
                dropout_until = now + rng.uniform(0.2, 0.7)
            controller.update_joint_state(names, position.copy(), now)
        command = controller.cycle(now).command
        published = now + 2e-4
        if command is not None:
            if rng.uniform() < faults.inside:
                published = now + rng.uniform(0.02, 0.15)
            if controller.withdraw_late_command(published) is None:
                in_flight.append((published, joint_trajectory_command(
                    names, command.horizon, EPOCH_NS)))
        following = now + period * rng.uniform(0.5, 1.5)
        if rng.uniform() < faults.stall:
            following += rng.uniform(0.02, 0.25)
        now = max(following, published + 1e-4)
        outcome = controller.path_outcome()
        if outcome is not None and outcome.status != RUNNING:
            end = min(end, now + 0.3)  # and JTC's setpoint comes to rest
    execute_until(now)
    return peaks[0], peaks[1], controller.path_outcome()


@pytest.mark.parametrize('seed, faults', [
    # A hold (stale joint states) past the brake's rest: the rest of the side started at
    # the rest's instant, its first command that far into the motion (2357x).
    (3, Faults(0.0, 0.0, 0.01)),
    # Two withdrawn cycles in a row: the follower, back before the second, started the
    # next side at the first resume's time, 0.11 s into it (2295x).
    (0, Faults(0.0, 0.02, 0.0)),
    # A brake begun in a withdrawn cycle, restarted after the stall as if unmoved (5223x).
    (14, Faults(0.02, 0.02, 0.01)),
    # A hold at the rest a stall resumed to held the older rest's joints (33x).
    (15, Faults(0.04, 0.04, 0.02)),
    # A withdrawn cycle after a resume: the stream resumed from the sent horizon as cut by
    # the first resume, not from the stop JTC went on along (2.47x the speed limit).
    (13, Faults(0.04, 0.04, 0.02)),
])
def test_the_square_on_jtc_through_random_stalls_and_dropouts_stays_within_the_limits(
        seed, faults):
    """Check JTC's setpoint within the limits and the path done through random faults."""
    peak_acceleration, peak_speed, outcome = square_through_faults(seed, faults)
    assert outcome.status == SUCCEEDED and outcome.fraction == pytest.approx(1.0)
    assert peak_acceleration <= 1.01 and peak_speed <= 1.01
