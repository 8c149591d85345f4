"""Servo (differential) steps: limits on every command, convergence, singularity."""

import numpy as np
import pytest
from ros_ik.kinematics.bundled_arms import load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.damped_least_squares import DampingSchedule
from ros_ik.kinematics.servo_step import ServoController, ServoOptions, synchronized_step
from ros_ik.kinematics.transforms import pose_error
from ros_ik.kinematics.urdf_loader import load_urdf_string

DT = 0.01


def run_servo(arm_name: str, q_start: np.ndarray, T_base_target: np.ndarray, steps: int,
              options: ServoOptions):
    """Iterate servo steps, returning the controller and the list of steps."""
    controller = ServoController(ChainKinematics(load_bundled_chain(arm_name)))
    q = q_start.copy()
    history = []
    for _ in range(steps):
        step = controller.step(q, T_base_target, DT, options)
        history.append(step)
        q = step.q_next
    return controller, history


@pytest.mark.parametrize('arm_name, q_start, q_goal', [
    ('ur5', [0.0, -1.57, 1.57, -1.57, -1.57, 0.0], [0.5, -1.2, 1.0, -1.0, -1.2, 0.4]),
    ('panda', [0.0, -0.78, 0.0, -2.35, 0.0, 1.57, 0.78], [0.4, -0.3, 0.2, -2.0, 0.3, 1.9, 0.2]),
])
def test_servo_converges_within_velocity_and_position_limits(arm_name, q_start, q_goal):
    """Check convergence to a reachable pose and the limits on every command."""
    chain = load_bundled_chain(arm_name)
    target = ChainKinematics(chain).tip_pose(np.array(q_goal))
    options = ServoOptions(velocity_scale=0.2)
    controller, history = run_servo(arm_name, np.array(q_start), target, 800, options)
    limit = options.velocity_scale * chain.velocity_limits
    previous = np.array(q_start)
    for step in history:
        assert np.all(np.abs(step.velocity) <= limit * (1 + 1e-12))
        assert np.all(np.abs(step.q_next - previous) <= limit * DT * (1 + 1e-12))
        assert chain.within_limits(step.q_next)
        previous = step.q_next
    e_p, e_o = pose_error(target, controller.kinematics.tip_pose(history[-1].q_next))
    assert np.linalg.norm(e_p) < 1e-4 and np.linalg.norm(e_o) < 1e-3
    assert min(step.velocity_scaling for step in history) < 1.0  # the cap was exercised


SWING_URDF = (
    '<robot name="swing"><link name="base"/><link name="arm"/><link name="tip"/>'
    '<joint name="swing" type="revolute"><parent link="base"/><child link="arm"/>'
    '<axis xyz="0 0 1"/><limit lower="-0.5" upper="0.5" velocity="1.0" effort="1"/></joint>'
    '<joint name="tool" type="fixed"><parent link="arm"/><child link="tip"/>'
    '<origin xyz="1.0 0 0"/></joint></robot>')


def test_servo_stops_at_position_limit_without_jumping():
    """Check a target beyond a joint limit: the joint stops at its bound, never past it."""
    chain = load_urdf_string(SWING_URDF, 'base', 'tip')
    controller = ServoController(ChainKinematics(chain))
    target = np.eye(4)
    target[:3, 3] = [np.cos(1.0), np.sin(1.0), 0.0]
    options = ServoOptions(mask=(True, True, False, False, False, False))
    q = np.array([0.0])
    history = []
    for _ in range(200):
        step = controller.step(q, target, DT, options)
        assert chain.within_limits(step.q_next)
        assert abs(step.q_next[0] - q[0]) <= chain.velocity_limits[0] * DT * (1 + 1e-12)
        history.append(step)
        q = step.q_next
    assert q[0] == pytest.approx(0.5, abs=1e-12)
    assert history[-1].at_position_limit
    assert np.all(history[-1].velocity == 0.0)


def test_servo_through_planar_singularity_keeps_speeds_bounded():
    """Check the 2-link arm pulled straight: damping on, speeds capped, no NaN."""
    options = ServoOptions(mask=(True, True, False, False, False, False), gain=10.0,
                           damping=DampingSchedule(0.3, 0.3))
    target = np.eye(4)
    target[:3, 3] = [3.6, 0.0, 0.0]  # just beyond the 3.5 m reach: pulls through theta2 = 0
    chain = load_bundled_chain('planar_2link')
    _, history = run_servo('planar_2link', np.array([0.2, 0.6]), target, 300, options)
    assert all(np.all(np.isfinite(step.velocity)) for step in history)
    assert all(np.all(np.abs(step.velocity) <= chain.velocity_limits) for step in history)
    assert max(step.damping for step in history) > 0.0
    assert abs(history[-1].q_next[1]) < 0.1  # stretched toward the target
    assert 0.1 - 1e-9 <= history[-1].position_error < 0.16  # 0.1 m is the least possible


def test_synchronized_step_keeps_direction_and_limits():
    """Check the solve-mode motion: straight line, slowest joint at its limit."""
    q = np.array([0.0, 1.0, -1.0])
    goal = np.array([1.0, 0.5, -1.0])
    limits = np.array([0.5, 2.0, 1.0])
    velocity = synchronized_step(q, goal, limits, 0.1)
    np.testing.assert_allclose(velocity, [0.5, -0.25, 0.0])
    np.testing.assert_allclose(synchronized_step(q, q + 1e-3, limits, 0.1), [0.01] * 3)
