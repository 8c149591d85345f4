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
The ROS-free controller, closed loop in this process: a perfect arm applies each command.

Time is simulated (``now`` advances one period per cycle), so these tests need neither
DDS nor a wall clock.
"""

import math
from typing import List, Tuple

import numpy as np
import pytest
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.control import collision_guard
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.controller import IkController
from ros_ik.control.cycle_measures import MEASURE_PERIOD
from ros_ik.control.cycle_types import Command
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS
from ros_ik.kinematics.ik_solver import IkResult
from ros_ik.kinematics.joint_limits import speed_scale
from ros_ik.kinematics.transforms import matrix_to_quaternion, pose_error, rpy_to_matrix
from ros_ik.kinematics.urdf_loader import load_urdf_string
from ros_ik.trajectory.stream_check import stream_peaks
from ros_ik_testing.reach_loop import bundled_controller, bundled_guard, bundled_model

UR5_HOME = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
UR5_GOAL = np.array([0.4, -1.2, 1.3, -1.7, -1.3, 0.5])


def pose_of(T: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Return (position, quaternion xyzw) of a 4x4 transform."""
    return T[:3, 3], matrix_to_quaternion(T[:3, :3])


def run_loop(controller: IkController, q: np.ndarray, seconds: float, start: float = 0.0,
             delay: float = 0.0, jitter: float = 0.0, seed: int = 0
             ) -> Tuple[np.ndarray, List[Command]]:
    """
    Cycle for ``seconds``; a perfect arm reaches each command and reports it.

    ``delay`` (s): joint states report where the arm was that long ago; ``jitter``: each
    period is stretched by a random factor in ``[1 - jitter, 1 + jitter]``.
    """
    names = controller.arm.chain.joint_names
    period = 1.0 / controller.settings.update_rate
    rng = np.random.default_rng(seed)
    commands: List[Command] = []
    arm_history = [(start - 1.0, np.array(q, dtype=float))]
    now = start
    while now < start + seconds:
        reported = [q_past for time, q_past in arm_history if time <= now - delay][-1]
        controller.update_joint_state(names, reported, now)
        result = controller.cycle(now)
        if result.command is not None:
            commands.append(result.command)
            arm_history.append((now, result.command.q))
        now += period * (1.0 + jitter * rng.uniform(-1.0, 1.0))
    return arm_history[-1][1], commands


def tip_error(controller: IkController, q: np.ndarray, T_base_target: np.ndarray) -> float:
    """Return the larger of the position (m) and rotation (rad) error at ``q``."""
    e_p, e_o = pose_error(T_base_target, controller.arm.kinematics.tip_pose(q))
    return float(max(np.linalg.norm(e_p), np.linalg.norm(e_o)))


def assert_commands_within_limits(controller: IkController, commands: List[Command],
                                  q_start: np.ndarray) -> None:
    """Check the stream (from the start, at rest) within every limit, from its stamps."""
    limits = controller.command_limits
    period = 1.0 / controller.settings.update_rate
    times = [commands[0].time - 2 * period, commands[0].time - period]
    times += [command.time for command in commands]
    positions = [q_start, q_start] + [command.q for command in commands]
    peaks = stream_peaks(np.array(times), np.array(positions), limits.lower, limits.upper)
    ratios = peaks.ratios(limits.velocity, limits.acceleration, limits.jerk)
    assert np.all(ratios <= 1.0 + 1e-6), ratios
    assert np.all(peaks.beyond_bounds <= 1e-12)
    assert all(np.all(np.isfinite(command.q)) for command in commands)


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_reaches_a_pose_target_within_the_limits(mode):
    """Check both modes reach a UR5 target, every command within the limits."""
    controller = bundled_controller('ur5', mode=mode)
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    assert controller.set_target('base_link', *pose_of(T_base_target), 'pose') == []
    q, commands = run_loop(controller, UR5_HOME, 6.0)
    assert tip_error(controller, q, T_base_target) < 1e-3
    assert_commands_within_limits(controller, commands, UR5_HOME)
    report = controller.report()
    assert (report.level, report.message) == ('OK', 'target reached')
    assert report.values['mode'] == mode and report.values['position_error'] < 1e-3
    if mode == 'solve':
        assert report.values['iterations'] > 0


def test_waits_for_joint_states_then_brakes_and_holds_when_they_are_stale():
    """Check no command before joint states; stale ones: ERROR, brake to rest, hold."""
    controller = bundled_controller('ur5', joint_state_timeout=0.3)
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    result = controller.cycle(0.0)
    assert result.command is None and result.manipulability is None
    assert controller.status.message.startswith('waiting for joint_states with shoulder_pan')
    assert result.notices[0].level == 'info'
    q, commands = run_loop(controller, UR5_HOME, 0.5, start=1.0)
    assert np.abs(commands[-1].velocity).max() > 0.1  # moving when the joint states stop
    stream = list(commands)
    for index in range(1, 301):  # 3 s without joint states
        stale = controller.cycle(1.5 + 0.01 * index)
        stream.append(stale.command)
    assert controller.status.level == 'ERROR'
    assert controller.status.message.startswith('joint states are stale (3.')
    assert stale.notices[0].key == 'joint_states:stale'
    assert np.all(stale.command.velocity == 0.0) and np.all(stale.command.acceleration == 0)
    assert_commands_within_limits(controller, stream, UR5_HOME)
    held = stale.command.q
    q, resumed = run_loop(controller, held, 4.0, start=5.0)  # the arm followed: resume
    assert tip_error(controller, q, T_base_target) < 1e-3
    assert_commands_within_limits(controller, stream + resumed, UR5_HOME)


def test_planar_arm_manipulability_is_three_and_no_target_is_ok():
    """Check w = L1 L2 sin(theta2) = 3 at theta2 = 90 deg, status OK without a target."""
    controller = bundled_controller('planar_2link')
    controller.update_joint_state(('shoulder', 'elbow'), (0.3, math.pi / 2), 0.0)
    result = controller.cycle(0.0)
    assert result.manipulability == pytest.approx(3.0, abs=1e-12)
    assert result.command is None
    assert (controller.status.level, controller.status.message) == ('OK', 'no target yet')


def test_a_cycle_without_measuring_keeps_the_last_manipulability_until_the_next_one():
    """
    Check ``cycle(now, measure=False)``: the last measures kept, none published; then due.

    Planar 2-link arm (L1 = 2, L2 = 1.5): w = L1 L2 sin(theta2) is 3 at 90 deg, 1.5 at 30 deg.
    """
    controller = bundled_controller('planar_2link')
    joints = ('shoulder', 'elbow')
    controller.update_joint_state(joints, (0.3, math.pi / 2), 0.0)
    assert controller.cycle(0.0).manipulability == pytest.approx(3.0, abs=1e-12)
    later = 10 * MEASURE_PERIOD
    controller.update_joint_state(joints, (0.3, math.pi / 6), later)
    assert controller.cycle(later, measure=False).manipulability is None
    assert controller.status.values['manipulability'] == pytest.approx(3.0, abs=1e-12)
    assert controller.cycle(later).manipulability == pytest.approx(1.5, abs=1e-12)
    assert controller.status.values['manipulability'] == pytest.approx(1.5, abs=1e-12)


def test_bad_targets_are_refused_and_the_last_good_one_kept():
    """Check NaN, zero quaternions, unknown frames, ints' bits, 1e308 are refused by kind."""
    controller = bundled_controller('ur5')
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('base_link', *pose_of(T_base_target), 'pose')
    refusals = [
        controller.set_target('base_link', (math.nan, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), 'pose'),
        controller.set_target('base_link', (0.3, 0.0, 0.5), (0.0, 0.0, 0.0, 0.0), 'pose'),
        controller.set_target('map', (0.3, 0.0, 0.5), (0.0, 0.0, 0.0, 1.0), 'pose'),
        controller.set_target('base_link', (0.3, 0.0, 5e-324), (0.0, 0.0, 0.0, 1.0), 'pose'),
        controller.set_target('base_link', (1e308, 0.0, 0.5), (0.0, 0.0, 0.0, 1.0), 'pose'),
    ]
    # each kind its own key: one is not silenced by another within the log throttle
    assert [notices[0].key for notices in refusals] == ['target:position',
                                                        'target:zero_quaternion',
                                                        'target:frame', 'target:int_bits',
                                                        'target:position_range']
    assert refusals[2][0].message.startswith('target ignored: unknown frame "map"; use one '
                                             'of base_link, shoulder_link')
    q, _ = run_loop(controller, UR5_HOME, 6.0)
    assert tip_error(controller, q, T_base_target) < 1e-3


def test_a_refused_input_is_an_error_in_the_report_until_a_newer_input_is_taken():
    """
    Check +1e308 then -1e308: each refusal stands in the report until a good target.

    Before, a refused target only reached the (throttled) log: /diagnostics stayed OK.
    """
    controller = bundled_controller('ur5')
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('base_link', *pose_of(T_base_target), 'pose')
    run_loop(controller, UR5_HOME, 0.1)
    assert controller.report().level != 'ERROR'
    for x in (1e308, -1e308):
        controller.set_target('base_link', (x, 0.0, 0.5), (0.0, 0.0, 0.0, 1.0), 'pose')
        report = controller.report()
        assert report.level == 'ERROR'
        assert report.message.startswith('newest input refused: target ignored: target '
                                         f'position [{x:g}, 0.0, 0.5] is beyond'), report
        assert report.values['refused_input'] in report.message
    controller.set_twist('nowhere', (0.0, 0.0, 0.01), (0.0, 0.0, 0.0), 0.2)
    assert 'unknown frame "nowhere"' in controller.report().values['refused_input']
    controller.set_target('base_link', *pose_of(T_base_target), 'pose')
    report = controller.report()
    assert report.level != 'ERROR' and 'refused_input' not in report.values, report
    controller.set_joint_jog(['no_such_joint'], [0.1], 0.3)
    assert controller.report().level == 'ERROR'
    controller.set_joint_jog(list(controller.arm.chain.joint_names[:1]), [0.1], 0.3)
    assert 'refused_input' not in controller.report().values


def test_a_target_in_a_link_fixed_inside_the_chain_is_resolved_there():
    """Check a point given in panda_hand (a fixed link) is reached where FK puts it."""
    controller = bundled_controller('panda', mode='solve')
    kinematics = controller.arm.kinematics
    home = np.array(BUNDLED_ARMS['panda'].home)
    offset = np.array([0.02, -0.03, 0.05])
    assert controller.set_target('panda_hand', offset, None, 'point') == []
    T_base_goal = kinematics.frame_pose(home, 'panda_hand')
    goal = T_base_goal[:3, :3] @ offset + T_base_goal[:3, 3]
    q, _ = run_loop(controller, home, 6.0)
    assert np.linalg.norm(kinematics.tip_pose(q)[:3, 3] - goal) < 1e-3


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_unreachable_target_is_an_error_and_the_arm_stays_at_rest(mode):
    """Check a target 3 m away: ERROR with the reason, commands hold the arm still."""
    controller = bundled_controller('ur5', mode=mode)
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.5]
    controller.set_target('', *pose_of(far), 'pose')
    controller.update_joint_state(controller.arm.chain.joint_names, UR5_HOME, 0.0)
    result = controller.cycle(0.0)
    assert controller.status.level == 'ERROR'
    assert 'out of reach: 3.' in controller.status.message
    assert result.notices[0].key in ('target:reach', 'target:ik')
    _, commands = run_loop(controller, UR5_HOME, 1.0, start=0.01)
    assert np.abs(np.array([command.q for command in commands]) - UR5_HOME).max() == 0.0


def test_a_new_target_after_an_unreachable_one_is_not_reported_as_stalled():
    """
    Check the servo's stall count starts again with each target.

    The arm rests 0.5 s and more out of reach of a target 3 m away; the next target is
    reachable and must be tracked from its first cycle on, without a stall report ("target
    unreachable: stopped ...") while the motion starts from rest.
    """
    controller = bundled_controller('ur5', mode='servo')
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.5]
    controller.set_target('', *pose_of(far), 'pose')
    q, _ = run_loop(controller, UR5_HOME, 1.0)
    assert controller.status.level == 'ERROR'
    T_base_goal = controller.arm.kinematics.tip_pose(UR5_GOAL)
    assert controller.set_target('', *pose_of(T_base_goal), 'pose') == []
    names, now = controller.arm.chain.joint_names, 1.0
    for _ in range(20):  # the first 0.2 s: the motion starts from rest
        controller.update_joint_state(names, q, now)
        result = controller.cycle(now)
        assert [notice.key for notice in result.notices] == []
        assert (controller.status.level, controller.status.message) == (
            'OK', 'tracking the target')
        q, now = result.command.q, now + 0.01
    q, _ = run_loop(controller, q, 6.0, start=now)
    assert tip_error(controller, q, T_base_goal) < 1e-3


def test_joint_state_problems_come_back_as_notices():
    """Check missing, extra, NaN and mismatched joint states are reported by kind."""
    controller = bundled_controller('ur5')
    names = controller.arm.chain.joint_names
    notices = controller.update_joint_state(list(names[:3]) + ['gripper'], [0.0] * 4, 0.0)
    assert [(n.level, n.key) for n in notices] == [('warn', 'joint_states:absent'),
                                                   ('info', 'joint_states:extra')]
    assert notices[0].message == ('joint_states message lacks chain joints wrist_1_joint, '
                                  'wrist_2_joint, wrist_3_joint; using their last known '
                                  'positions')
    assert controller.update_joint_state(names, [math.nan] * 6, 0.0)[0].key == (
        'joint_states:non_finite')
    assert controller.update_joint_state(names, [0.0] * 5, 0.0)[0].key == 'joint_states:lengths'


def test_new_settings_take_effect_on_the_next_cycle():
    """Check a lower velocity_scale caps the next commands."""
    controller = bundled_controller('ur5')
    controller.set_target('', *pose_of(controller.arm.kinematics.tip_pose(UR5_GOAL)), 'pose')
    controller.settings = controller.settings.updated({'velocity_scale': 0.1})
    _, commands = run_loop(controller, UR5_HOME, 0.5)
    speeds = np.abs([command.velocity for command in commands])
    assert np.all(speeds <= 0.1 * controller.arm.chain.velocity_limits * (1 + 1e-9))
    assert speeds.max() > 0.09 * controller.arm.chain.velocity_limits.min()


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_acceleration_scale_caps_the_commanded_accelerations_and_keeps_the_jerk_limit(mode):
    """
    Check ``acceleration_scale`` 0.3 caps the stream at 0.3 x the acceleration limits.

    From the command stamps, against the full limits: acceleration at most 0.3 and used
    (above 0.25: the motion is acceleration-bound), jerk within its full limit.
    """
    controller = bundled_controller('ur5', mode=mode)
    controller.settings = controller.settings.updated({'acceleration_scale': 0.3})
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('base_link', *pose_of(T_base_target), 'pose')
    q, commands = run_loop(controller, UR5_HOME, 10.0)
    assert tip_error(controller, q, T_base_target) < 1e-3
    assert_commands_within_limits(controller, commands, UR5_HOME)
    times = np.array([command.time for command in commands])
    positions = np.array([command.q for command in commands])
    full = controller.limits
    peaks = stream_peaks(times, positions, full.lower, full.upper)
    _, acceleration, jerk = peaks.ratios(full.velocity, full.acceleration, full.jerk)
    assert 0.25 < acceleration <= 0.3 + 1e-6, acceleration
    assert jerk <= 1.0 + 1e-6


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_uneven_cycles_and_late_joint_states_keep_every_limit(mode):
    """
    Check a Panda run with +-60 % period jitter and joint states 100 ms late.

    The stream steps by the measured time, so its limits hold over the command stamps; the
    late joint states match older commands, so the arm is not taken to lag.
    """
    controller = bundled_controller('panda', mode=mode)
    home = np.array(BUNDLED_ARMS['panda'].home)
    goal = home + np.array([0.5, 0.3, -0.4, 0.4, 0.5, -0.3, 0.6])
    T_base_target = controller.arm.kinematics.tip_pose(goal)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    q, commands = run_loop(controller, home, 8.0, delay=0.1, jitter=0.6)
    assert tip_error(controller, q, T_base_target) < 1e-3
    assert_commands_within_limits(controller, commands, home)
    assert 'lags' not in controller.status.message
    assert max(controller.report().values['lag'], 0.0) < 1e-9


def test_a_joint_measured_past_its_limit_is_brought_inside_smoothly():
    """Check an encoder 3 mrad past the UR5 elbow limit: commands move it in, then on."""
    controller = bundled_controller('ur5', mode='solve')
    chain = controller.arm.chain
    start = UR5_HOME.copy()
    start[2] = chain.upper[2] + 0.003
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    q, commands = run_loop(controller, start, 6.0)
    assert commands[0].q[2] > chain.upper[2]  # no jump: the first command is where it is
    inside = [chain.within_limits(command.q) for command in commands]
    assert inside[-1] and all(inside[inside.index(True):])  # once inside, it stays
    limits = controller.command_limits
    times = [command.time for command in commands]
    peaks = stream_peaks(np.array(times), np.array([c.q for c in commands]), limits.lower,
                         limits.upper + np.array([0, 0, 0.003, 0, 0, 0]))
    assert np.all(peaks.ratios(limits.velocity, limits.acceleration, limits.jerk) <= 1 + 1e-6)
    assert tip_error(controller, q, T_base_target) < 1e-3


WHEEL_URDF = (
    '<robot name="wheel"><link name="base"/><link name="disc"/><link name="tip"/>'
    '<joint name="wheel" type="continuous"><parent link="base"/><child link="disc"/>'
    '<axis xyz="0 0 1"/><limit velocity="2.0" effort="1"/></joint>'
    '<joint name="tool" type="fixed"><parent link="disc"/><child link="tip"/>'
    '<origin xyz="1.0 0 0"/></joint></robot>')


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_a_continuous_joint_takes_the_short_way_round(mode):
    """Check a wheel at 3.0 rad sent to -3.0 rad turns +0.28 rad, not -6 rad."""
    chain = load_urdf_string(WHEEL_URDF, 'base', 'tip')
    controller = IkController(ControlledArm.from_chain(chain, 'x y'), Settings.from_values(
        {'base_link': 'base', 'tip_link': 'tip', 'task_axes': 'x y', 'mode': mode}))
    target = controller.arm.kinematics.tip_pose(np.array([-3.0]))
    controller.set_target('', target[:3, 3], None, 'point')
    q, commands = run_loop(controller, np.array([3.0]), 3.0)
    positions = np.array([command.q[0] for command in commands])
    assert positions.min() >= 3.0 - 1e-9 and positions.max() <= 2 * np.pi - 3.0 + 1e-6
    assert q[0] == pytest.approx(2 * np.pi - 3.0, abs=1e-3)


def test_a_failed_solve_is_retried_on_the_next_cycles():
    """Check solve mode: the first two solves fail (a busy CPU), the third is used."""
    controller = bundled_controller('ur5', mode='solve')
    solver = controller.arm.solver
    real_solve, calls = solver.solve, []

    def busy_then_real(T_base_target, q_seed, options):
        """Fail the first two calls as a spent time budget would, then solve."""
        calls.append(options.random_seed)
        result = real_solve(T_base_target, q_seed, options)
        if len(calls) <= 2:
            return result._replace(success=False, reason='time budget spent')
        return result

    object.__setattr__(controller.arm, 'solver', solver)
    solver.solve = busy_then_real
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    q, commands = run_loop(controller, UR5_HOME, 6.0)
    assert calls == [0, 1, 2]  # a new random seed for each attempt
    assert np.all(commands[0].q == UR5_HOME) and np.all(commands[1].q == UR5_HOME)
    assert tip_error(controller, q, T_base_target) < 1e-3


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_huge_and_non_finite_targets_never_reach_the_commands(mode):
    """Check 1e308 and NaN targets are refused and the previous motion goes on, finite."""
    controller = bundled_controller('ur5', mode=mode)
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    _, first = run_loop(controller, UR5_HOME, 0.3)
    refused = [controller.set_target('', (1e308, 0.0, 0.0), (0, 0, 0, 1), 'pose'),
               controller.set_target('', (1e5, 1e5, 0.0), None, 'point'),
               controller.set_target('', (math.inf, 0.0, 0.0), (0, 0, 0, 1), 'pose')]
    assert [notices[0].key for notices in refused] == [
        'target:position_range', 'target:position_range', 'target:position']
    q, rest = run_loop(controller, first[-1].q, 6.0, start=0.3)
    assert tip_error(controller, q, T_base_target) < 1e-3
    assert_commands_within_limits(controller, first + rest, UR5_HOME)


def test_an_arm_that_stops_following_is_braked_for_then_taken_where_it_is():
    """Check a faulted arm: brake, wait, restart at the measured joints, reach the goal."""
    controller = bundled_controller('ur5', joint_state_timeout=0.3)
    names = controller.arm.chain.joint_names
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    q, commands = run_loop(controller, UR5_HOME, 0.4)
    stuck = q.copy()  # the arm faults here and stays
    stream, now = list(commands), 0.4
    while now < 3.0:
        controller.update_joint_state(names, stuck, now)
        stream.append(controller.cycle(now).command)
        now += 0.01
    speed_limit = controller.limits.velocity * controller.settings.velocity_scale
    restart = [index for index, (a, b) in enumerate(zip(stream[:-1], stream[1:]))
               if np.any(np.abs(b.q - a.q) > speed_limit * (b.time - a.time) * 1.01)]
    # The arm never moves: each time the stream brakes, rests, restarts where the arm is.
    assert len(restart) >= 2
    starts = [UR5_HOME] + [stuck] * len(restart)
    for segment, (begin, end) in enumerate(zip([-1] + restart, restart + [len(stream)])):
        if end < len(stream):
            assert np.all(stream[end].velocity == 0.0)  # at rest before restarting
        assert_commands_within_limits(controller, stream[begin + 1:end + 1], starts[segment])
    q, rest = run_loop(controller, stuck, 6.0, start=now)
    assert tip_error(controller, q, T_base_target) < 1e-3


def test_a_dragged_target_streamed_at_50_hz_is_tracked_by_preemption():
    """Check solve mode under a target moving 0.1 m along a line at 50 Hz: smooth, reached."""
    controller = bundled_controller('panda')
    names = controller.arm.chain.joint_names
    home = np.array(BUNDLED_ARMS['panda'].home)
    T_start = controller.arm.kinematics.tip_pose(home)
    q, commands, now = home, [], 0.0
    for index in range(100):  # 2 s: a new target every second cycle
        if index % 2 == 0:
            T_target = T_start.copy()
            T_target[:3, 3] += np.array([0.1, -0.05, 0.05]) * min(index / 100.0, 1.0)
            controller.set_target('', *pose_of(T_target), 'pose')
        controller.update_joint_state(names, q, now)
        command = controller.cycle(now).command
        commands.append(command)
        q, now = command.q, now + 0.01
    q, rest = run_loop(controller, q, 3.0, start=now)
    assert tip_error(controller, q, T_target) < 1e-3
    assert_commands_within_limits(controller, commands + rest, home)
    # tracking, not stop-and-go: the arm keeps moving while the target moves
    speeds = np.array([np.abs(command.velocity).max() for command in commands[20:100]])
    assert speeds.min() > 0.0


def test_a_stalled_control_loop_continues_from_the_held_command_without_fast_forward():
    """
    Check a 0.4 s stall mid-motion of a position stream: no fast-forward.

    The arm's controller held the last command: the stream continues at rest from it, its
    first stamp within a period of the clock, and both parts stay within every limit.
    """
    controller = bundled_controller('ur5')
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    q, before = run_loop(controller, UR5_HOME, 0.5)
    assert np.abs(before[-1].velocity).max() > 0.1  # moving when the stall starts
    q, after = run_loop(controller, q, 5.0, start=0.9)  # no cycle from 0.5 s to 0.9 s
    assert after[0].time == pytest.approx(0.9, abs=1e-9)
    held = before[-1].q
    assert np.abs(after[0].q - held).max() < 1e-3  # one step from rest at the held command
    assert tip_error(controller, q, T_base_target) < 1e-3
    assert_commands_within_limits(controller, before, UR5_HOME)
    assert_commands_within_limits(controller, after, held)
    assert controller.report().level == 'OK'


def panda_servo_toward(offset: List[float], monkeypatch, **settings
                       ) -> Tuple[IkController, List[tuple], np.ndarray]:
    """
    Return a Panda servo with collision checks, its target at home + ``offset`` (rad).

    Also the list to which each servo step computed appends its (q, T_base_target), and
    the home joints.
    """
    controller = bundled_controller('panda', mode='servo', **settings)
    controller.set_collision_guard(bundled_guard(controller, 'panda'))
    computed: List[tuple] = []
    servo_step = controller.arm.servo.step
    monkeypatch.setattr(controller.arm.servo, 'step',
                        lambda *args: computed.append(args[:2]) or servo_step(*args))
    home = np.array(BUNDLED_ARMS['panda'].home)
    T_goal = controller.arm.kinematics.tip_pose(home + np.array(offset))
    controller.set_target('', *pose_of(T_goal), 'pose')
    return controller, computed, home


def box_at_tip(controller: IkController, name: str, q: np.ndarray) -> str:
    """Return a scene YAML entry: a 0.2 m box named ``name`` around the tip at ``q``."""
    x, y, z = controller.arm.kinematics.tip_pose(q)[:3, 3]
    return (f'  - {{name: {name}, type: box, size: [0.2, 0.2, 0.2], '
            f'pose: {{xyz: [{x}, {y}, {z}]}}}}\n')


def test_a_refusal_names_the_obstacle_the_nearest_solution_ends_in(monkeypatch):
    """
    Check a refusal names the pair in collision at the nearest goal, not the last motion's.

    UR5 in solve mode; the solver's answer is fixed: the nearest solution ends inside a
    crate, the second ends free but its motion (the base swung 2 rad) crosses a wall
    around the tip's midway pose. The last motion checked meets the wall first (a time
    budget long enough for both checks).
    """
    controller = bundled_controller('ur5', mode='solve', solve_time_budget=1.0)
    in_crate, beyond_wall = UR5_GOAL, UR5_HOME + np.array([2.0, 0, 0, 0, 0, 0])
    scene = ('objects:\n' + box_at_tip(controller, 'crate', in_crate)
             + box_at_tip(controller, 'wall', (UR5_HOME + beyond_wall) / 2))
    checker = CollisionChecker(bundled_model(controller, 'ur5', scene), 0.0, 0.01)
    assert [checker.nearest(q).distance > 0.0 for q in (UR5_HOME, in_crate, beyond_wall)] == [
        True, False, True]
    controller.set_collision_guard(CollisionGuard(checker))
    answer = IkResult(in_crate, True, 1, 0, 0.0, 0.0, 0.0, 0.0, '', (in_crate, beyond_wall))
    monkeypatch.setattr(controller.arm.solver, 'solve', lambda *_: answer)
    controller.update_joint_state(controller.arm.chain.joint_names, UR5_HOME, 0.0)
    controller.set_target('', *pose_of(controller.arm.kinematics.tip_pose(in_crate)), 'pose')
    refusals = [notice.message for notice in controller.cycle(0.0).notices
                if notice.key == 'target:collision']
    assert len(refusals) == 1 and 'into crate' in refusals[0], refusals


def test_an_arm_at_rest_at_its_target_reuses_the_servo_step_until_an_input_changes(
        monkeypatch):
    """
    Check servo cycles at a reached target: the joints repeat bit for bit, one step computed.

    The step (and its damped velocity) is computed again when the collision model, the
    settings or the target change, and a new target moves the arm again.
    """
    controller, computed, home = panda_servo_toward([0.2, -0.1, 0.1, 0.1, 0.0, 0.1, 0.0],
                                                    monkeypatch)
    q, _ = run_loop(controller, home, 3.0)
    before = len(computed)
    q, resting = run_loop(controller, q, 1.0, start=3.0)
    assert all(np.array_equal(command.q, q) and not np.any(command.velocity)
               for command in resting)
    assert len(computed) - before <= 1  # the first cycle of the rest, at most
    for change in (lambda: controller.set_collision_guard(bundled_guard(controller, 'panda')),
                   lambda: setattr(controller, 'settings',
                                   controller.settings.updated({'gain': 4.0}))):
        change()
        before = len(computed)
        q, _ = run_loop(controller, q, 0.1, start=4.0)
        assert len(computed) - before == 1
    controller.set_target('', *pose_of(controller.arm.kinematics.tip_pose(home)), 'pose')
    q, _ = run_loop(controller, q, 3.0, start=5.0)
    assert tip_error(controller, q, controller.arm.kinematics.tip_pose(home)) < 1e-3


@pytest.mark.parametrize('mode, next_input, rest_cycles',
                         [('servo', 'target', 0), ('servo', 'target', 100),
                          ('solve', 'twist', 0)])
def test_an_arm_at_rest_has_the_damper_pairs_measured_before_the_next_input(
        monkeypatch, mode, next_input, rest_cycles):
    """
    Check the first cycle of an input to an arm at rest: nothing measured at its joints.

    The cycle that brought the commands to rest measured the pairs within the slow-down
    distance there (the Panda near home has some) and their damper rows, so the first
    damper call of a target or jog that comes with the first command at rest, or later,
    solves with them at once (no coal measure, no row computed or looked up, not the
    lazy damper's rounds): in servo mode, and in solve mode for a jog (which goes through
    the damper too).
    """
    controller = bundled_controller('panda', mode=mode, update_rate=1000.0)
    guard = bundled_guard(controller, 'panda')
    controller.set_collision_guard(guard)
    home = np.array(BUNDLED_ARMS['panda'].home)
    kinematics, names = controller.arm.kinematics, controller.arm.chain.joint_names
    controller.set_target('', *pose_of(kinematics.tip_pose(home + 0.1)), 'pose')
    q, now, moved, rested = home, 0.0, False, 0
    while rested <= rest_cycles:
        assert now < 5.0, 'the arm did not come to rest'
        controller.update_joint_state(names, q, now)
        command = controller.cycle(now).command
        now += 0.001
        q = q if command is None else command.q
        moved = moved or (command is not None and bool(command.velocity.any()))
        rested += moved and controller.is_at_rest()
    measures, rows_computed, rows_asked, lazy_calls = [], [], [], []
    checker = guard.checker
    coal_distance, normal_rates, clearance_rates = (checker._coal.distance,
                                                    checker.normal_rates,
                                                    checker.clearance_rates)
    monkeypatch.setattr(checker._coal, 'distance',
                        lambda *args: measures.append(1) or coal_distance(*args))
    monkeypatch.setattr(checker, 'normal_rates',
                        lambda *args: rows_computed.append(1) or normal_rates(*args))
    monkeypatch.setattr(checker, 'clearance_rates',
                        lambda q, contacts: rows_asked.extend(contacts)
                        or clearance_rates(q, contacts))
    lazy_damper = collision_guard.damped_velocity
    monkeypatch.setattr(collision_guard, 'damped_velocity',
                        lambda *args: lazy_calls.append(1) or lazy_damper(*args))
    if next_input == 'target':
        controller.set_target('', *pose_of(kinematics.tip_pose(home + 0.3)), 'pose')
    else:
        controller.set_twist('', (0.0, 0.0, 0.05), (0.0, 0.0, 0.0), now)
    controller.update_joint_state(names, q, now)
    first = controller.cycle(now).command
    assert np.abs(first.velocity).max() > 0.0
    assert not measures and not rows_computed and not rows_asked and not lazy_calls
    settings = controller.settings
    within = max(settings.collision_slowdown_distance, settings.collision_stop_distance)
    assert guard.checker.contacts(q, within)  # there were pairs for the damper to consider


def test_the_prepared_damper_gives_the_lazy_dampers_velocity():
    """
    Check the damper at prepared joints (every row at once) against the lazy damper.

    Panda over a table, random joints near home, random velocities (rest to 2 rad/s) and
    task Jacobians: one guard prepared at the joints, another not (the lazy rounds) give
    the same velocity and the same stopping pair; the prepared rows bind in some cases.
    """
    controller = bundled_controller('panda')
    settings = controller.settings
    checker = CollisionChecker(bundled_model(controller, 'panda', (
        'objects: [{name: table, type: box, size: [1.0, 1.0, 0.1], '
        'pose: {xyz: [0.5, 0.0, 0.2]}}]')), 0.005, 0.01)
    prepared, lazy = CollisionGuard(checker), CollisionGuard(checker)
    rng = np.random.default_rng(5)
    home = np.array(BUNDLED_ARMS['panda'].home)
    limits = controller.arm.chain.velocity_limits
    bound = 0
    for _ in range(120):
        q = home + rng.uniform(-0.8, 0.8, 7)
        qdot = rng.uniform(-1.0, 1.0, 7) * rng.choice([1e-3, 0.1, 2.0])
        J_task = rng.normal(size=(6, 7))
        damping = float(rng.choice([0.0, 0.05]))
        prepared.prepare_damper(q, settings)
        fast, fast_stop = prepared.damped_velocity(q, qdot, J_task, damping, limits, settings)
        slow, slow_stop = lazy.damped_velocity(q, qdot, J_task, damping, limits, settings)
        assert fast == pytest.approx(slow, abs=1e-9)
        assert (fast_stop is None) == (slow_stop is None)
        assert fast_stop is None or fast_stop.pair == slow_stop.pair
        bound += not np.allclose(fast, qdot * speed_scale(qdot, limits))
    assert bound > 10


def test_the_damper_is_prepared_again_only_where_the_checker_forgot(monkeypatch):
    """
    Check ``prepare_damper`` at the joints it prepared: nothing asked again of the checker.

    Once the checker walks other joints (a step check, the diagnostics), the next call at
    the rest joints measures them again; so does another slow-down distance.
    """
    controller = bundled_controller('panda')
    guard = bundled_guard(controller, 'panda')
    checker, settings = guard.checker, controller.settings
    q = np.array(BUNDLED_ARMS['panda'].home)
    asked = []
    contacts = checker.contacts
    monkeypatch.setattr(checker, 'contacts',
                        lambda q, within: asked.append(within) or contacts(q, within))
    guard.prepare_damper(q, settings)
    guard.prepare_damper(q.copy(), settings)
    assert len(asked) == 1 and contacts(q, asked[0])  # there were pairs to measure
    checker.nearest(q + 0.1)
    guard.prepare_damper(q, settings)
    assert len(asked) == 2
    wider = settings.updated({'collision_slowdown_distance':
                              2.0 * settings.collision_slowdown_distance})
    guard.prepare_damper(q, wider)
    assert asked == [asked[0], asked[0], 2.0 * asked[0]]


def test_the_servo_options_follow_the_settings(monkeypatch):
    """
    Check every servo step gets the options of its cycle's settings.

    The options are kept between cycles while the settings stay the same object, and made
    anew from settings set at run time (gain, velocity_scale).
    """
    controller, _, home = panda_servo_toward([0.2, -0.1, 0.1, 0.1, 0.0, 0.1, 0.0],
                                             monkeypatch)
    options = []
    step = controller.arm.servo.step
    monkeypatch.setattr(controller.arm.servo, 'step',
                        lambda *args: options.append(args[2]) or step(*args))
    q, _ = run_loop(controller, home, 0.05)
    kept = len(options)
    controller.settings = controller.settings.updated({'gain': 4.0, 'velocity_scale': 0.2})
    run_loop(controller, q, 0.05, start=0.05)
    assert kept > 1 and all(option is options[0] for option in options[:kept])
    assert options[0].gain == 5.0 and options[0].velocity_limits == pytest.approx(
        0.5 * controller.limits.velocity)
    assert len(options) > kept and options[-1].gain == 4.0
    assert options[-1].velocity_limits == pytest.approx(0.2 * controller.limits.velocity)


@pytest.mark.parametrize('update_rate, cycles_per_step',
                         [(100.0, 1), (500.0, 2), (1000.0, 5)])
def test_a_fast_servo_loop_computes_the_servo_velocity_every_servo_period(
        monkeypatch, update_rate, cycles_per_step):
    """
    Check a moving servo: one damped step per SERVO_PERIOD (5 ms) of cycles, limits kept.

    A new target is stepped toward in the cycle that takes it, and the arm reaches it.
    """
    controller, computed, home = panda_servo_toward([0.3, -0.1, 0.1, 0.1, 0.0, 0.1, 0.0],
                                                    monkeypatch, update_rate=update_rate)
    q, moving = run_loop(controller, home, 0.5)
    assert np.abs(moving[-1].velocity).max() > 0.01  # still on its way
    assert len(computed) == pytest.approx(len(moving) / cycles_per_step, abs=1)
    T_home = controller.arm.kinematics.tip_pose(home)
    controller.set_target('', *pose_of(T_home), 'pose')
    q, returning = run_loop(controller, q, 0.5 / update_rate, start=0.5)
    assert len(returning) == 1 and np.allclose(computed[-1][1], T_home, atol=1e-9)
    q, rest = run_loop(controller, q, 3.0, start=0.5 + 1.0 / update_rate)
    assert tip_error(controller, q, T_home) < 1e-3
    assert_commands_within_limits(controller, moving + returning + rest, home)


@pytest.mark.parametrize('mode, spread', [('solve', None), ('servo', 0.4)])
def test_a_five_joint_arm_in_its_recommended_axes_reaches_reachable_targets_ok(mode, spread):
    """
    SO-101 class on task_axes x y z: positions of random configurations, OK, in limits.

    Solve mode (the default) goes anywhere in the range; servo mode is a local method (it
    follows the straight line and can end at a joint limit), given targets within
    ``spread`` rad of home.
    """
    controller = bundled_controller('so101', mode=mode)
    chain = controller.arm.chain
    assert controller.arm.reachability_note() == ''
    home = np.array(BUNDLED_ARMS['so101'].home)
    rng = np.random.default_rng(5)
    q = home
    goals = (rng.uniform(0.8 * chain.lower, 0.8 * chain.upper, size=(4, chain.n_joints))
             if spread is None else home + rng.uniform(-spread, spread, size=(4, 5)))
    for index, goal in enumerate(goals):
        T_base_target = controller.arm.kinematics.tip_pose(goal)
        controller.set_target('', T_base_target[:3, 3], None, 'point')
        q_before = q
        q, commands = run_loop(controller, q, 8.0, start=8.0 * index)
        error = np.linalg.norm(controller.arm.kinematics.tip_pose(q)[:3, 3]
                               - T_base_target[:3, 3])
        assert error < 1e-3, error
        assert_commands_within_limits(controller, commands, q_before)
        assert (controller.report().level, controller.report().message) == ('OK',
                                                                            'target reached')


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_a_pose_off_a_five_joint_arm_is_taken_to_the_closest_pose(mode):
    """A full pose the arm cannot take: WARN (not ERROR), rest at a least-squares minimum."""
    controller = bundled_controller('so101', mode=mode, task_axes='x y z rx ry rz')
    arm = controller.arm
    assert arm.task_rank == 5 and 'task_axes:="x y z"' in arm.reachability_note()
    home = np.array(BUNDLED_ARMS['so101'].home)
    T_base_target = arm.kinematics.tip_pose(home + np.array([0.3, 0.2, -0.3, 0.2, 0.4]))
    T_base_target[:3, :3] = T_base_target[:3, :3] @ rpy_to_matrix(0.0, 0.0, 0.3)  # off the arm
    controller.set_target('', *pose_of(T_base_target), 'pose')
    q, commands = run_loop(controller, home, 10.0)
    assert_commands_within_limits(controller, commands, home)
    report = controller.report()
    assert report.level == 'WARN' and 'closest pose' in report.message, report.message
    assert np.abs(commands[-1].velocity).max() < 1e-6  # settled
    # A least-squares minimum: the gradient J^T W^2 e of 0.5 |W e|^2 vanishes.
    T_base_tip, J = arm.kinematics.tip_pose_and_jacobian(q)
    e_p, e_o = pose_error(T_base_target, T_base_tip)
    weight = controller.settings.orientation_weight
    gradient = J.T @ np.concatenate([e_p, weight ** 2 * e_o])
    assert np.abs(gradient).max() < 1e-4, gradient
    assert np.linalg.norm(e_o) > 0.01  # it really is off the reachable poses


def test_an_arm_that_lags_but_closes_in_is_waited_for_without_a_jump():
    """
    Check a slow arm: brake, wait while its lag shrinks, never restart; reach the goal.

    The arm moves toward each command at a quarter of the commands' speed limit, so it
    falls behind by more than ``max_tracking_error`` and then closes in on the held
    command for longer than ``joint_state_timeout``. Taking it where it is would jump the
    commands back; waiting keeps the whole stream within every limit.
    """
    controller = bundled_controller('ur5', joint_state_timeout=0.3)
    names = controller.arm.chain.joint_names
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    step_limit = 0.25 * controller.limits.velocity * controller.settings.velocity_scale * 0.01
    q, stream, now, keys = np.array(UR5_HOME, dtype=float), [], 0.0, set()
    while now < 15.0:
        controller.update_joint_state(names, q, now)
        result = controller.cycle(now)
        stream.append(result.command)
        keys.update(notice.key for notice in result.notices)
        q = q + np.clip(result.command.q - q, -step_limit, step_limit)
        now += 0.01
    assert 'command:lag' in keys and 'command:restart' not in keys
    assert_commands_within_limits(controller, stream, UR5_HOME)
    assert tip_error(controller, q, T_base_target) < 1e-3
