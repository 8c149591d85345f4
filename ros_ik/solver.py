"""
Iterative inverse kinematics with singularity-aware damped least squares (pure numpy).

Frames and units: target and tip poses are ``T_base_*`` (4x4, metres) in the chain's base
frame; the task error is ``e = [p_target - p_tip; log(R_target R_tip^T)]`` (m; rad),
linear part first. Selected rows ``mask`` are weighted by ``w = (1, 1, 1, k, k, k)`` with
``k = orientation_weight`` (m/rad), so the solver minimises ``|W e|^2``.

One iteration, for every configuration in the batch at once:

1. ``dq = J_w^T (J_w J_w^T + lam^2 I)^-1 W e`` (:mod:`ros_ik.damped_least_squares`), with
   joints held that sit at a bound and push outward (re-solved without them). The
   singularity damping ``lam^2(sigma_min)`` is scaled by ``min(1, |W e| / e_ref)``
   (Levenberg-Marquardt style), so a solution next to a singularity is still reached at
   a Gauss-Newton rate while large errors near singularities stay damped;
2. trust region: ``dq`` scaled so ``max |dq_j| <= radius`` (rad or m);
3. scaled to the joint limits, keeping its direction; full-turn joints wrap instead
   (:mod:`ros_ik.joint_limits`);
4. accepted if ``|W e|`` decreased (radius doubles, up to ``max_step``), else rejected
   (radius / 4). ``batch_size`` attempts run side by side: the seed and random
   configurations from the central 80 % of each joint range; an attempt that stalls is
   replaced by a new random one.

The search ends at the first solution (``solution_choice='first'``) or, for
``'closest'``, when the time budget is used, keeping the solution nearest the seed.
Given ``random_seed`` the sequence of restarts is deterministic.
"""

from dataclasses import dataclass, field
import time
from typing import List, Optional, Tuple

import numpy as np

from ros_ik.chain import Chain
from ros_ik.damped_least_squares import damped_step, DampingSchedule
from ros_ik.joint_limits import JointLimits
from ros_ik.kinematics import ChainKinematics
from ros_ik.transforms import pose_error, rotation_vector

FULL_POSE = (True, True, True, True, True, True)
POSITION_ONLY = (True, True, True, False, False, False)
SOLUTION_CHOICES = ('first', 'closest')
# Fraction of each joint range (centred) that random restarts are drawn from.
RESTART_RANGE_FRACTION = 0.8


@dataclass(frozen=True)
class IkOptions:
    """Tunable solver settings; tolerances in m and rad, time in s."""

    position_tolerance: float = 1e-6
    orientation_tolerance: float = 1e-5
    orientation_weight: float = 1.0
    mask: Tuple[bool, ...] = FULL_POSE
    damping: DampingSchedule = field(default_factory=DampingSchedule)
    damping_error_scale: float = 0.01
    max_step: float = 1.0
    time_budget: float = 0.005
    max_iterations_per_attempt: int = 60
    stall_iterations: int = 6
    batch_size: int = 8
    max_attempts: Optional[int] = None
    solution_choice: str = 'first'
    random_seed: int = 0

    def __post_init__(self) -> None:
        """Reject settings that cannot work, naming the field."""
        if len(self.mask) != 6 or not any(self.mask):
            raise ValueError(f'mask must have 6 entries, at least one True; got {self.mask}')
        if self.solution_choice not in SOLUTION_CHOICES:
            raise ValueError(f'solution_choice must be one of {SOLUTION_CHOICES}, '
                             f'got "{self.solution_choice}"')
        for name in ('position_tolerance', 'orientation_tolerance', 'orientation_weight',
                     'max_step', 'time_budget', 'damping_error_scale'):
            if not getattr(self, name) > 0.0:
                raise ValueError(f'{name} must be positive, got {getattr(self, name)}')
        if self.batch_size < 1 or self.max_iterations_per_attempt < 1:
            raise ValueError('batch_size and max_iterations_per_attempt must be >= 1')

    @property
    def row_weights(self) -> np.ndarray:
        """Return the weights of the selected task rows (position 1, rotation k)."""
        weights = np.array([1.0, 1.0, 1.0] + [self.orientation_weight] * 3)
        return weights[np.array(self.mask)]


@dataclass(frozen=True)
class IkResult:
    """Outcome of one solve; ``q`` is always finite and within the joint limits."""

    q: np.ndarray
    success: bool
    iterations: int
    restarts: int
    position_error: float
    orientation_error: float
    sigma_min: float
    damping: float
    time: float
    reason: str


@dataclass
class _Batch:
    """Per-attempt scratch state of the configurations iterated side by side."""

    q: np.ndarray
    error: np.ndarray
    J_task: np.ndarray
    cost: np.ndarray
    radius: np.ndarray
    iterations: np.ndarray
    stalled_for: np.ndarray


BATCH_FIELDS = ('q', 'error', 'J_task', 'cost', 'radius', 'iterations', 'stalled_for')


class IkSolver:
    """Damped-least-squares IK for one chain; reusable across targets (no per-call state)."""

    def __init__(self, chain: Chain, options: IkOptions = IkOptions()) -> None:
        """Precompute the chain's kinematics, limits and reach bound."""
        self.chain = chain
        self.kinematics = ChainKinematics(chain)
        self.options = options
        self.limits = JointLimits.from_chain(chain, wrap_full_turns=True)
        self._lower = chain.lower
        self._upper = chain.upper
        # Restarts are drawn from the central part of each range: attempts started at a
        # limit mostly stall there (continuous joints: all of -pi..pi).
        middle = chain.middle_configuration()
        bounded_span = np.where(chain.is_continuous, 0.0, self._upper - self._lower)
        half_range = np.where(chain.is_continuous, np.pi,
                              0.5 * RESTART_RANGE_FRACTION * bounded_span)
        self._sample_lower = middle - half_range
        self._sample_upper = middle + half_range
        self.reach_origin, self.reach = self._reach_bound()

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
        rng = np.random.default_rng(options.random_seed)
        rows = np.flatnonzero(np.array(options.mask))
        weights = options.row_weights
        q_seed = np.clip(np.asarray(q_seed, dtype=float), self._lower, self._upper)
        q_start = np.vstack([q_seed, self._random_configurations(rng, options.batch_size - 1)])
        batch = self._new_batch(q_start, T_base_target, rows, weights, options)
        solutions: List[np.ndarray] = []
        best_q, best_cost = batch.q[0].copy(), float(batch.cost[0])
        iterations = restarts = 0
        attempts = options.batch_size
        last_sigma = last_damping = 0.0
        while True:
            converged = self._converged(batch, rows, options)
            for index in np.flatnonzero(converged):
                solutions.append(batch.q[index].copy())
            if solutions and options.solution_choice == 'first':
                break
            if time.perf_counter() >= deadline:
                break
            finished = converged | (batch.stalled_for >= options.stall_iterations) | (
                batch.iterations >= options.max_iterations_per_attempt)
            if finished.any():
                index = int(np.argmin(batch.cost))
                if batch.cost[index] < best_cost:
                    best_q, best_cost = batch.q[index].copy(), float(batch.cost[index])
                if options.max_attempts is not None and attempts >= options.max_attempts:
                    break
                new_rows = options.batch_size - len(batch.q) + int(finished.sum())
                kept = ~finished
                q_new = self._random_configurations(rng, new_rows)
                restarts += new_rows
                attempts += new_rows
                batch = self._merge(batch, kept, q_new, T_base_target, rows, weights, options)
            last_sigma, last_damping = self._iterate(batch, T_base_target, rows, weights,
                                                     options)
            iterations += 1
        return self._result(solutions, best_q, best_cost, batch, q_seed, T_base_target,
                            options, iterations, restarts, time.perf_counter() - start,
                            last_sigma, last_damping)

    def _random_configurations(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """Return ``count`` configurations drawn uniformly within the limits (count, n)."""
        return rng.uniform(self._sample_lower, self._sample_upper,
                           size=(count, self.chain.n_joints))

    def _task_error_and_jacobian(self, q: np.ndarray, T_base_target: np.ndarray,
                                 rows: np.ndarray, weights: np.ndarray
                                 ) -> Tuple[np.ndarray, np.ndarray]:
        """Return ``W e`` (b, m) and ``W J`` (b, m, n) of the selected rows at ``q`` (b, n)."""
        T_base_tip, J = self.kinematics.tip_pose_and_jacobian(q)
        error = np.empty((len(q), 6))
        error[:, :3] = T_base_target[:3, 3] - T_base_tip[:, :3, 3]
        error[:, 3:] = rotation_vector(T_base_target[:3, :3]
                                       @ np.swapaxes(T_base_tip[:, :3, :3], -1, -2))
        if len(rows) < 6:
            error, J = error[:, rows], J[:, rows, :]
        if (weights != 1.0).any():
            error, J = error * weights, J * weights[:, None]
        return error, J

    def _new_batch(self, q: np.ndarray, T_base_target: np.ndarray, rows: np.ndarray,
                   weights: np.ndarray, options: IkOptions) -> _Batch:
        """Return fresh scratch state for starting configurations ``q`` (b, n)."""
        error, J_task = self._task_error_and_jacobian(q, T_base_target, rows, weights)
        count = len(q)
        return _Batch(q=q, error=error, J_task=J_task,
                      cost=np.einsum('bi,bi->b', error, error),
                      radius=np.full(count, options.max_step),
                      iterations=np.zeros(count, dtype=int),
                      stalled_for=np.zeros(count, dtype=int))

    def _merge(self, batch: _Batch, kept: np.ndarray, q_new: np.ndarray,
               T_base_target: np.ndarray, rows: np.ndarray, weights: np.ndarray,
               options: IkOptions) -> _Batch:
        """Keep the unfinished attempts of ``batch`` and append fresh ones from ``q_new``."""
        fresh = self._new_batch(q_new, T_base_target, rows, weights, options)
        return _Batch(*(np.concatenate([getattr(batch, name)[kept], getattr(fresh, name)])
                        for name in BATCH_FIELDS))

    def _iterate(self, batch: _Batch, T_base_target: np.ndarray, rows: np.ndarray,
                 weights: np.ndarray, options: IkOptions) -> Tuple[float, float]:
        """Take one trust-region DLS step for every attempt in ``batch`` (in place)."""
        damping_scale = np.minimum(1.0, np.sqrt(batch.cost) / options.damping_error_scale)
        step = damped_step(batch.J_task, batch.error, options.damping,
                           damping_scale=damping_scale)
        held = self.limits.outward_at_bound(batch.q, step.dq)
        dq = step.dq
        rows_holding = np.flatnonzero(held.any(axis=1))
        if rows_holding.size:
            resolved = damped_step(batch.J_task[rows_holding], batch.error[rows_holding],
                                   options.damping, active=~held[rows_holding],
                                   damping_scale=damping_scale[rows_holding])
            dq[rows_holding] = resolved.dq
        largest = np.abs(dq).max(axis=1)
        dq = dq * np.minimum(1.0, batch.radius / np.maximum(largest, 1e-300))[:, None]
        q_trial = self.limits.apply_step(batch.q, dq)
        trial_error, trial_J = self._task_error_and_jacobian(q_trial, T_base_target, rows,
                                                             weights)
        trial_cost = np.einsum('bi,bi->b', trial_error, trial_error)
        accepted = trial_cost < batch.cost
        progressing = accepted & (trial_cost < 0.99 * batch.cost)
        batch.q[accepted] = q_trial[accepted]
        batch.error[accepted] = trial_error[accepted]
        batch.J_task[accepted] = trial_J[accepted]
        batch.cost[accepted] = trial_cost[accepted]
        batch.radius = np.where(accepted, np.minimum(2.0 * batch.radius, options.max_step),
                                0.25 * batch.radius)
        batch.stalled_for = np.where(progressing, 0, batch.stalled_for + 1)
        batch.iterations += 1
        return float(step.sigma_min[0]), float(step.damping[0])

    def _converged(self, batch: _Batch, rows: np.ndarray, options: IkOptions) -> np.ndarray:
        """Return which attempts meet both tolerances, from their weighted task errors."""
        squared = batch.error * batch.error
        n_position = int(np.count_nonzero(rows < 3))
        position_squared = squared[:, :n_position].sum(axis=1)
        orientation_squared = squared[:, n_position:].sum(axis=1)
        orientation_limit = options.orientation_tolerance * options.orientation_weight
        return ((position_squared <= options.position_tolerance ** 2)
                & (orientation_squared <= orientation_limit ** 2))

    def _pose_errors(self, q: np.ndarray, T_base_target: np.ndarray,
                     options: IkOptions) -> Tuple[float, float]:
        """Return unweighted position (m) and orientation (rad) error norms on the mask."""
        e_p, e_o = pose_error(T_base_target, self.kinematics.tip_pose(q))
        mask = np.array(options.mask)
        return float(np.linalg.norm(e_p * mask[:3])), float(np.linalg.norm(e_o * mask[3:]))

    def _result(self, solutions: List[np.ndarray], best_q: np.ndarray, best_cost: float,
                batch: _Batch, q_seed: np.ndarray, T_base_target: np.ndarray,
                options: IkOptions, iterations: int, restarts: int, elapsed: float,
                sigma_min: float, damping: float) -> IkResult:
        """Pick the reported configuration and explain a failure."""
        if solutions:
            candidates = np.array(solutions)
            distance = np.abs(self.limits.wrap_continuous(candidates - q_seed))
            q = candidates[int(np.argmin(distance.sum(axis=1)))]
        else:
            index = int(np.argmin(batch.cost))
            q = batch.q[index] if batch.cost[index] < best_cost else best_q
        q = self.limits.wrap_continuous(q)
        position_error, orientation_error = self._pose_errors(q, T_base_target, options)
        reason = '' if solutions else self._failure_reason(
            q, T_base_target, position_error, orientation_error)
        return IkResult(q=q, success=bool(solutions), iterations=iterations,
                        restarts=restarts, position_error=position_error,
                        orientation_error=orientation_error, sigma_min=sigma_min,
                        damping=damping, time=elapsed, reason=reason)

    def out_of_reach_reason(self, T_base_target: np.ndarray, position_error: float) -> str:
        """Return why the target's position is provably out of reach, or '' if it may not be."""
        distance = float(np.linalg.norm(T_base_target[:3, 3] - self.reach_origin))
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
