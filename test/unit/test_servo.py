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

"""Servo (differential) steps: speed limits, limit holding, null space, singularities."""

from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from ros_ik.kinematics.bundled_arms import load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.damped_least_squares import (COMMAND_DAMPING, damped_step,
                                                    DampingSchedule, make_workspace)
from ros_ik.kinematics.servo_step import ERROR_DAMPING_SCALE, ServoController, ServoOptions
from ros_ik.kinematics.transforms import pose_error
from ros_ik.kinematics.twist_motion import (LIMIT_AVOIDANCE_SPEED, LIMIT_MARGIN,
                                            twist_motion_into)
from ros_ik.kinematics.urdf_loader import load_urdf_string

DT = 0.01


def run_servo(arm_name: str, q_start: np.ndarray, T_base_target: np.ndarray, steps: int,
              options: ServoOptions):
    """Integrate servo velocities (Euler, inside the limits): the controller, steps, joints."""
    controller = ServoController(ChainKinematics(load_bundled_chain(arm_name)))
    chain = controller.kinematics.chain
    q = q_start.copy()
    history, positions = [], []
    for _ in range(steps):
        step = controller.step(q, T_base_target, options)
        q = np.clip(q + step.velocity * DT, chain.lower, chain.upper)
        history.append(step)
        positions.append(q)
    return controller, history, positions


@pytest.mark.parametrize('arm_name, q_start, q_goal', [
    ('ur5', [0.0, -1.57, 1.57, -1.57, -1.57, 0.0], [0.5, -1.2, 1.0, -1.0, -1.2, 0.4]),
    ('panda', [0.0, -0.78, 0.0, -2.35, 0.0, 1.57, 0.78], [0.4, -0.3, 0.2, -2.0, 0.3, 1.9, 0.2]),
])
def test_servo_converges_within_velocity_and_position_limits(arm_name, q_start, q_goal):
    """Check convergence to a reachable pose and the limits on every command."""
    chain = load_bundled_chain(arm_name)
    target = ChainKinematics(chain).tip_pose(np.array(q_goal))
    options = ServoOptions(velocity_scale=0.2)
    controller, history, positions = run_servo(arm_name, np.array(q_start), target, 800,
                                               options)
    limit = options.velocity_scale * chain.velocity_limits
    for step in history:
        assert np.all(np.abs(step.velocity) <= limit * (1 + 1e-12))
    e_p, e_o = pose_error(target, controller.kinematics.tip_pose(positions[-1]))
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
    for _ in range(200):
        step = controller.step(q, target, options)
        assert abs(step.velocity[0]) <= chain.velocity_limits[0] * (1 + 1e-12)
        q = np.minimum(q + step.velocity * DT, chain.upper)
    assert q[0] == pytest.approx(0.5, abs=1e-12)
    step = controller.step(q, target, options)
    assert step.at_position_limit
    assert np.all(step.velocity == 0.0)


def test_servo_through_planar_singularity_keeps_speeds_bounded():
    """Check the 2-link arm pulled straight: damping on, speeds capped, no NaN."""
    options = ServoOptions(mask=(True, True, False, False, False, False), gain=10.0,
                           damping=DampingSchedule(0.3, 0.3))
    target = np.eye(4)
    target[:3, 3] = [3.6, 0.0, 0.0]  # just beyond the 3.5 m reach: pulls through theta2 = 0
    chain = load_bundled_chain('planar_2link')
    _, history, positions = run_servo('planar_2link', np.array([0.2, 0.6]), target, 300,
                                      options)
    assert all(np.all(np.isfinite(step.velocity)) for step in history)
    assert all(np.all(np.abs(step.velocity) <= chain.velocity_limits) for step in history)
    assert max(step.damping for step in history) > 0.0
    assert abs(positions[-1][1]) < 0.1  # stretched toward the target
    assert 0.1 - 1e-9 <= history[-1].position_error < 0.16  # 0.1 m is the least possible


def test_holding_one_joint_never_leaves_another_pushing_out():
    """
    Check the limit freeze fix on a UR5 with two joints at their bounds.

    Holding the first joint that pushes out re-solves the step, which can push a second
    joint at its bound outward; the step must hold it too and still move the tip toward the
    target (one pass left such a joint, and the position scaling froze the arm).
    """
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    controller = ServoController(kinematics)
    rng = np.random.default_rng(7)
    options = ServoOptions()
    cases = 0
    for _ in range(300):
        q = rng.uniform(-2.5, 2.5, 6)
        bounds = rng.choice(6, size=2, replace=False)
        lower, upper = chain.lower.copy(), chain.upper.copy()
        for j in bounds:  # put two joints exactly at a (tightened) bound
            (upper if rng.random() < 0.5 else lower)[j] = q[j]
        controller.limits = controller.limits.__class__(lower, upper,
                                                        controller.limits.wraps_in_range,
                                                        controller.limits.is_continuous)
        controller._avoids_limits = np.isfinite(lower) & np.isfinite(upper)
        target = kinematics.tip_pose(q + rng.normal(0.0, 0.3, 6))
        step = controller.step(q, target, options)
        assert not controller.limits.outward_at_bound(q, step.velocity).any()
        if step.at_position_limit and np.abs(step.velocity).max() > 0.0:
            cases += 1
            e_p, e_o = pose_error(target, kinematics.tip_pose(q))
            _, J = kinematics.tip_pose_and_jacobian(q)
            assert float(np.concatenate([e_p, e_o]) @ (J @ step.velocity)) > 0.0
    assert cases > 50


def test_null_space_motion_leaves_the_tool_still():
    """Check a Panda next to a joint limit: joints move away from it, the tool does not."""
    chain = load_bundled_chain('panda')
    kinematics = ChainKinematics(chain)
    controller = ServoController(kinematics)
    q = np.array([0.0, -0.78, 0.0, -2.35, 0.0, 1.57, 0.78])
    q[0] = chain.upper[0] - 0.2 * LIMIT_MARGIN * (chain.upper[0] - chain.lower[0])
    step = controller.step(q, kinematics.tip_pose(q), ServoOptions())
    _, J = kinematics.tip_pose_and_jacobian(q)
    assert step.velocity[0] < -0.05  # pushed back from the upper bound
    np.testing.assert_allclose(J @ step.velocity, 0.0, atol=1e-9)


def test_error_scaled_damping_converges_next_to_a_singularity():
    """Check a planar target 1 mm off the stretched-out pose converges within 2 s."""
    chain = load_bundled_chain('planar_2link')
    kinematics = ChainKinematics(chain)
    q_goal = np.array([0.3, 0.02])  # theta2 = 0.02 rad: sigma_min ~ 0.03 m, damping on
    target = kinematics.tip_pose(q_goal)
    options = ServoOptions(mask=(True, True, False, False, False, False))
    _, history, positions = run_servo('planar_2link', np.array([0.3, 0.05]), target, 200,
                                      options)
    assert max(step.damping for step in history) > 0.0
    assert history[-1].position_error < 1e-4


def _reference_twist_motion(J: np.ndarray, twist: np.ndarray, q: np.ndarray,
                            lower: np.ndarray, upper: np.ndarray,
                            velocity_limits: np.ndarray) -> np.ndarray:
    """Return steps 3, 5 and 6 in numpy (no joint at a bound): DLS, pinv projector, scale."""
    velocity = damped_step(J, twist, COMMAND_DAMPING).dq
    margin = LIMIT_MARGIN * (upper - lower)
    below = np.clip((lower + margin - q) / margin, 0.0, 1.0)
    above = np.clip((q - (upper - margin)) / margin, 0.0, 1.0)
    preferred = LIMIT_AVOIDANCE_SPEED * (below - above)
    if J.shape[1] > J.shape[0]:
        velocity = velocity + (np.eye(J.shape[1]) - np.linalg.pinv(J, rcond=1e-6) @ J) @ preferred
    return velocity * min(1.0, float(np.min(velocity_limits / np.abs(velocity))))


@given(st.integers(min_value=0, max_value=2 ** 32 - 1), st.integers(min_value=1, max_value=6),
       st.integers(min_value=1, max_value=9))
@settings(max_examples=200, deadline=None)
def test_the_compiled_twist_motion_matches_numpy_with_a_pinv_null_space(seed: int, rows: int,
                                                                        joints: int):
    """Random J (rows x joints), joints inside and within the margins of their bounds."""
    rng = np.random.default_rng(seed)
    J, twist = rng.normal(size=(rows, joints)), rng.normal(size=rows)
    lower, upper = -rng.uniform(0.5, 3.0, joints), rng.uniform(0.5, 3.0, joints)
    # inside the bounds (no joint held at one), many within a margin
    q = rng.uniform(lower + 1e-3, upper - 1e-3)
    velocity_limits = rng.uniform(0.2, 2.0, joints)
    velocity = np.empty(joints)
    twist_motion_into(J, twist, q, lower, upper, np.zeros(joints, dtype=bool),
                      np.ones(joints, dtype=bool), velocity_limits,
                      COMMAND_DAMPING.singular_value_threshold, COMMAND_DAMPING.max_damping,
                      1.0, velocity, make_workspace(joints))
    expected = _reference_twist_motion(J, twist, q, lower, upper, velocity_limits)
    assert np.allclose(velocity, expected, rtol=1e-8, atol=1e-10)
    assert np.all(np.abs(velocity) <= velocity_limits * (1 + 1e-12))


@given(st.sampled_from(['ur5', 'panda']), st.integers(min_value=0, max_value=2 ** 32 - 1),
       st.lists(st.booleans(), min_size=6, max_size=6).filter(any),
       st.floats(min_value=0.05, max_value=5.0))
@settings(max_examples=60, deadline=None)
def test_the_step_hands_over_its_weighted_task_jacobian(arm_name: str, seed: int,
                                                        mask: list, orientation_weight: float):
    """
    Check ``ServoStep.task_jacobian`` against finite differences of the tip pose.

    Row i of ``J_task dq`` must be the masked, weighted change of
    ``[p_tip; log(R_tip(q + dq) R_tip(q)^T)]`` for a small ``dq`` (central differences):
    the damper takes it as the Jacobian the velocity came from.
    """
    kinematics = ChainKinematics(load_bundled_chain(arm_name))
    chain = kinematics.chain
    rng = np.random.default_rng(seed)
    q = rng.uniform(np.maximum(chain.lower, -3.0), np.minimum(chain.upper, 3.0))
    options = ServoOptions(mask=tuple(mask), orientation_weight=orientation_weight)
    step = ServoController(kinematics).step(q, kinematics.tip_pose(q + 0.1), options)
    weights = np.array([1.0] * 3 + [orientation_weight] * 3)[np.array(mask)]
    h = 1e-6
    for j in range(chain.n_joints):
        dq = np.zeros(chain.n_joints)
        dq[j] = h
        e_p, e_o = pose_error(kinematics.tip_pose(q + dq), kinematics.tip_pose(q - dq))
        expected = np.concatenate([e_p, e_o])[np.array(mask)] * weights / (2 * h)
        assert np.allclose(step.task_jacobian[:, j], expected, atol=1e-6)


@given(st.sampled_from(['ur5', 'panda', 'planar_2link']),
       st.integers(min_value=0, max_value=2 ** 32 - 1),
       st.lists(st.booleans(), min_size=6, max_size=6).filter(any),
       st.floats(min_value=0.05, max_value=5.0), st.floats(min_value=0.001, max_value=1.0))
@settings(max_examples=80, deadline=None)
def test_the_one_call_step_equals_its_steps_composed_in_numpy(arm_name: str, seed: int,
                                                              mask: list,
                                                              orientation_weight: float,
                                                              distance: float):
    """
    Check the compiled step against steps 1-2 in numpy and steps 3-6 of the twist motion.

    ``e`` from :func:`pose_error` on the masked rows, ``v = K e`` with each part capped, the
    error scale ``min(1, (|W e| / ERROR_DAMPING_SCALE)^2)``, then the weighted task rows;
    targets from far (capped, fully damped) to close (scale below 1).
    """
    kinematics = ChainKinematics(load_bundled_chain(arm_name))
    chain = kinematics.chain
    rng = np.random.default_rng(seed)
    q = rng.uniform(np.maximum(chain.lower, -3.0), np.minimum(chain.upper, 3.0))
    target = kinematics.tip_pose(q + distance * rng.normal(size=chain.n_joints))
    options = ServoOptions(mask=tuple(mask), orientation_weight=orientation_weight,
                           velocity_scale=0.5)
    controller = ServoController(kinematics)
    step = controller.step(q, target, options)
    kept = np.array(mask)
    e_p, e_o = pose_error(target, kinematics.tip_pose(q))
    error = np.concatenate([e_p, e_o]) * kept
    twist = np.concatenate([
        error[:3] * min(options.gain, options.max_linear_speed / np.linalg.norm(error[:3]))
        if np.linalg.norm(error[:3]) else error[:3],
        error[3:] * min(options.gain, options.max_angular_speed / np.linalg.norm(error[3:]))
        if np.linalg.norm(error[3:]) else error[3:]])
    weights = np.array([1.0] * 3 + [orientation_weight] * 3)
    scale = min(1.0, (np.linalg.norm(weights * error) / ERROR_DAMPING_SCALE) ** 2)
    J_task = (kinematics.jacobian(q) * weights[:, None])[kept]
    velocity = np.empty(chain.n_joints)
    limits = controller.limits
    twist_motion_into(J_task, (twist * weights)[kept], q, limits.lower, limits.upper,
                      limits.wraps_in_range,
                      np.isfinite(limits.lower) & np.isfinite(limits.upper)
                      & ~limits.wraps_in_range,
                      0.5 * chain.velocity_limits, COMMAND_DAMPING.singular_value_threshold,
                      COMMAND_DAMPING.max_damping, scale, velocity,
                      make_workspace(chain.n_joints))
    assert np.allclose(step.task_jacobian, J_task, rtol=1e-12, atol=1e-12)
    assert step.position_error == pytest.approx(np.linalg.norm(error[:3]), abs=1e-12)
    assert step.orientation_error == pytest.approx(np.linalg.norm(error[3:]), abs=1e-9)
    assert np.allclose(step.velocity, velocity, rtol=1e-9, atol=1e-12)
