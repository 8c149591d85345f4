"""
The ROS-free controller, closed loop in this process: a perfect arm applies each command.

Time is simulated (``now`` advances one period per cycle), so these tests need neither
DDS nor a wall clock.
"""

import math
from typing import List, Tuple

import numpy as np
import pytest
from ros_ik.control.arm import ControlledArm
from ros_ik.control.controller import Command, IkController
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, load_bundled_chain
from ros_ik.kinematics.task_space import axes_text
from ros_ik.kinematics.transforms import matrix_to_quaternion, pose_error

UR5_HOME = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
UR5_GOAL = np.array([0.4, -1.2, 1.3, -1.7, -1.3, 0.5])


def controller_for(arm_name: str, **settings) -> IkController:
    """Return a controller of a bundled arm with the given parameter values."""
    chain = load_bundled_chain(arm_name)
    axes = axes_text(BUNDLED_ARMS[arm_name].task_rows)
    values = {'base_link': chain.base_link, 'tip_link': chain.tip_link, 'task_axes': axes,
              **settings}
    return IkController(ControlledArm.from_chain(chain, axes), Settings.from_values(values))


def pose_of(T: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Return (position, quaternion xyzw) of a 4x4 transform."""
    return T[:3, 3], matrix_to_quaternion(T[:3, :3])


def run_loop(controller: IkController, q: np.ndarray, seconds: float,
             start: float = 0.0) -> Tuple[np.ndarray, List[Command]]:
    """Cycle for ``seconds``; a perfect arm reports each command as its next joint state."""
    names = controller.arm.chain.joint_names
    dt = 1.0 / controller.settings.update_rate
    commands = []
    for index in range(int(round(seconds / dt))):
        now = start + index * dt
        controller.update_joint_state(names, q, now)
        result = controller.cycle(now)
        if result.command is not None:
            commands.append(result.command)
            q = result.command.q
    return q, commands


def tip_error(controller: IkController, q: np.ndarray, T_base_target: np.ndarray) -> float:
    """Return the larger of the position (m) and rotation (rad) error at ``q``."""
    e_p, e_o = pose_error(T_base_target, controller.arm.kinematics.tip_pose(q))
    return float(max(np.linalg.norm(e_p), np.linalg.norm(e_o)))


def assert_commands_within_limits(controller: IkController, commands: List[Command],
                                  q_start: np.ndarray) -> None:
    """Check speed (velocity_scale x URDF limit) and position limits of every command."""
    chain = controller.arm.chain
    limit = controller.settings.velocity_scale * chain.velocity_limits
    previous = q_start
    for command in commands:
        assert np.all(np.abs(command.q - previous) <= limit * command.dt * (1 + 1e-9) + 1e-12)
        assert np.all(np.abs(command.velocity) <= limit * (1 + 1e-9))
        assert chain.within_limits(command.q)
        previous = command.q


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_reaches_a_pose_target_within_the_limits(mode):
    """Check both modes reach a UR5 target, every command within the limits."""
    controller = controller_for('ur5', mode=mode)
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


def test_waits_for_joint_states_then_holds_when_they_are_stale():
    """Check no command before joint states, and an ERROR hold once they are stale."""
    controller = controller_for('ur5', joint_state_timeout=0.3)
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('', *pose_of(T_base_target), 'pose')
    result = controller.cycle(0.0)
    assert result.command is None and result.manipulability is None
    assert controller.status.message.startswith('waiting for joint_states with shoulder_pan')
    assert result.notices[0].level == 'info'
    controller.update_joint_state(controller.arm.chain.joint_names, UR5_HOME, 1.0)
    assert controller.cycle(1.1).command is not None
    stale = controller.cycle(1.5)
    assert stale.command is None and stale.manipulability is not None
    assert controller.status.level == 'ERROR'
    assert controller.status.message.startswith('joint states are stale (0.50 s old')
    assert stale.notices[0].key == 'joint_states:stale'


def test_planar_arm_manipulability_is_three_and_no_target_is_ok():
    """Check w = L1 L2 sin(theta2) = 3 at theta2 = 90 deg, status OK without a target."""
    controller = controller_for('planar_2link')
    controller.update_joint_state(('shoulder', 'elbow'), (0.3, math.pi / 2), 0.0)
    result = controller.cycle(0.0)
    assert result.manipulability == pytest.approx(3.0, abs=1e-12)
    assert result.command is None
    assert (controller.status.level, controller.status.message) == ('OK', 'no target yet')


def test_bad_targets_are_refused_and_the_last_good_one_kept():
    """Check NaN, zero quaternions and unknown frames are refused with their notices."""
    controller = controller_for('ur5')
    T_base_target = controller.arm.kinematics.tip_pose(UR5_GOAL)
    controller.set_target('base_link', *pose_of(T_base_target), 'pose')
    refusals = [
        controller.set_target('base_link', (math.nan, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), 'pose'),
        controller.set_target('base_link', (0.3, 0.0, 0.5), (0.0, 0.0, 0.0, 0.0), 'pose'),
        controller.set_target('map', (0.3, 0.0, 0.5), (0.0, 0.0, 0.0, 1.0), 'pose'),
    ]
    assert [notices[0].key for notices in refusals] == ['target:position',
                                                        'target:zero_quaternion',
                                                        'target:frame']
    assert refusals[2][0].message.startswith('target ignored: unknown frame "map"; use one '
                                             'of base_link, shoulder_link')
    q, _ = run_loop(controller, UR5_HOME, 6.0)
    assert tip_error(controller, q, T_base_target) < 1e-3


def test_a_target_in_a_link_fixed_inside_the_chain_is_resolved_there():
    """Check a point given in panda_hand (a fixed link) is reached where FK puts it."""
    controller = controller_for('panda', mode='solve')
    kinematics = controller.arm.kinematics
    home = np.array(BUNDLED_ARMS['panda'].home)
    offset = np.array([0.02, -0.03, 0.05])
    assert controller.set_target('panda_hand', offset, None, 'point') == []
    T_base_goal = kinematics.frame_pose(home, 'panda_hand')
    goal = T_base_goal[:3, :3] @ offset + T_base_goal[:3, 3]
    q, _ = run_loop(controller, home, 6.0)
    assert np.linalg.norm(kinematics.tip_pose(q)[:3, 3] - goal) < 1e-3


def test_unreachable_target_is_an_error_with_its_reason():
    """Check a target 3 m away gives ERROR 'target out of reach' and a warning notice."""
    controller = controller_for('ur5')
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.5]
    controller.set_target('', *pose_of(far), 'pose')
    controller.update_joint_state(controller.arm.chain.joint_names, UR5_HOME, 0.0)
    result = controller.cycle(0.0)
    assert controller.status.level == 'ERROR'
    assert controller.status.message.startswith('target out of reach: 3.')
    assert [notice.key for notice in result.notices] == ['target:reach']
    assert np.all(np.isfinite(result.command.q))


def test_joint_state_problems_come_back_as_notices():
    """Check missing, extra, NaN and mismatched joint states are reported by kind."""
    controller = controller_for('ur5')
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
    controller = controller_for('ur5')
    controller.set_target('', *pose_of(controller.arm.kinematics.tip_pose(UR5_GOAL)), 'pose')
    controller.settings = controller.settings.updated({'velocity_scale': 0.1})
    _, commands = run_loop(controller, UR5_HOME, 0.5)
    speeds = np.abs([command.velocity for command in commands])
    assert np.all(speeds <= 0.1 * controller.arm.chain.velocity_limits * (1 + 1e-9))
    assert speeds.max() > 0.09 * controller.arm.chain.velocity_limits.min()
