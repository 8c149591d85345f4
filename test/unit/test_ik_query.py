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
IK as a query (``ros_ik.kinematics.ik_query``): batches, distinct solutions, timeouts, checks.

Solutions are checked by forward kinematics, against the planar arm's closed form (two
elbow solutions, ``cos theta2 = (x^2 + y^2 - L1^2 - L2^2) / (2 L1 L2)``) and against an
exhaustive search (600 restarts) on the UR5; collision refusals against the example UR5 on
a floor, its solutions cross-checked with Pinocchio + coal.
"""

import math
import time

import numpy as np
import pytest
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.configuration_check import collision_check
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.ik_query import DISTINCT_TOLERANCE, IkQuery
from ros_ik.kinematics.ik_solver import IkOptions, IkSolver
from ros_ik.kinematics.task_space import mask_of_rows
from ros_ik.kinematics.transforms import pose_error, rpy_to_matrix
from ros_ik_testing.example_arms import example_arm, mesh_search_folder
from ros_ik_testing.reference_collisions import ReferenceCollisions
from test_collision import example_model

TWO_PI = 2.0 * math.pi


def query_of(arm_name: str):
    """Return the query, kinematics and task mask of a bundled arm."""
    kinematics = ChainKinematics(load_bundled_chain(arm_name))
    return (IkQuery(IkSolver(kinematics)), kinematics,
            mask_of_rows(BUNDLED_ARMS[arm_name].task_rows, False))


def random_poses(kinematics: ChainKinematics, count: int, seed: int):
    """Return FK poses of ``count`` random configurations inside the limits (and them)."""
    lower, upper = kinematics.chain.sampling_bounds()
    configurations = np.random.default_rng(seed).uniform(lower, upper, (count, len(lower)))
    return [kinematics.tip_pose(q) for q in configurations], configurations


def residual(kinematics, T: np.ndarray, q: np.ndarray, mask) -> float:
    """Return the masked pose error (m + rad) of ``q`` from ``T``."""
    e_p, e_o = pose_error(T, kinematics.tip_pose(q))
    return float(np.linalg.norm(np.where(mask[:3], e_p, 0.0))
                 + np.linalg.norm(np.where(mask[3:], e_o, 0.0)))


def modulo_turns(difference: np.ndarray) -> np.ndarray:
    """Return joint differences wrapped into [-pi, pi) (revolute arms)."""
    return np.remainder(difference + math.pi, TWO_PI) - math.pi


@pytest.mark.parametrize('arm_name', list(BUNDLED_ARMS))
def test_a_batch_solves_every_reachable_pose_of_every_bundled_arm(arm_name):
    """Check 100 random reachable poses: all solved, in order, within limits, by FK."""
    query, kinematics, mask = query_of(arm_name)
    poses, _ = random_poses(kinematics, 100, seed=1)
    seed = kinematics.chain.middle_configuration()
    results = query.solve_many(poses, seed, mask)
    assert [result.success for result in results] == [True] * 100, \
        [result.message for result in results if not result.success]
    for T, result in zip(poses, results):
        (q,) = result.solutions
        assert kinematics.chain.within_limits(q)
        assert residual(kinematics, T, q, mask) < 2e-5
        assert result.position_error < 1e-5 and result.problem == ''


def test_the_planar_arm_has_its_two_closed_form_elbow_solutions():
    """Check interior points: exactly the two solutions theta2 = +-acos(...), nearest first."""
    query, kinematics, mask = query_of('planar_2link')
    L1, L2 = 2.0, 1.5
    for x, y in ((2.0, 1.0), (-1.0, 2.5), (0.8, -0.9)):
        T = np.eye(4)
        T[:2, 3] = x, y
        seed = np.array([0.0, 0.3])
        result = query.solve(T, seed, mask, max_solutions=8)
        assert result.success and len(result.solutions) == 2
        elbow = math.acos((x * x + y * y - L1 * L1 - L2 * L2) / (2 * L1 * L2))
        found = sorted(q[1] for q in result.solutions)
        assert found == pytest.approx([-elbow, elbow], abs=1e-5)
        distances = [np.abs(q - seed).sum() for q in result.solutions]
        assert distances == sorted(distances)


def exhaustive_branches(solver: IkSolver, T: np.ndarray, seed: int) -> int:
    """Return the branches (distinct modulo 2 pi) a 600-restart search finds."""
    options = IkOptions(solution_choice='closest', max_attempts=600, time_budget=60.0,
                        random_seed=seed)
    branches = []
    for q in solver.solve(T, np.zeros(6), options).solutions:
        if not any(np.abs(modulo_turns(q - other)).max() < DISTINCT_TOLERANCE
                   for other in branches):
            branches.append(q)
    return len(branches)


def test_the_ur5_branches_match_an_exhaustive_search_and_max_solutions_is_honoured():
    """Check 30 random UR5 poses: the distinct search finds what 600 restarts find."""
    query, kinematics, mask = query_of('ur5')
    poses, configurations = random_poses(kinematics, 30, seed=2)
    complete = 0
    for index, (T, q_pose) in enumerate(zip(poses, configurations)):
        seed = q_pose + 0.05
        result = query.solve(T, seed, mask, max_solutions=16)
        solutions = result.solutions
        assert result.success and 1 <= len(solutions) <= 8
        for q in solutions:
            assert kinematics.chain.within_limits(q) and residual(kinematics, T, q, mask) < 2e-5
        for i in range(len(solutions)):
            for j in range(i):
                assert np.abs(modulo_turns(solutions[i] - solutions[j])).max() \
                    > DISTINCT_TOLERANCE
        distances = [np.abs(q - seed).sum() for q in solutions]
        assert distances == sorted(distances)
        assert np.abs(solutions[0] - q_pose).max() < 1e-3  # the seed's own branch, nearest
        complete += len(solutions) == exhaustive_branches(query.solver, T, seed=index)
        assert len(query.solve(T, seed, mask, max_solutions=3).solutions) == min(
            3, len(solutions))
    assert complete >= 28  # 95 %: the goal; bench_ik_query.py measures 1000 poses


def test_a_copy_a_turn_away_is_the_one_nearest_the_seed_inside_the_limits():
    """Check the UR5's +-2 pi joints: the solution's copy nearest a seed a turn away."""
    query, kinematics, mask = query_of('ur5')
    q_pose = np.array([-2.5, -1.2, 1.0, -1.4, 1.1, 3.0])
    seed = q_pose + np.array([TWO_PI, 0.0, 0.0, 0.0, 0.0, -TWO_PI]) + 0.01
    result = query.solve(kinematics.tip_pose(q_pose), seed, mask)
    assert result.success
    assert result.solutions[0] == pytest.approx(seed - 0.01, abs=1e-4)
    shifted = query.nearest_copy(np.array([6.0, 0, 0, 0, 0, 0]), np.full(6, -3.0))
    assert shifted[0] == pytest.approx(6.0 - TWO_PI)  # -0.28: the copy inside +-2 pi


def test_a_redundant_arm_returns_solutions_spread_over_its_self_motion():
    """Check the Panda: 6 solutions of one pose, pairwise apart (not one cluster)."""
    query, kinematics, mask = query_of('panda')
    q_pose = np.array([0.3, -0.4, 0.2, -2.0, 0.1, 1.8, 0.6])
    T = kinematics.tip_pose(q_pose)
    result = query.solve(T, q_pose, mask, max_solutions=6)
    assert result.success and len(result.solutions) == 6
    solutions = np.array(result.solutions)
    gaps = [np.abs(solutions[i] - solutions[j]).max() for i in range(6) for j in range(i)]
    assert min(gaps) > 0.2
    assert np.abs(solutions[0] - q_pose).max() < 1e-3


def test_the_timeout_bounds_a_batch_and_bad_poses_fail_alone():
    """Check a batch of out-of-reach poses stops at its timeout; NaN and reach reported."""
    query, kinematics, mask = query_of('planar_2link')
    far = np.eye(4)
    far[0, 3] = 10.0
    hole = np.eye(4)
    hole[0, 3] = 0.2  # inside the inner hole (|L1 - L2| = 0.5 m): no solution, in reach
    nan = np.full((4, 4), math.nan)
    results = query.solve_many([nan, far, hole], np.zeros(2), mask, time_budget=0.01)
    assert [result.problem for result in results] == ['invalid_pose', 'out_of_reach',
                                                      'no_solution']
    assert 'out of reach' in results[1].message
    start = time.perf_counter()
    results = query.solve_many([hole] * 100, np.zeros(2), mask, timeout=0.2,
                               time_budget=0.05)
    elapsed = time.perf_counter() - start
    problems = [result.problem for result in results]
    first_timeout = problems.index('timeout')
    assert set(problems[:first_timeout]) == {'no_solution'}
    assert set(problems[first_timeout:]) == {'timeout'}
    assert first_timeout <= 0.2 / 0.05 + 1
    assert elapsed < 0.2 + 0.1 + 0.05 * 2  # the last pose's budget is what was left


needs_example_robots = pytest.mark.skipif(mesh_search_folder() is None,
                                          reason='example-robot-data is not installed')


@needs_example_robots
def test_collision_check_refuses_solutions_naming_the_pair_and_keeps_free_ones():
    """Check the example UR5 on a floor: below it refused (floor named), free ones free."""
    kinematics, model, _, _ = example_model('ur5')
    query = IkQuery(IkSolver(kinematics))
    check = collision_check(CollisionChecker(model, 0.01, 0.05))
    below = np.eye(4)
    below[:3, :3] = rpy_to_matrix(math.pi, 0.0, 0.0)
    below[:3, 3] = [0.45, 0.15, -0.15]
    seed = np.array([0.0, -1.57, 1.57, -1.57, -1.57, 0.0])
    refused = query.solve(below, seed, max_solutions=8, check=check)
    assert not refused.success and refused.problem == 'refused'
    assert 'floor' in refused.message
    unchecked = query.solve(below, seed, max_solutions=8)
    assert unchecked.success  # the IK exists; only the floor is in the way
    arm = example_arm('ur5')
    reference = ReferenceCollisions(arm.urdf_path, arm.srdf_path, mesh_search_folder(),
                                    kinematics.chain.joint_names)
    above = below.copy()
    above[2, 3] = 0.2  # the tool 20 cm above the floor, pointing down
    free = query.solve(above, seed, max_solutions=8, check=check)
    assert free.success
    assert [reference.colliding(q) for q in free.solutions] == [[]] * len(free.solutions)
    everything = query.solve(above, seed, max_solutions=8)
    assert len(everything.solutions) > len(free.solutions) > 0  # some branches cut the floor
