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

"""IK solver: round trips, singularity behaviour, unreachable targets, limits, goals."""

import numpy as np
import pytest
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.damped_least_squares import damped_step, DampingSchedule
from ros_ik.kinematics.ik_solver import IkOptions, IkSolver
from ros_ik.kinematics.joint_limits import JointLimits
from ros_ik.kinematics.manipulability import task_jacobian
from ros_ik.kinematics.task_space import FULL_POSE, POSITION_ONLY
from ros_ik.kinematics.transforms import pose_error
from ros_ik.kinematics.urdf_loader import load_urdf_string

ROUND_TRIPS = 25
# Deterministic (time cannot cut the search short): generous budget, bounded attempts.
DETERMINISTIC = {'time_budget': 10.0, 'max_attempts': 400}
PLANAR_MASK = (True, True, False, False, False, False)


def solver_for(chain, options: IkOptions = IkOptions()) -> IkSolver:
    """Return an IK solver of ``chain`` with ``options``."""
    return IkSolver(ChainKinematics(chain), options)


def arm_options(arm_name: str, **overrides) -> IkOptions:
    """Return solver options for a bundled arm (the planar arm controls x, y only)."""
    mask = PLANAR_MASK if BUNDLED_ARMS[arm_name].task_rows == (0, 1) else FULL_POSE
    return IkOptions(mask=mask, **{**DETERMINISTIC, **overrides})


@pytest.mark.parametrize('arm_name', sorted(BUNDLED_ARMS))
def test_fk_ik_fk_round_trips(arm_name):
    """Check that targets from random in-limit configurations are solved to tolerance."""
    chain = load_bundled_chain(arm_name)
    options = arm_options(arm_name)
    solver = solver_for(chain, options)
    rng = np.random.default_rng(1234)
    for _ in range(ROUND_TRIPS):
        T_base_target = solver.kinematics.tip_pose(rng.uniform(chain.lower, chain.upper))
        result = solver.solve(T_base_target, chain.middle_configuration())
        assert result.success, result.reason
        assert chain.within_limits(result.q)
        e_p, e_o = pose_error(T_base_target, solver.kinematics.tip_pose(result.q))
        mask = np.array(options.mask)
        assert np.linalg.norm(e_p * mask[:3]) <= options.position_tolerance * (1 + 1e-9)
        assert np.linalg.norm(e_o * mask[3:]) <= options.orientation_tolerance * (1 + 1e-9)
        assert result.position_error == pytest.approx(np.linalg.norm(e_p * mask[:3]))
        assert result.reason == ''


def test_same_seed_gives_same_answer():
    """Check determinism given the random seed when time does not cut the search."""
    chain = load_bundled_chain('panda')
    solver = solver_for(chain, arm_options('panda', random_seed=7))
    T_base_target = solver.kinematics.tip_pose(np.array([1.0, 0.5, -1.0, -2.0, 0.5, 2.0, 0.3]))
    first = solver.solve(T_base_target, chain.middle_configuration())
    second = solver.solve(T_base_target, chain.middle_configuration())
    np.testing.assert_array_equal(first.q, second.q)
    assert (first.iterations, first.restarts) == (second.iterations, second.restarts)


def test_closest_choice_stays_nearer_the_seed_than_first_found():
    """Check that 'closest' returns a solution at least as near the seed as 'first'."""
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    q_seed = np.array([0.2, -1.2, 1.4, -1.6, -1.5, 0.3])
    T_base_target = kinematics.tip_pose(q_seed + 0.05)
    first = solver_for(chain, IkOptions(solution_choice='first')).solve(T_base_target, q_seed)
    closest = solver_for(chain, IkOptions(solution_choice='closest', time_budget=0.05)).solve(
        T_base_target, q_seed)
    assert first.success and closest.success
    assert (np.abs(closest.q - q_seed).sum()
            <= np.abs(first.q - q_seed).sum() + 1e-9)
    np.testing.assert_allclose(closest.q, q_seed + 0.05, atol=1e-4)


L1, L2 = 2.0, 1.5
SCHEDULE = DampingSchedule(singular_value_threshold=0.05, max_damping=0.05)


def planar_step_norms(theta2: float, error_norm: float = 0.01):
    """Return (|dq| DLS, |dq| undamped) for a radial error at elbow angle ``theta2``."""
    kinematics = ChainKinematics(load_bundled_chain('planar_2link'))
    J = task_jacobian(kinematics.jacobian(np.array([0.0, theta2])), (0, 1))
    # Radially outward from the base: the direction the stretched arm cannot move in.
    tip = kinematics.tip_pose(np.array([0.0, theta2]))[:2, 3]
    error = error_norm * tip / np.linalg.norm(tip)
    damped = damped_step(J, error, SCHEDULE).dq
    undamped = np.linalg.solve(J, error)
    return float(np.linalg.norm(damped)), float(np.linalg.norm(undamped))


def test_dls_steps_stay_bounded_through_the_singularity_while_pinv_explodes():
    """
    Drive the 2-link arm toward theta2 = 0 with a 1 cm radial error.

    The DLS gain ``sigma / (sigma^2 + lam^2)`` is at most ``1 / (2 lam)`` once damping is
    on, and ``sigma / sigma_threshold^2`` (<= 1 / sigma_threshold) before, so
    ``|dq| <= |e| / min(2 lam_max, sigma_threshold) = 0.01 / 0.05 = 0.2 rad`` for every
    theta2; the undamped step ``J^-1 e`` grows like ``1 / sin(theta2)``.
    """
    bound = 0.01 / min(2.0 * SCHEDULE.max_damping, SCHEDULE.singular_value_threshold)
    damped_norms, undamped_norms = [], []
    for theta2 in (0.3, 0.1, 1e-2, 1e-3, 1e-4, 1e-6):
        damped, undamped = planar_step_norms(theta2)
        damped_norms.append(damped)
        undamped_norms.append(undamped)
    assert max(damped_norms) <= bound
    assert all(later > earlier for earlier, later in zip(undamped_norms, undamped_norms[1:]))
    assert undamped_norms[-1] > 1e3
    assert undamped_norms[-1] > 1e4 * damped_norms[-1]


def test_dls_equals_exact_solution_away_from_singularities():
    """Check that lam = 0 (no damping) when sigma_min is above the threshold."""
    kinematics = ChainKinematics(load_bundled_chain('planar_2link'))
    J = task_jacobian(kinematics.jacobian(np.array([0.3, 1.2])), (0, 1))
    error = np.array([0.01, -0.02])
    step = damped_step(J, error, SCHEDULE)
    assert float(step.damping) == 0.0
    np.testing.assert_allclose(step.dq, np.linalg.solve(J, error), atol=1e-14)


def test_solver_at_exact_singularity_takes_finite_steps():
    """Check a solve started exactly at the stretched singularity returns finite joints."""
    chain = load_bundled_chain('planar_2link')
    solver = solver_for(chain, arm_options('planar_2link'))
    T_base_target = solver.kinematics.tip_pose(np.array([0.4, 1.0]))
    result = solver.solve(T_base_target, np.zeros(2))
    assert result.success and np.all(np.isfinite(result.q))


@pytest.mark.parametrize('q_target', [(-1.026, 1.297, 2.864, 0.484, 2.905, 3.858),
                                      (-5.891, 2.393, -0.408, -1.06, -3.142, 0.475)])
def test_targets_next_to_a_singularity_are_solved_in_few_attempts(q_target):
    """
    Check targets with sigma_min < 1e-3 (UR5) are reached within three attempts.

    The damping shrinks with the squared error, so it falls below sigma_min^2 before the
    tolerance is reached; with a damping linear in the error these attempts crawled and
    stalled (20 of 20 attempts failed on both targets).
    """
    chain = load_bundled_chain('ur5')
    solver = solver_for(chain, IkOptions(time_budget=10.0, max_attempts=3))
    q_target = np.array(q_target)
    assert np.linalg.svd(solver.kinematics.jacobian(q_target), compute_uv=False)[-1] < 1e-3
    result = solver.solve(solver.kinematics.tip_pose(q_target), chain.middle_configuration())
    assert result.success, result.reason


def test_unreachable_target_reports_closest_point():
    """Check a target 5 m away from a 3.5 m arm: finite, failed, reason, distance 1.5 m."""
    chain = load_bundled_chain('planar_2link')
    solver = solver_for(chain, arm_options('planar_2link', time_budget=0.05, max_attempts=20))
    T_base_target = np.eye(4)
    T_base_target[:3, 3] = [3.0, 4.0, 0.0]
    result = solver.solve(T_base_target, np.array([0.1, 0.5]))
    assert not result.success
    assert np.all(np.isfinite(result.q)) and chain.within_limits(result.q)
    assert result.position_error == pytest.approx(1.5, abs=1e-4)
    assert result.reason.startswith('target out of reach: 5.000 m from the first joint, '
                                    'reach 3.500 m; closest point 1.5')
    tip = solver.kinematics.tip_pose(result.q)[:3, 3]
    # The arm points at the target (to a few mrad: the stretched pose is singular).
    np.testing.assert_allclose(tip / np.linalg.norm(tip), [0.6, 0.8, 0.0], atol=5e-3)


def test_unreachable_target_on_six_dof_arm_is_finite():
    """Check a far target for the UR5-class arm: no NaN, failure, reason and distance."""
    chain = load_bundled_chain('ur5')
    solver = solver_for(chain, IkOptions(time_budget=0.02))
    T_base_target = np.eye(4)
    T_base_target[:3, 3] = [2.0, 1.0, 0.5]
    result = solver.solve(T_base_target, chain.middle_configuration())
    assert not result.success
    assert np.all(np.isfinite(result.q)) and chain.within_limits(result.q)
    assert 'target out of reach' in result.reason
    assert 1.0 < result.position_error < 2.3


MIXED_URDF = (
    '<robot name="mixed"><link name="base"/><link name="l1"/><link name="l2"/>'
    '<link name="tip"/>'
    '<joint name="spin" type="continuous"><parent link="base"/><child link="l1"/>'
    '<axis xyz="0 0 1"/></joint>'
    '<joint name="lift" type="prismatic"><parent link="l1"/><child link="l2"/>'
    '<axis xyz="0 0 1"/><limit lower="0.0" upper="0.5" velocity="0.2" effort="1"/></joint>'
    '<joint name="tool" type="fixed"><parent link="l2"/><child link="tip"/>'
    '<origin xyz="1.0 0 0"/></joint></robot>')


def test_continuous_joint_wraps_and_prismatic_respects_limits():
    """Check the continuous joint ends in (-pi, pi] and the prismatic one in its range."""
    chain = load_urdf_string(MIXED_URDF, 'base', 'tip')
    options = IkOptions(mask=POSITION_ONLY, **DETERMINISTIC)
    solver = solver_for(chain, options)
    T_base_target = np.eye(4)
    T_base_target[:3, 3] = [np.cos(3.0), np.sin(3.0), 0.3]
    result = solver.solve(T_base_target, np.array([-3.0 + 4.0 * np.pi, 0.1]))
    assert result.success
    assert -np.pi < result.q[0] <= np.pi
    assert result.q[0] == pytest.approx(3.0, abs=1e-6)
    assert result.q[1] == pytest.approx(0.3, abs=1e-6)
    T_base_target[2, 3] = 0.8
    too_high = solver.solve(T_base_target, np.array([0.0, 0.1]))
    assert not too_high.success
    assert too_high.q[1] == pytest.approx(0.5)
    assert chain.within_limits(too_high.q)
    assert too_high.position_error == pytest.approx(0.3, abs=1e-6)


@pytest.mark.parametrize('arm_name', ['ur5', 'panda'])
def test_position_only_goal(arm_name):
    """Check position-only goals on the 6- and 7-DOF arms."""
    chain = load_bundled_chain(arm_name)
    solver = solver_for(chain, IkOptions(mask=POSITION_ONLY, **DETERMINISTIC))
    rng = np.random.default_rng(99)
    for _ in range(10):
        target = solver.kinematics.tip_pose(rng.uniform(chain.lower, chain.upper))
        target[:3, :3] = np.eye(3)
        result = solver.solve(target, chain.middle_configuration())
        assert result.success, result.reason
        e_p, _ = pose_error(target, solver.kinematics.tip_pose(result.q))
        assert np.linalg.norm(e_p) <= 1e-6
        assert result.orientation_error == 0.0


def test_orientation_weight_trades_orientation_for_position_on_unreachable_pose():
    """Check that a heavier orientation weight lowers orientation error, raising position."""
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    target = kinematics.tip_pose(np.array([0.3, -1.0, 1.0, -1.5, -1.5, 0.0]))
    target[:3, 3] *= 1.6  # Beyond reach in position; orientation alone is reachable.
    errors = {}
    for weight in (0.1, 10.0):
        options = IkOptions(orientation_weight=weight, time_budget=0.05, max_attempts=16)
        result = solver_for(chain, options).solve(target, chain.middle_configuration())
        errors[weight] = (result.position_error, result.orientation_error)
    assert errors[10.0][1] < errors[0.1][1]
    assert errors[10.0][0] >= errors[0.1][0]


@pytest.mark.parametrize('field, value, message', [
    ('mask', (False,) * 6, 'mask must have 6 entries, at least one True'),
    ('solution_choice', 'best', "solution_choice must be one of ('first', 'closest')"),
    ('time_budget', 0.0, 'time_budget must be positive, got 0.0'),
    ('position_tolerance', -1.0, 'position_tolerance must be positive, got -1.0'),
])
def test_invalid_options_are_rejected(field, value, message):
    """Check option validation messages."""
    with pytest.raises(ValueError, match=message.replace('(', r'\(').replace(')', r'\)')):
        IkOptions(**{field: value})


def test_a_range_of_pi_written_to_8_digits_wraps_like_a_full_turn():
    """Joints of +-3.14159265 wrap in the search: a target across the seam takes one step."""
    chain = load_bundled_chain('planar_2link')  # both joints +-3.14159265
    assert np.all(JointLimits.from_chain(chain, wrap_full_turns=True).wraps_in_range)
    solver = solver_for(chain, arm_options('planar_2link', max_attempts=1))
    T_base_target = solver.kinematics.tip_pose(np.array([3.1, 0.5]))
    result = solver.solve(T_base_target, np.array([-3.1, 0.5]))
    assert result.success and result.restarts == 0 and result.iterations <= 3, result
    assert chain.within_limits(result.q)
