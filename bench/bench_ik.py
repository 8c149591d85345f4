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
IK benchmark: ros_ik against TRAC-IK, roboticstoolbox ``ik_LM`` and ikpy on the same targets.

Protocol (TRAC-IK's): draw N configurations uniformly within the joint limits (fixed seed),
take their FK poses as targets, solve each from the middle of the joint ranges and, as a
second table, from a random configuration. Every answer is scored by the same independent
check, Pinocchio's FK: position error < 1e-5 m, rotation error < 1e-4 rad, all joints
within limits. Times include failures at their full duration.

Peers are optional (``make bench`` tries to install them) and each is given a tolerance
that implies the criterion: TRAC-IK ``eps = 1e-6`` (it bounds each twist component),
roboticstoolbox ``tol = 1e-12`` (it bounds ``0.5 |e|^2``); TRAC-IK gets the URDF's limits
explicitly. ikpy has no time budget and is slow, so it runs on the first ``--ikpy-count``
targets only. Run: ``.venv/bin/python bench/bench_ik.py [--count N] [--arms ur5 panda]``.
"""

import argparse
from dataclasses import dataclass
import os
import re
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional, Tuple
import warnings

import numpy as np
import pinocchio

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path  # noqa: E402
from ros_ik.kinematics.chain import Chain  # noqa: E402
from ros_ik.kinematics.chain_kinematics import ChainKinematics  # noqa: E402
from ros_ik.kinematics.ik_solver import IkOptions, IkSolver  # noqa: E402
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels  # noqa: E402
from ros_ik.kinematics.task_space import FULL_POSE  # noqa: E402
from ros_ik.kinematics.transforms import matrix_to_quaternion, pose_error  # noqa: E402
from ros_ik.kinematics.urdf_loader import load_urdf_file  # noqa: E402

POSITION_CRITERION = 1e-5
ROTATION_CRITERION = 1e-4
# A solver answers (q or None, iterations or None, restarts or None).
Answer = Tuple[Optional[np.ndarray], Optional[float], Optional[float]]
SolveFunction = Callable[[np.ndarray, np.ndarray], Answer]


@dataclass
class Scores:
    """Per-target outcomes of one solver on one table."""

    successes: List[bool]
    times: List[float]
    iterations: List[float]
    restarts: List[float]


class PinocchioCheck:
    """The independent scorer: Pinocchio FK of the tip link and the URDF limits."""

    def __init__(self, urdf_path: str, tip_link: str, chain: Chain,
                 mask: Tuple[bool, ...] = FULL_POSE) -> None:
        """
        Build the Pinocchio model of ``urdf_path``; ``mask``: the task rows scored.

        Joints off the chain (a gripper's fingers) stay at Pinocchio's neutral position; a
        continuous joint is Pinocchio's (cos, sin) pair. The tip is scored in the chain's
        base link (Pinocchio's poses are in the URDF's root link).
        """
        self.model = pinocchio.buildModelFromUrdf(urdf_path)
        self.data = self.model.createData()
        self.frame_id = self.model.getFrameId(tip_link)
        self.base_frame_id = self.model.getFrameId(chain.base_link)
        self.chain = chain
        self.mask = np.array(mask)
        joints = [self.model.joints[self.model.getJointId(name)] for name in chain.joint_names]
        self._slots = [(joint.idx_q, joint.nq) for joint in joints]

    def root_from_base(self) -> np.ndarray:
        """Return the base link's pose (4x4) in the URDF's root link (neutral joints)."""
        pinocchio.framesForwardKinematics(self.model, self.data, pinocchio.neutral(self.model))
        return self.data.oMf[self.base_frame_id].homogeneous.copy()

    def configuration(self, q: np.ndarray) -> np.ndarray:
        """Return Pinocchio's configuration vector of the chain's joint positions ``q``."""
        q_model = pinocchio.neutral(self.model)
        for value, (index, size) in zip(q, self._slots):
            q_model[index:index + size] = ((value,) if size == 1
                                           else (np.cos(value), np.sin(value)))
        return q_model

    def accepts(self, q: Optional[np.ndarray], T_base_target: np.ndarray) -> bool:
        """Return whether ``q`` reaches the target within the criterion and the limits."""
        if q is None or not np.all(np.isfinite(q)) or not self.chain.within_limits(q):
            return False
        pinocchio.framesForwardKinematics(self.model, self.data, self.configuration(q))
        T_base_tip = (self.data.oMf[self.base_frame_id].inverse()
                      * self.data.oMf[self.frame_id]).homogeneous
        e_p, e_o = pose_error(T_base_target, T_base_tip)
        return (np.linalg.norm(np.where(self.mask[:3], e_p, 0.0)) < POSITION_CRITERION
                and np.linalg.norm(np.where(self.mask[3:], e_o, 0.0)) < ROTATION_CRITERION)


def ros_ik_solver(chain: Chain, budget: float) -> SolveFunction:
    """Return ros_ik's solve function (default options, ``budget`` seconds)."""
    solver = IkSolver(ChainKinematics(chain), IkOptions(time_budget=budget))

    def solve(T_base_target: np.ndarray, q_seed: np.ndarray) -> Answer:
        result = solver.solve(T_base_target, q_seed)
        return (result.q if result.success else None, result.iterations, result.restarts)
    return solve


def trac_ik_solver(urdf_path: str, arm_name: str, chain: Chain, budget: float
                   ) -> SolveFunction:
    """Return TRAC-IK's (pytracik) solve function, limits passed from the URDF."""
    import pytracik
    arm = BUNDLED_ARMS[arm_name]
    with open(urdf_path, encoding='utf-8') as urdf_file:
        solver = pytracik.TRAC_IK(arm.base_link, arm.tip_link, urdf_file.read(), budget,
                                  1e-6, pytracik.SolveType.Speed)
    pytracik.set_joint_limits(solver, list(chain.lower), list(chain.upper))

    def solve(T_base_target: np.ndarray, q_seed: np.ndarray) -> Answer:
        x, y, z = T_base_target[:3, 3]
        qx, qy, qz, qw = matrix_to_quaternion(T_base_target[:3, :3])
        answer = pytracik.ik(solver, q_seed, x, y, z, qx, qy, qz, qw)
        return (np.array(answer[1:]) if answer[0] >= 0 else None, None, None)
    return solve


def robotics_toolbox_solver(urdf_path: str, base_link: str, tip_link: str,
                            mask: Tuple[bool, ...] = FULL_POSE,
                            T_root_base: Optional[np.ndarray] = None) -> SolveFunction:
    """
    Return roboticstoolbox-python's C++ ``ik_LM`` (Levenberg-Marquardt, Chan) solve.

    The URDF is read without its visual and collision elements (roboticstoolbox resolves
    their ``package://`` meshes through a ROS install's ament index, which the wheels lack).
    ``mask``: the task rows, as ik_LM's ``mask`` weights. ik_LM takes targets in the URDF's
    root link (also given ``start``): a base-frame target is sent as ``T_root_base T``.
    """
    import roboticstoolbox
    with open(urdf_path, encoding='utf-8') as urdf_file:
        text = re.sub(r'<(visual|collision)\b.*?</\1>', '', urdf_file.read(), flags=re.S)
    bare_path = os.path.join(tempfile.mkdtemp(), os.path.basename(urdf_path))
    with open(bare_path, 'w', encoding='utf-8') as bare_file:
        bare_file.write(text)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        robot = roboticstoolbox.Robot.URDF(bare_path)
    weights = np.array(mask, dtype=float)
    T_root_base = np.eye(4) if T_root_base is None else T_root_base

    def solve(T_base_target: np.ndarray, q_seed: np.ndarray) -> Answer:
        solution = robot.ik_LM(T_root_base @ T_base_target, end=tip_link, start=base_link,
                               q0=q_seed,
                               tol=1e-12, mask=weights, joint_limits=True)
        return (np.array(solution.q) if solution.success else None,
                float(solution.iterations), float(solution.searches - 1))
    return solve


def ikpy_solver(urdf_path: str, arm_name: str, chain: Chain) -> SolveFunction:
    """Return ikpy's full-pose solve (scipy optimiser) on the same chain."""
    import ikpy.chain
    arm = BUNDLED_ARMS[arm_name]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ik_chain = ikpy.chain.Chain.from_urdf_file(urdf_path, base_elements=[arm.base_link])
    names = [link.name for link in ik_chain.links]
    active = np.array([name in chain.joint_names for name in names])
    ik_chain.active_links_mask = active

    def solve(T_base_target: np.ndarray, q_seed: np.ndarray) -> Answer:
        initial = np.zeros(len(names))
        initial[active] = q_seed
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            full = ik_chain.inverse_kinematics_frame(T_base_target, initial_position=initial,
                                                     orientation_mode='all')
        return (np.asarray(full)[active], None, None)
    return solve


def peer_solvers(urdf_path: str, arm_name: str, chain: Chain, budget: float
                 ) -> Dict[str, Tuple[Optional[SolveFunction], str]]:
    """Return each peer's solve function, or None with the reason it is unavailable."""
    makers = {
        'TRAC-IK': lambda: trac_ik_solver(urdf_path, arm_name, chain, budget),
        'rtb ik_LM': lambda: robotics_toolbox_solver(urdf_path, BUNDLED_ARMS[arm_name].base_link,
                                                     BUNDLED_ARMS[arm_name].tip_link),
        'ikpy': lambda: ikpy_solver(urdf_path, arm_name, chain),
    }
    peers = {}
    for name, make in makers.items():
        try:
            peers[name] = (make(), '')
        except Exception as error:  # noqa: B902 - an optional peer may fail in any way
            peers[name] = (None, f'{type(error).__name__}: {error}')
    return peers


def run_table(solve: SolveFunction, check: PinocchioCheck, targets: np.ndarray,
              seeds: np.ndarray) -> Scores:
    """Solve every target from its seed; time and score each answer."""
    scores = Scores([], [], [], [])
    for T_base_target, q_seed in zip(targets, seeds):
        start = time.perf_counter()
        q, iterations, restarts = solve(T_base_target, q_seed)
        scores.times.append(time.perf_counter() - start)
        scores.successes.append(check.accepts(q, T_base_target))
        scores.iterations.append(np.nan if iterations is None else iterations)
        scores.restarts.append(np.nan if restarts is None else restarts)
    return scores


def iteration_costs(chain: Chain, targets: np.ndarray, seeds: np.ndarray,
                    budget: float) -> Tuple[float, float]:
    """
    Return ros_ik's cost per damped step and per solve outside the steps (both in us).

    Per solve: the median time of solves whose seed already meets the target (no step:
    the Python call, the compiled call, one FK and the result). Per step: the time of the
    random-seed solves beyond that, divided by their steps.
    """
    kinematics = ChainKinematics(chain)
    solver = IkSolver(kinematics, IkOptions(time_budget=budget))
    overheads = [solver.solve(kinematics.tip_pose(q), q).time for q in seeds]
    overhead = float(np.median(overheads))
    results = [solver.solve(T, q) for T, q in zip(targets, seeds)]
    step_time = sum(result.time for result in results) - overhead * len(results)
    return 1e6 * step_time / max(sum(result.iterations for result in results), 1), 1e6 * overhead


def format_row(arm: str, solver: str, scores: Scores) -> str:
    """Return one table row: success %, mean/median/p95 ms, mean iterations/restarts."""
    times = np.array(scores.times) * 1e3
    iterations = np.array(scores.iterations)
    restarts = np.array(scores.restarts)
    mean_iterations = '-' if np.all(np.isnan(iterations)) else f'{np.nanmean(iterations):.1f}'
    mean_restarts = '-' if np.all(np.isnan(restarts)) else f'{np.nanmean(restarts):.2f}'
    return (f'{arm:<13}{solver:<11}{len(times):>6}{100.0 * np.mean(scores.successes):>9.2f}'
            f'{times.mean():>9.3f}{np.median(times):>9.3f}{np.percentile(times, 95):>9.3f}'
            f'{mean_iterations:>8}{mean_restarts:>9}')


def main() -> None:
    """Run both tables for every arm and print them."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--count', type=int, default=10000, help='targets per arm')
    parser.add_argument('--ikpy-count', type=int, default=100, help='targets given to ikpy')
    parser.add_argument('--budget', type=float, default=0.005, help='time budget [s]')
    parser.add_argument('--arms', nargs='+', default=sorted(BUNDLED_ARMS),
                        choices=sorted(BUNDLED_ARMS))
    parser.add_argument('--seed', type=int, default=42, help='random seed of the targets')
    args = parser.parse_args()
    warm_up_kernels()  # compile (first run) or load the numba kernels before any timing
    header = (f'{"arm":<13}{"solver":<11}{"N":>6}{"success%":>9}{"mean ms":>9}'
              f'{"median":>9}{"p95":>9}{"iters":>8}{"restarts":>9}')
    tables: Dict[str, List[str]] = {'from mid-range seed': [], 'from random seed': []}
    costs: List[str] = []
    for arm_name in args.arms:
        arm = BUNDLED_ARMS[arm_name]
        urdf_path = bundled_urdf_path(arm_name)
        chain = load_urdf_file(urdf_path, arm.base_link, arm.tip_link)
        check = PinocchioCheck(urdf_path, arm.tip_link, chain)
        rng = np.random.default_rng(args.seed)
        configurations = rng.uniform(chain.lower, chain.upper,
                                     size=(args.count, chain.n_joints))
        targets = ChainKinematics(chain).tip_pose(configurations)
        seeds = {'from mid-range seed': np.tile(chain.middle_configuration(),
                                                (args.count, 1)),
                 'from random seed': rng.uniform(chain.lower, chain.upper,
                                                 size=(args.count, chain.n_joints))}
        per_step, per_solve = iteration_costs(chain, targets[:1000],
                                              seeds['from random seed'][:1000], args.budget)
        costs.append(f'{arm_name:<14}{chain.n_joints:>7}{per_step:>12.2f}{per_solve:>12.1f}')
        solvers = {'ros_ik': (ros_ik_solver(chain, args.budget), '')}
        solvers.update(peer_solvers(urdf_path, arm_name, chain, args.budget))
        for table, table_seeds in seeds.items():
            for solver_name, (solve, reason) in solvers.items():
                if solve is None:
                    tables[table].append(f'{arm_name:<13}{solver_name:<11} not run: {reason}')
                    continue
                count = args.ikpy_count if solver_name == 'ikpy' else args.count
                scores = run_table(solve, check, targets[:count], table_seeds[:count])
                tables[table].append(format_row(arm_name, solver_name, scores))
                print(f'# done: {arm_name} {solver_name} {table}', file=sys.stderr, flush=True)
    print('\nros_ik cost per damped step and per solve outside the steps (1000 targets)')
    print(f'{"arm":<14}{"joints":>7}{"us/step":>12}{"us/solve":>12}')
    print('\n'.join(costs))
    for table, rows in tables.items():
        print(f'\nIK {table} (budget {args.budget * 1e3:.1f} ms; success = position '
              f'< {POSITION_CRITERION:g} m, rotation < {ROTATION_CRITERION:g} rad, in limits)')
        print(header)
        print('\n'.join(rows))


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_ik', main)
