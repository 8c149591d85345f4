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
Cartesian paths through the controller, without DDS: the commanded stream, outcomes, inputs.

A perfect arm (every command becomes the measured joints) on the controller's clock; the
stream is checked from its stamps (divided differences) and every commanded tool pose
against the path.
"""

from typing import List, Sequence

import numpy as np
import pytest
from ros_ik.control import path_following
from ros_ik.control.cycle_types import Command
from ros_ik.control.path_goals import ABORTED, CANCELED, SUCCEEDED
from ros_ik.control.path_input import MAX_WAYPOINTS, PathOptions
from ros_ik.kinematics.transforms import matrix_to_quaternion, pose_error
from ros_ik.trajectory.stream_check import stream_peaks_from_rest
from ros_ik_testing.polylines import distance_from_polyline
from ros_ik_testing.reach_loop import bundled_controller
from test_controller import assert_commands_within_limits, run_loop, UR5_HOME

PANDA_HOME = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])


def started(arm: str, q: np.ndarray, **settings):
    """Return a controller whose stream has started at rest at ``q``."""
    controller = bundled_controller(arm, **settings)
    controller.update_joint_state(controller.arm.chain.joint_names, q, 0.0)
    controller.cycle(0.0)
    return controller


def square(T0: np.ndarray, side: float, offsets=((0, 0), (1, 0), (1, 1), (0, 1), (0, 0))
           ) -> List[np.ndarray]:
    """Return the corners of a square in the base xy plane from ``T0``."""
    corners = []
    for dx, dy in offsets:
        T = T0.copy()
        T[0, 3] += side * dx
        T[1, 3] += side * dy
        corners.append(T)
    return corners


def send(controller, waypoints: Sequence[np.ndarray], frame: str = '',
         options: PathOptions = PathOptions()):
    """Hand the controller a path of 4x4 waypoints in ``frame``; return what it says."""
    positions = np.array([T[:3, 3] for T in waypoints]).reshape(-1, 3)
    quaternions = np.array([matrix_to_quaternion(T[:3, :3]) for T in waypoints]).reshape(-1, 4)
    return controller.set_path([frame] * len(positions), positions, quaternions,
                               [0.0] * len(positions), options)


def tool_deviation(controller, commands: List[Command], segments: Sequence[np.ndarray]
                   ) -> float:
    """Return the largest distance of a commanded tool position from the polyline."""
    points = controller.arm.kinematics.tip_pose(np.array([c.q for c in commands]))[:, :3, 3]
    return float(distance_from_polyline(points, segments).max())


def moving_toward_a_target(offset: Sequence[float]):
    """Return a UR5 controller 0.2 s into a motion to a target ``offset`` (m) away, and q."""
    controller = started('ur5', UR5_HOME)
    target = controller.arm.kinematics.tip_pose(UR5_HOME)
    target[:3, 3] += offset
    controller.set_target('', target[:3, 3], matrix_to_quaternion(target[:3, :3]), 'pose',
                          0.0)
    q, commands = run_loop(controller, UR5_HOME, 0.2, start=0.01)
    assert not controller.is_at_rest()
    return controller, q, commands


@pytest.mark.parametrize('arm, home', [('ur5', UR5_HOME), ('panda', PANDA_HOME)])
@pytest.mark.parametrize('command_type', ['joint_state', 'joint_trajectory'])
def test_a_square_is_drawn_on_the_path_within_every_limit(arm, home, command_type):
    """Check the whole square: succeeded, every command on the path, the stream in limits."""
    controller = started(arm, home, command_type=command_type)
    corners = square(controller.arm.kinematics.tip_pose(home), 0.12)
    taken, notices = send(controller, corners)
    assert taken and notices == []
    _, commands = run_loop(controller, home, 8.0, start=0.01)
    outcome = controller.path_outcome()
    assert outcome.status == SUCCEEDED and outcome.fraction == pytest.approx(1.0)
    assert outcome.deviation[0] <= 1e-3 and outcome.deviation[1] <= 1e-2
    assert tool_deviation(controller, commands, corners) <= 1e-3
    assert_commands_within_limits(controller, commands, home)
    end = controller.arm.kinematics.tip_pose(commands[-1].q)
    assert np.linalg.norm(end[:3, 3] - corners[-1][:3, 3]) <= 1e-6
    if command_type == 'joint_trajectory':  # the horizons stay on the path too
        for command in commands[::25]:
            assert tool_deviation(controller, [Command(q, q, q, 0.0, 0.0) for q in
                                               command.horizon.positions], corners) <= 1e-3
            np.testing.assert_array_equal(command.horizon.velocities[-1], 0.0)


def test_a_stretch_whose_planning_outlasts_a_stall_starts_as_planned(monkeypatch):
    """
    Check a line whose planning from rest holds the loop up for 0.15 s (a slow computer).

    The gap after the cycle that planned reads as a stall of the stream. The stretch's
    motion had not moved the arm yet, so it starts as planned: it was planned again
    instead, which stalled the loop again, for ever (the node's Panda line near its reach
    on a slow CI machine: the path never moved and the action never ended). The next
    stretch of a longer path is planned while the arm moves; a planning that long stalls
    a moving stream, which brakes (not covered here).
    """
    planned = []
    plan = path_following.plan_stretch
    monkeypatch.setattr(path_following, 'plan_stretch',
                        lambda *args: planned.append(1) or plan(*args))
    controller = started('ur5', UR5_HOME)
    corners = square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.2,
                     offsets=((0, 0), (1, 0)))  # one stretch: planned once, from rest
    taken, _ = send(controller, corners)
    assert taken
    names, period = controller.arm.chain.joint_names, 1.0 / controller.settings.update_rate
    q, now, commands = UR5_HOME.copy(), 0.01, []
    while now < 20.0 and getattr(controller.path_outcome(), 'status', '') != SUCCEEDED:
        before = len(planned)
        controller.update_joint_state(names, q, now)
        command = controller.cycle(now).command
        if command is not None:
            q = command.q
            commands.append(command)
        now += period + (0.15 if len(planned) > before else 0.0)  # the planning's time
    assert controller.path_outcome().status == SUCCEEDED
    assert len(planned) == 1
    assert tool_deviation(controller, commands, corners) <= 1e-3


def test_a_cancel_brakes_along_the_path_and_reports_the_fraction():
    """Check a cancel mid-side: CANCELED, at rest on the path, fraction below 1."""
    controller = started('ur5', UR5_HOME)
    corners = square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.3)[:2]
    request = object()
    send(controller, corners, options=PathOptions(request=request))
    q, commands = run_loop(controller, UR5_HOME, 0.3, start=0.01)
    assert controller.cancel_path(request)
    q, more = run_loop(controller, q, 2.0, start=0.31)
    commands += more
    ended = controller.take_ended_paths()
    assert [outcome.status for outcome in ended] == [CANCELED]
    assert 0.05 < ended[0].fraction < 0.95
    assert tool_deviation(controller, commands, corners) <= 1e-3
    assert_commands_within_limits(controller, commands, UR5_HOME)
    assert np.all(commands[-1].velocity == 0.0)


def test_a_target_replaces_a_running_path_and_the_stream_stays_smooth():
    """Check a pose target mid-path: the path is ABORTED 'replaced', the target reached."""
    controller = started('ur5', UR5_HOME)
    T0 = controller.arm.kinematics.tip_pose(UR5_HOME)
    send(controller, square(T0, 0.2)[:2])
    q, commands = run_loop(controller, UR5_HOME, 0.4, start=0.01)
    target = T0.copy()
    target[2, 3] += 0.1
    controller.set_target('', target[:3, 3], matrix_to_quaternion(target[:3, :3]), 'pose',
                          0.4)
    q, more = run_loop(controller, q, 3.0, start=0.41)
    ended = controller.take_ended_paths()
    assert [(outcome.status, outcome.reason) for outcome in ended] == [(ABORTED, 'replaced')]
    assert_commands_within_limits(controller, commands + more, UR5_HOME)
    e_p, e_o = pose_error(target, controller.arm.kinematics.tip_pose(q))
    assert np.linalg.norm(e_p) < 1e-3 and np.linalg.norm(e_o) < 1e-2


def test_a_path_away_from_the_tool_is_approached_first_or_refused():
    """Check path_approach: move reaches the first waypoint by a joint motion; refuse not."""
    for approach, status in (('move', SUCCEEDED), ('refuse', ABORTED)):
        controller = started('ur5', UR5_HOME, path_approach=approach)
        T0 = controller.arm.kinematics.tip_pose(UR5_HOME)
        away = square(T0, 0.1, ((1, 1), (1, 0), (0, 0)))
        send(controller, away)
        q, commands = run_loop(controller, UR5_HOME, 6.0, start=0.01)
        outcome = controller.path_outcome()
        assert outcome.status == status, outcome.message
        assert_commands_within_limits(controller, commands, UR5_HOME)
        if status == SUCCEEDED:
            end = controller.arm.kinematics.tip_pose(q)
            assert np.linalg.norm(end[:3, 3] - away[-1][:3, 3]) < 1e-6
        else:
            assert outcome.reason == 'refused' and np.array_equal(q, UR5_HOME)


def test_one_waypoint_is_a_line_from_the_tool_and_repeats_are_skipped():
    """Check a single waypoint (sent three times) is a straight line from the tool."""
    controller = started('ur5', UR5_HOME)
    T0 = controller.arm.kinematics.tip_pose(UR5_HOME)
    goal = T0.copy()
    goal[:3, 3] += [0.1, -0.05, -0.1]
    send(controller, [goal, goal, goal])
    _, commands = run_loop(controller, UR5_HOME, 3.0, start=0.01)
    outcome = controller.path_outcome()
    assert outcome.status == SUCCEEDED and outcome.waypoint == 2
    assert tool_deviation(controller, commands, [T0, goal]) <= 1e-3


@pytest.mark.parametrize('positions, quaternions, problem', [
    (np.zeros((0, 3)), np.zeros((0, 4)), 'no waypoints'),
    (np.array([[0.1, np.nan, 0.2]]), np.array([[0.0, 0.0, 0.0, 1.0]]), 'not finite'),
    (np.array([[0.1, 0.0, 0.2]]), np.array([[0.0, 0.0, 0.0, 0.0]]), 'zero quaternion'),
    (np.array([[0.1, 0.0, 1e308]]), np.array([[0.0, 0.0, 0.0, 1.0]]), 'beyond'),
    (np.array([[0.1, 0.0, 5e-324]]), np.array([[0.0, 0.0, 0.0, 1.0]]), 'subnormal'),
    (np.zeros((MAX_WAYPOINTS + 1, 3)), np.tile([0.0, 0.0, 0.0, 1.0], (MAX_WAYPOINTS + 1, 1)),
     'at most'),
])
def test_bad_paths_are_refused_with_a_reason_and_the_motion_goes_on(positions, quaternions,
                                                                    problem):
    """Check a bad path is refused, naming the problem, while a running path goes on."""
    controller = started('ur5', UR5_HOME)
    corners = square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.1)[:2]
    send(controller, corners)
    q, commands = run_loop(controller, UR5_HOME, 0.3, start=0.01)
    taken, notices = controller.set_path([''] * len(positions), positions, quaternions,
                                         [0.0] * len(positions))
    assert not taken and problem in notices[0].message
    q, more = run_loop(controller, q, 3.0, start=0.31)
    assert controller.path_outcome().status == SUCCEEDED
    assert_commands_within_limits(controller, commands + more, UR5_HOME)


def test_a_path_in_an_unknown_frame_is_refused_without_tf():
    """Check a waypoint frame that is neither a chain link nor known to TF is refused."""
    controller = started('ur5', UR5_HOME)
    taken, notices = send(controller, [np.eye(4)], frame='camera')
    assert not taken and 'unknown frame "camera"' in notices[0].message


def test_a_stall_on_a_position_stream_resumes_along_the_path():
    """Check a 0.2 s gap mid-path: the stream rests, then finishes the path within limits."""
    controller = started('ur5', UR5_HOME)
    corners = square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.2)[:2]
    send(controller, corners)
    q, commands = run_loop(controller, UR5_HOME, 0.5, start=0.01)
    q, more = run_loop(controller, q, 3.0, start=0.71)  # nothing ran from 0.51 to 0.71
    commands += more
    assert controller.path_outcome().status == SUCCEEDED
    limits = controller.command_limits
    peaks, stalls = stream_peaks_from_rest(
        np.array([c.time for c in commands]), np.array([c.q for c in commands]), UR5_HOME,
        0.01, 0.05, limits.lower, limits.upper)
    assert stalls == 1
    assert np.all(peaks.ratios(limits.velocity, limits.acceleration, limits.jerk) <= 1 + 1e-6)
    assert tool_deviation(controller, commands, corners) <= 1e-3


def test_an_arm_that_lags_brakes_the_path_along_itself_and_goes_on():
    """Check joint states 0.3 s late (beyond max_tracking_error): brake on the path, finish."""
    controller = started('ur5', UR5_HOME, max_tracking_error=0.02)
    corners = square(controller.arm.kinematics.tip_pose(UR5_HOME), 0.15)[:2]
    send(controller, corners)
    q, commands = run_loop(controller, UR5_HOME, 8.0, start=0.01, delay=0.3)
    assert controller.path_outcome().status == SUCCEEDED
    assert tool_deviation(controller, commands, corners) <= 1e-3
    assert_commands_within_limits(controller, commands, UR5_HOME)


def test_a_path_sent_while_the_arm_moves_begins_at_rest_and_replaces_a_running_path():
    """Check a path mid-target waits for rest; a second path brakes the first along it."""
    controller, q, commands = moving_toward_a_target((0.1, 0.0, 0.0))
    T_now = controller.arm.kinematics.tip_pose(q)
    first = square(T_now, 0.15)[:2]
    send(controller, first)
    now = 0.21
    while not controller.status.message.startswith('following'):  # rest, then the path
        q, more = run_loop(controller, q, 0.01, start=now)
        commands += more
        now += 0.01
    q, more = run_loop(controller, q, 0.1, start=now)
    commands += more
    second_start = controller.arm.kinematics.tip_pose(q)
    second = [second_start, second_start.copy()]
    second[1][2, 3] += 0.08
    send(controller, second)
    q, more = run_loop(controller, q, 4.0, start=now + 0.1)
    commands += more
    ended = controller.take_ended_paths()
    assert [(outcome.status, outcome.reason) for outcome in ended] == [
        (ABORTED, 'replaced'), (SUCCEEDED, '')]
    assert_commands_within_limits(controller, commands, UR5_HOME)
    end = controller.arm.kinematics.tip_pose(q)
    assert np.linalg.norm(end[:3, 3] - second[1][:3, 3]) < 1e-6


def test_a_path_canceled_before_it_begins_never_moves_the_arm():
    """Check a cancel while the arm still comes to rest: CANCELED, the path never runs."""
    controller, q, _ = moving_toward_a_target((0.0, 0.1, 0.0))
    request = object()
    T_now = controller.arm.kinematics.tip_pose(q)
    away = T_now.copy()
    away[2, 3] += 0.1
    send(controller, [T_now, away], options=PathOptions(request=request))
    controller.cycle(0.21)
    assert controller.cancel_path(request)
    q, _ = run_loop(controller, q, 2.0, start=0.22)
    assert [outcome.status for outcome in controller.take_ended_paths()] == [CANCELED]
    assert controller.arm.kinematics.tip_pose(q)[2, 3] < T_now[2, 3] + 1e-3
