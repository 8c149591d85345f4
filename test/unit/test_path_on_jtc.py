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
setpoint through corners on a jittery timer, a stall of the node near a corner, and a stall
inside a cycle (its late message withdrawn).
"""

from typing import List, Tuple

import numpy as np
import pytest
from ros_ik.control.cycle_types import Command
from ros_ik.control.path_goals import SUCCEEDED
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
