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
Inverse kinematics with singularity-aware damped least squares and random restarts.

Frames and units: target and tip poses are ``T_base_*`` (4x4, metres) in the chain's base
frame; the task error is ``e = [p_target - p_tip; log(R_target R_tip^T)]`` (m; rad),
linear part first. Selected rows ``mask`` are weighted by ``w = (1, 1, 1, k, k, k)`` with
``k = orientation_weight`` (m/rad), so the solver minimises ``|W e|^2``.

An attempt iterates trust-region damped least-squares steps from one start configuration
(:mod:`ros_ik.kinematics.ik_attempt`, compiled with numba, typically 5-50 us). The first
attempt starts at the seed; when an attempt stalls or runs out of iterations the next one
starts from a random configuration drawn uniformly over each joint range (continuous joints:
-pi..pi), until the time budget is used. The whole range matters: a solution with joints
next to their limits (common on small arms, where the full-pose solution is nearly unique)
is found far sooner from starts near it.

The search ends at the first solution (``solution_choice='first'``) or, for
``'closest'``, when the time budget is used, keeping the solution nearest the seed.
Given ``random_seed`` the sequence of restarts is deterministic.
"""

from dataclasses import dataclass
import math
import time
from typing import List, NamedTuple, Optional, Tuple

import numpy as np

from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.damped_least_squares import DampingSchedule, SEARCH_DAMPING
from ros_ik.kinematics.ik_attempt import (AttemptSettings, DAMPING, ORIENTATION_ERROR,
                                          OUTCOME_COLUMNS, POSITION_ERROR, search,
                                          search_first_of_each)
from ros_ik.kinematics.joint_limits import JointLimits
from ros_ik.kinematics.task_space import FULL_POSE, row_weights

SOLUTION_CHOICES = ('first', 'closest')
# One compiled search call runs at most this many attempts, and starts no new attempt after
# this many iterations (about 0.2-0.5 ms), before the solver looks at the clock again.
CHUNK_ATTEMPTS = 16
CHUNK_ITERATIONS = 100


@dataclass(frozen=True)
class IkOptions:
    """
    Tunable solver settings; tolerances in m and rad, time in s.

    ``damping_error_scale`` is ``e_ref`` (m): the singularity damping is scaled by
    ``min(1, |W e|^2 / e_ref^2)``. ``error_damping`` ``c`` (1/rad^2) adds the
    Levenberg-Marquardt damping ``c |W e|^2`` to ``lam^2`` (Chan & Lawrence 1988): far
    from the target the steps lean toward the gradient, which picks the basin of the
    target's own solution more often; near it the term vanishes quadratically.
    ``max_step`` caps the trust radius (rad or m per joint and iteration). An attempt ends
    after ``max_iterations_per_attempt`` iterations or after ``stall_iterations`` without a
    1 % cost decrease; ``max_attempts`` (None: only the time budget) bounds the attempts.
    ``restart_spread`` (rad or m; None: each whole range) draws the restarts within that
    distance of the seed (each joint, inside its range): a search for solutions near it.
    """

    position_tolerance: float = 1e-6
    orientation_tolerance: float = 1e-5
    orientation_weight: float = 1.0
    mask: Tuple[bool, ...] = FULL_POSE
    damping: DampingSchedule = SEARCH_DAMPING
    damping_error_scale: float = 0.01
    max_step: float = 1.0
    error_damping: float = 0.01
    time_budget: float = 0.005
    max_iterations_per_attempt: int = 60
    stall_iterations: int = 6
    max_attempts: Optional[int] = None
    solution_choice: str = 'first'
    random_seed: int = 0
    restart_spread: Optional[float] = None

    def __post_init__(self) -> None:
        """Reject settings that cannot work, naming the field."""
        if len(self.mask) != 6 or not any(self.mask):
            raise ValueError(f'mask must have 6 entries, at least one True; got {self.mask}')
        if self.solution_choice not in SOLUTION_CHOICES:
            raise ValueError(f'solution_choice must be one of {SOLUTION_CHOICES}, '
                             f'got "{self.solution_choice}"')
        if self.restart_spread is not None and not self.restart_spread > 0.0:
            raise ValueError(f'restart_spread must be > 0 or None, got {self.restart_spread}')
        for name in ('position_tolerance', 'orientation_tolerance', 'orientation_weight',
                     'max_step', 'time_budget', 'damping_error_scale'):
            if not getattr(self, name) > 0.0:
                raise ValueError(f'{name} must be positive, got {getattr(self, name)}')
        if self.max_iterations_per_attempt < 1 or self.stall_iterations < 1:
            raise ValueError('max_iterations_per_attempt and stall_iterations must be >= 1')


class IkResult(NamedTuple):
    """
    Outcome of one solve; ``q`` is always finite and within the joint limits.

    ``solutions``: every converged configuration found (continuous joints wrapped), the
    nearest to the seed first; ``q`` is the first of them on success.

    ``iterations`` counts damped steps over all attempts; errors are unweighted norms over
    the selected rows; ``damping`` (lam) is that of the last step taken (0 when the seed
    already solves the target); ``time`` in s; ``reason`` is empty on success.
    """

    q: np.ndarray
    success: bool
    iterations: int
    restarts: int
    position_error: float
    orientation_error: float
    damping: float
    time: float
    reason: str
    solutions: Tuple[np.ndarray, ...] = ()


class IkSolver:
    """Damped-least-squares IK for one chain; reusable across targets (no per-call state)."""

    def __init__(self, kinematics: ChainKinematics, options: IkOptions = IkOptions()) -> None:
        """Keep the chain's kinematics (shared, read-only); precompute limits and reach."""
        chain = kinematics.chain
        self.chain = chain
        self.kinematics = kinematics
        self.options = options
        self.limits = JointLimits.from_chain(chain, wrap_full_turns=True)
        self._lower = chain.lower
        self._upper = chain.upper
        # Restarts are drawn over each range (continuous joints: all of -pi..pi).
        self._sample_lower, self._sample_upper = chain.sampling_bounds()
        self.reach_origin, self.reach = self._reach_bound()
        kinematics_arrays = (kinematics.A, kinematics.prismatic, kinematics.G_tip)
        self._chain_arrays = kinematics_arrays + (self._lower, self._upper,
                                                  self.limits.wraps_in_range,
                                                  self._sample_lower, self._sample_upper)
        self._last_options: Tuple[Optional[IkOptions], tuple] = (None, ())

    def _reach_bound(self) -> Tuple[np.ndarray, float]:
        """
        Return the first joint origin and an upper bound of the tip's distance from it (m).

        Consecutive joint origins are rigidly ``|p_{j+1} - p_j|`` apart; prismatic ranges add
        their stroke. Only a chain starting with a rotating joint has a fixed origin.
        """
        if self.chain.n_joints == 0 or self.chain.is_prismatic[0]:
            return np.zeros(3), np.inf
        frames = self.kinematics.link_poses(self.chain.middle_configuration())
        T_base_tip = self.kinematics.tip_pose(self.chain.middle_configuration())
        points = np.vstack([frames[1:, :3, 3], T_base_tip[:3, 3]])
        strokes = np.where(self.chain.is_prismatic, self._upper - self._lower, 0.0)
        return points[0], float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum()
                                + strokes.sum())

    def solve(self, T_base_target: np.ndarray, q_seed: np.ndarray,
              options: Optional[IkOptions] = None) -> IkResult:
        """Solve for ``q`` with ``FK(q) = T_base_target`` starting from ``q_seed`` (n,)."""
        options = options or self.options
        start = time.perf_counter()
        deadline = start + options.time_budget
        rows, weights, settings = self._compiled_options(options)
        target = (np.ascontiguousarray(T_base_target, dtype=float), rows, weights)
        q_seed = np.asarray(q_seed, dtype=float)
        n = q_seed.shape[0]
        best = np.full(n + OUTCOME_COLUMNS, np.inf)  # the lowest-cost unconverged outcome
        solutions: List[np.ndarray] = []
        stop_at_first = options.solution_choice == 'first'
        chain_arrays = self._restarts_around(q_seed, options.restart_spread)
        iterations = attempts = 0
        while True:
            chunk_attempts = CHUNK_ATTEMPTS if options.max_attempts is None else min(
                CHUNK_ATTEMPTS, options.max_attempts - attempts)
            found_outcomes = np.empty((chunk_attempts, n + OUTCOME_COLUMNS))
            chunk = (attempts, chunk_attempts, CHUNK_ITERATIONS, int(stop_at_first),
                     options.random_seed)
            used_attempts, used_iterations, found = search(
                q_seed, chain_arrays, target, settings, chunk, found_outcomes, best)
            attempts += used_attempts
            iterations += used_iterations
            solutions.extend(found_outcomes[:found])
            if (stop_at_first and found) or time.perf_counter() >= deadline or (
                    options.max_attempts is not None and attempts >= options.max_attempts):
                break
        ordered = self._by_distance(solutions, q_seed)
        outcome = ordered[0] if solutions else best
        q = self.limits.wrap_continuous(outcome[:n].copy())
        position_error = float(outcome[n + POSITION_ERROR])
        orientation_error = float(outcome[n + ORIENTATION_ERROR])
        reason = '' if solutions else self._failure_reason(
            q, T_base_target, position_error, orientation_error)
        return IkResult(q=q, success=bool(solutions), iterations=iterations,
                        restarts=attempts - 1, position_error=position_error,
                        orientation_error=orientation_error,
                        damping=float(outcome[n + DAMPING]),
                        time=time.perf_counter() - start, reason=reason,
                        solutions=tuple(self.limits.wrap_continuous(row[:n].copy())
                                        for row in ordered))

    def first_solutions(self, T_base_targets: np.ndarray, q_seed: np.ndarray,
                        options: Optional[IkOptions] = None
                        ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """
        Search each target (k, 4, 4) once, in one compiled call: the seed, then restarts.

        Per target one chunk of the search :meth:`solve` runs (``CHUNK_ATTEMPTS`` attempts,
        ``CHUNK_ITERATIONS`` iterations at most, to the first solution; no clock: about
        0.02-0.5 ms per target); what it leaves unsolved, :meth:`solve` can search on. Return
        ``(Q, solved, position_errors, orientation_errors)``: (k, n) joint positions
        (continuous joints wrapped; the closest outcome where unsolved), (k,) bool, and the
        unweighted task errors (k,) in m and rad.
        """
        options = options or self.options
        rows, weights, settings = self._compiled_options(options)
        targets = np.ascontiguousarray(T_base_targets, dtype=float).reshape(-1, 4, 4)
        q_seed = np.asarray(q_seed, dtype=float)
        n = q_seed.shape[0]
        outcomes = np.empty((targets.shape[0], n + OUTCOME_COLUMNS))
        solved = np.zeros(targets.shape[0], dtype=bool)
        search_first_of_each(q_seed, self._restarts_around(q_seed, options.restart_spread),
                             targets, rows, weights, settings,
                             (CHUNK_ATTEMPTS, CHUNK_ITERATIONS, options.random_seed),
                             outcomes, solved)
        Q = self.limits.wrap_continuous(outcomes[:, :n].copy())
        return (Q, solved, outcomes[:, n + POSITION_ERROR].copy(),
                outcomes[:, n + ORIENTATION_ERROR].copy())

    def _restarts_around(self, q_seed: np.ndarray, spread: Optional[float]) -> tuple:
        """
        Return the chain arrays of a search; restarts within ``spread`` of ``q_seed`` if set.

        The box ``[c - spread, c + spread]`` with ``c`` the seed inside the sampling bounds
        (continuous joints wrapped into -pi..pi), intersected with those bounds.
        """
        if spread is None:
            return self._chain_arrays
        centre = np.clip(self.limits.wrap_continuous(q_seed.copy()), self._sample_lower,
                         self._sample_upper)
        return self._chain_arrays[:6] + (np.maximum(self._sample_lower, centre - spread),
                                         np.minimum(self._sample_upper, centre + spread))

    def _compiled_options(self, options: IkOptions) -> Tuple[np.ndarray, np.ndarray,
                                                             np.ndarray]:
        """
        Return the task rows, their weights and the settings array of ``options``.

        Kept for the last options object seen: building them costs more than a fast solve.
        """
        cached_options, compiled = self._last_options
        if options is not cached_options:
            rows = np.flatnonzero(np.array(options.mask))
            weights = row_weights(options.mask, options.orientation_weight)
            compiled = (rows, weights, np.array(self._settings(options), dtype=float))
            self._last_options = (options, compiled)
        return compiled

    @staticmethod
    def _settings(options: IkOptions) -> AttemptSettings:
        """Return the scalar settings of an attempt, tolerances on the weighted errors."""
        orientation_limit = options.orientation_tolerance * options.orientation_weight
        return AttemptSettings(
            singular_value_threshold=options.damping.singular_value_threshold,
            max_damping=options.damping.max_damping,
            damping_error_scale=options.damping_error_scale, max_step=options.max_step,
            position_tolerance_squared=options.position_tolerance ** 2,
            orientation_tolerance_squared=orientation_limit ** 2,
            n_position_rows=int(np.count_nonzero(options.mask[:3])),
            max_iterations=options.max_iterations_per_attempt,
            stall_iterations=options.stall_iterations, error_damping=options.error_damping)

    def _by_distance(self, solutions: List[np.ndarray], q_seed: np.ndarray) -> np.ndarray:
        """Return the solution outcomes (k, n + 4), nearest the seed first (wrapped L1)."""
        if len(solutions) <= 1:
            return np.array(solutions)
        candidates = np.array(solutions)
        n = q_seed.shape[0]
        distance = np.abs(self.limits.wrap_continuous(candidates[:, :n] - q_seed))
        return candidates[np.argsort(distance.sum(axis=1), kind='stable')]

    def out_of_reach_reason(self, T_base_target: np.ndarray, position_error: float) -> str:
        """Return why the target's position is provably out of reach, or '' if it may not be."""
        distance = math.dist(T_base_target[:3, 3].tolist(), self.reach_origin.tolist())
        if distance <= self.reach:
            return ''
        return (f'target out of reach: {distance:.3f} m from the first joint, reach '
                f'{self.reach:.3f} m; closest point {position_error:.3g} m away')

    def _failure_reason(self, q: np.ndarray, T_base_target: np.ndarray,
                        position_error: float, orientation_error: float) -> str:
        """Say why no solution was found, with the distance of the closest pose found."""
        closest = (f'closest pose {position_error:.3g} m and {orientation_error:.3g} rad '
                   'away')
        reach_reason = self.out_of_reach_reason(T_base_target, position_error)
        if reach_reason:
            return reach_reason
        at_limit = (np.isclose(q, self._lower) | np.isclose(q, self._upper)) & np.isfinite(q)
        if at_limit.any():
            names = ', '.join(name for name, hit in zip(self.chain.joint_names, at_limit)
                              if hit)
            return f'joint limits: best attempt ended with {names} at a limit; {closest}'
        return f'time budget exhausted; {closest}'
