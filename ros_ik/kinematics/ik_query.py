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
IK as a query: the solutions of poses, without motion (ROS-free; ``~/solve_ik`` uses it).

Frames and units: targets are ``T_base_target`` (4x4, metres) in the chain's base frame;
joint values in rad or m. :class:`IkQuery` wraps an :class:`IkSolver`:

- one solution (``max_solutions`` 1): a search from the seed (the solution the seed's own
  damped least-squares descent reaches, the nearest in practice), random restarts over the
  joint ranges while it fails, within the time budget;
- several: the *distinct* solutions. Two solutions are one when every joint differs by
  less than ``DISTINCT_TOLERANCE`` (rad or m) with revolute joints compared modulo 2 pi: a
  joint whose range spans more than a turn (a UR arm's +-2 pi) reaches each angle twice, and
  the copy nearest the seed inside the limits stands for both. The search runs random
  restarts over the whole joint ranges in chunks of ``CHUNK_ATTEMPTS`` and stops when
  ``SATURATION_ATTEMPTS`` restarts in a row found nothing new (or at ``MAX_ATTEMPTS``, the
  time budget, or ``CANDIDATES_PER_SOLUTION * max_solutions`` distinct solutions). A 6R arm
  has finitely many solutions (up to 8 branches for a spherical wrist: shoulder left/right,
  elbow up/down, wrist flip), and a restart lands in each branch's basin with a probability
  of a few percent at least, so saturation finds all of them in most poses (measured in
  bench/bench_ik_query.py against a 600-restart search; not a proof). A redundant arm has a
  continuum (the self-motion manifold): every restart adds a solution, and the returned ones
  are a spread over it, picked farthest-point first (each next one the farthest, in the max
  norm of the joint difference, from those picked).

Solutions come nearest the seed first (L1 joint distance). A ``check(q)`` (e.g. the collision
check of :func:`ros_ik.collision.configuration_check.collision_check`) removes solutions it
refuses; a pose whose every solution is refused fails with the reason of the nearest one.
"""

from dataclasses import replace
import math
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ros_ik.kinematics.ik_solver import IkOptions, IkResult, IkSolver
from ros_ik.kinematics.joint_limits import wrapped_difference
from ros_ik.kinematics.task_space import FULL_POSE
from ros_ik.kinematics.transforms import pose_error

DISTINCT_TOLERANCE = 1e-3  # rad or m, every joint: closer solutions count as one
CHUNK_ATTEMPTS = 32  # restarts per solver call of the distinct-solution search
SATURATION_ATTEMPTS = 64  # restarts in a row without a new solution end that search
MAX_ATTEMPTS = 1024  # restarts per pose at most
# The distinct search stops once it holds this many candidates per wanted solution: enough
# to pick a spread from on a redundant arm.
CANDIDATES_PER_SOLUTION = 4
MAX_SOLUTIONS = 64  # the most solutions one pose returns
BATCH_SLICE = 64  # poses per compiled batch call (the clock is read between two)
POSE_TIME_BUDGET = 0.2  # s per pose unless the caller gives one (a hard Panda pose: 51 ms)
TWO_PI = 2.0 * math.pi

# The kinds of failure of a pose: provably beyond the reach (a sphere about the first joint),
# no solution found in the time, every solution refused by the check, not searched before the
# timeout, NaN or inf in the pose.
PROBLEMS = ('out_of_reach', 'no_solution', 'refused', 'timeout', 'invalid_pose')
# Returns '' when a configuration is allowed, else why not (e.g. the pair in collision).
ConfigurationCheck = Callable[[np.ndarray], str]


class PoseSolutions(NamedTuple):
    """
    The IK solutions of one pose.

    ``solutions``: joint vectors (n,), nearest the seed first, pairwise distinct (see the
    module docstring); empty on failure. ``message``: why not (empty on success).
    ``position_error`` (m) and ``orientation_error`` (rad): the residual of the first
    solution, or of the closest pose the search found on failure (NaN when none was
    searched, e.g. a timeout before the pose). ``problem`` names the kind of failure:
    one of ``PROBLEMS`` ('' on success).
    """

    success: bool
    message: str
    solutions: Tuple[np.ndarray, ...]
    position_error: float
    orientation_error: float
    problem: str = ''


class IkQuery:
    """Solutions of poses for one chain, as a query (see the module docstring)."""

    def __init__(self, solver: IkSolver) -> None:
        """Keep the solver; its options (tolerances, damping) apply to every query."""
        self.solver = solver
        chain = solver.chain
        self._revolute = ~chain.is_prismatic
        self._lower, self._upper = chain.lower, chain.upper
        # (mask, time budget) -> the options of a one-solution search: the solver compiles
        # an options object's settings once, which costs as much as a fast solve.
        self._first_options: Dict[Tuple[Tuple[bool, ...], float], IkOptions] = {}

    def solve(self, T_base_target: np.ndarray, q_seed: np.ndarray,
              mask: Tuple[bool, ...] = FULL_POSE, max_solutions: int = 1,
              time_budget: float = POSE_TIME_BUDGET,
              check: Optional[ConfigurationCheck] = None) -> PoseSolutions:
        """
        Return up to ``max_solutions`` distinct solutions of ``T_base_target`` (4x4, base).

        ``q_seed`` (n,): the configuration the solutions are nearest to (and the first
        search's start); ``mask``: the task rows (6 bools, linear first); ``time_budget``
        (s) for this pose; ``check``: refuses configurations (see the module docstring).
        """
        if not np.all(np.isfinite(T_base_target)):
            return PoseSolutions(False, 'the pose is not finite', (), math.nan, math.nan,
                                 'invalid_pose')
        q_seed = np.asarray(q_seed, dtype=float)
        max_solutions = min(max(int(max_solutions), 1), MAX_SOLUTIONS)
        deadline = time.perf_counter() + max(time_budget, 0.0)
        mask = tuple(bool(m) for m in mask)
        if max_solutions == 1:
            first = self.solver.solve(T_base_target, q_seed,
                                      self._first_search(mask, max(time_budget, 1e-6)))
            if not first.success:
                return self._failure(T_base_target, first)
            if check is None or not check(first.q):
                return PoseSolutions(True, '', (self.nearest_copy(first.q, q_seed),),
                                     first.position_error, first.orientation_error)
        options = replace(self.solver.options, mask=mask)
        found, closest = self._distinct_search(T_base_target, q_seed, options, deadline,
                                               max_solutions)
        if not found:
            return self._failure(T_base_target, closest)
        found.sort(key=lambda q: float(np.abs(q - q_seed).sum()))
        refusal = ''
        if check is not None:
            reasons = [check(q) for q in found]
            refusal = reasons[0]
            found = [q for q, reason in zip(found, reasons) if not reason]
        if not found:
            return PoseSolutions(False, f'every solution found is refused: {refusal}', (),
                                 closest.position_error, closest.orientation_error, 'refused')
        return self._found(T_base_target, mask, self._spread(found, max_solutions))

    def solve_many(self, targets: Sequence[np.ndarray], q_seed: np.ndarray,
                   mask: Tuple[bool, ...] = FULL_POSE, max_solutions: int = 1,
                   timeout: float = math.inf, time_budget: float = POSE_TIME_BUDGET,
                   check: Optional[ConfigurationCheck] = None) -> List[PoseSolutions]:
        """
        Return :meth:`solve` of each target (4x4, base frame), in order, within ``timeout``.

        ``timeout`` (s) bounds the whole batch: each pose gets ``time_budget`` or what is
        left, whichever is less; poses not started before it runs out fail with ``timeout``.
        One solution per pose: slices of ``BATCH_SLICE`` poses are searched first in one
        compiled call each (:meth:`IkSolver.first_solutions`, no Python per pose), and only
        the poses it leaves unsolved (or the check refuses) get :meth:`solve`.
        """
        deadline = time.perf_counter() + timeout
        q_seed = np.asarray(q_seed, dtype=float)
        results: List[Optional[PoseSolutions]] = [None] * len(targets)
        if int(max_solutions) <= 1 and len(targets):
            self._first_of_each(targets, q_seed, tuple(bool(m) for m in mask), check,
                                deadline, results)
        for index, T_base_target in enumerate(targets):
            if results[index] is not None:
                continue
            left = deadline - time.perf_counter()
            if left <= 0.0:
                results[index] = PoseSolutions(
                    False, f"timeout: the request's {timeout:g} s were spent before pose "
                           f'{index}', (), math.nan, math.nan, 'timeout')
                continue
            results[index] = self.solve(T_base_target, q_seed, mask, max_solutions,
                                        min(time_budget, left), check)
        return results

    def _first_of_each(self, targets: Sequence[np.ndarray], q_seed: np.ndarray,
                       mask: Tuple[bool, ...], check: Optional[ConfigurationCheck],
                       deadline: float, results: List[Optional[PoseSolutions]]) -> None:
        """Fill ``results`` of the finite targets solved by the compiled batch search."""
        stack = np.asarray(targets, dtype=float).reshape(-1, 4, 4)
        finite = np.flatnonzero(np.isfinite(stack).all(axis=(1, 2)))
        options = self._first_search(mask, POSE_TIME_BUDGET)
        for start in range(0, len(finite), BATCH_SLICE):
            if time.perf_counter() >= deadline:
                return
            indices = finite[start:start + BATCH_SLICE]
            Q, solved, position_errors, orientation_errors = self.solver.first_solutions(
                stack[indices], q_seed, options)
            for row in np.flatnonzero(solved):
                if check is None or not check(Q[row]):
                    results[indices[row]] = PoseSolutions(
                        True, '', (self.nearest_copy(Q[row], q_seed),),
                        float(position_errors[row]), float(orientation_errors[row]))

    def nearest_copy(self, q: np.ndarray, q_seed: np.ndarray) -> np.ndarray:
        """
        Return ``q`` with each revolute joint moved by whole turns to its copy nearest the seed.

        Only copies inside the joint's limits: ``q_j + 2 pi m`` with ``m`` the integer
        nearest ``(seed_j - q_j) / 2 pi`` clipped to ``[(lower - q_j) / 2 pi, (upper - q_j)
        / 2 pi]`` (continuous joints: unbounded). Prismatic joints are unchanged.
        """
        turns = np.round((q_seed - q) / TWO_PI)
        if not turns.any():
            return q
        with np.errstate(invalid='ignore'):  # inf limits of continuous joints
            fewest = np.ceil((self._lower - q) / TWO_PI - 1e-12)
            most = np.floor((self._upper - q) / TWO_PI + 1e-12)
        turns = np.clip(turns, np.nan_to_num(fewest, neginf=-1e9),
                        np.nan_to_num(most, posinf=1e9))
        return q + np.where(self._revolute, turns * TWO_PI, 0.0)

    def same_solution(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Return whether ``a`` and ``b`` count as one solution (revolute modulo 2 pi)."""
        difference = wrapped_difference(a - b, self._revolute)
        return float(np.abs(difference).max(initial=0.0)) < DISTINCT_TOLERANCE

    def _distinct_search(self, T_base_target: np.ndarray, q_seed: np.ndarray,
                         options: IkOptions, deadline: float, max_solutions: int
                         ) -> Tuple[List[np.ndarray], IkResult]:
        """
        Return the distinct solutions found (nearest copies) and the closest outcome.

        Chunks of restarts over the whole ranges, each chunk with its own random seed,
        until saturation, ``MAX_ATTEMPTS``, the deadline or enough candidates.
        """
        found: List[np.ndarray] = []
        closest: Optional[IkResult] = None
        attempts = since_new = 0
        wanted = CANDIDATES_PER_SOLUTION * max_solutions
        while True:
            left = deadline - time.perf_counter()
            result = self.solver.solve(T_base_target, q_seed, replace(
                options, solution_choice='closest', max_attempts=CHUNK_ATTEMPTS,
                time_budget=max(left, 1e-6), random_seed=options.random_seed + attempts))
            if closest is None or _cost(result) < _cost(closest):
                closest = result
            attempts += CHUNK_ATTEMPTS
            since_new += CHUNK_ATTEMPTS
            for q in result.solutions:
                if not any(self.same_solution(q, other) for other in found):
                    found.append(self.nearest_copy(q, q_seed))
                    since_new = 0
            if (since_new >= SATURATION_ATTEMPTS or attempts >= MAX_ATTEMPTS
                    or len(found) >= wanted or time.perf_counter() >= deadline):
                return found, closest

    @staticmethod
    def _spread(found: List[np.ndarray], count: int) -> List[np.ndarray]:
        """
        Return ``count`` of ``found`` (nearest the seed first): the first, then farthest picks.

        All of them when there are no more than ``count``.
        """
        if len(found) <= count:
            return found
        candidates = np.array(found)
        picked = [0]
        gap = np.abs(candidates - candidates[0]).max(axis=1)
        while len(picked) < count:
            index = int(np.argmax(gap))
            picked.append(index)
            gap = np.minimum(gap, np.abs(candidates - candidates[index]).max(axis=1))
        return [found[index] for index in sorted(picked)]

    def _failure(self, T_base_target: np.ndarray, closest: IkResult) -> PoseSolutions:
        """Return the failure of a search that found no solution: out of reach or none."""
        problem = ('out_of_reach' if self.solver.out_of_reach_reason(T_base_target, 0.0)
                   else 'no_solution')
        return PoseSolutions(False, closest.reason, (), closest.position_error,
                             closest.orientation_error, problem)

    def _first_search(self, mask: Tuple[bool, ...], time_budget: float) -> IkOptions:
        """Return the options of a one-solution search (made once per mask and budget)."""
        key = (mask, time_budget)
        options = self._first_options.get(key)
        if options is None:
            if len(self._first_options) > 64:
                self._first_options.clear()
            options = self._first_options[key] = replace(
                self.solver.options, mask=mask, solution_choice='first',
                time_budget=time_budget)
        return options

    def _found(self, T_base_target: np.ndarray, mask: Tuple[bool, ...],
               solutions: List[np.ndarray]) -> PoseSolutions:
        """Return the successful result, with the residual errors of the first solution."""
        e_p, e_o = pose_error(T_base_target, self.solver.kinematics.tip_pose(solutions[0]))
        return PoseSolutions(True, '', tuple(solutions),
                             float(np.linalg.norm(np.where(mask[:3], e_p, 0.0))),
                             float(np.linalg.norm(np.where(mask[3:], e_o, 0.0))))


def _cost(result: IkResult) -> Tuple[bool, float]:
    """Return a sort key: solved first, then the smaller residual (m + rad)."""
    return (not result.success, result.position_error + result.orientation_error)
