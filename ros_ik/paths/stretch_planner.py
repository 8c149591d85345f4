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
One stretch of a Cartesian path (rest to rest), planned: joints, checks, stop, timing.

1. **Joints** along ``[s_start, s_end]`` by continuation from the joints at the start
   (:mod:`ros_ik.paths.path_tracing`). Where the branch cannot go on the stretch ends
   before the problem: exactly at a joint's limit; ``SINGULAR_MARGIN`` of path before a
   singular configuration or the edge of the reachable poses (an IK search from the last
   joints tells which).
2. **Deviation**: the spline through the samples (:class:`JointPath`) is checked by forward
   kinematics at the quarter points of every interval; an interval off the path by more
   than ``CHECK_SHARE`` of the tolerance gets an exact sample at its middle, until none is.
   Commands are sampled from this spline, so every command is on the path to the checked
   deviation (the node measures it again at every command).
3. **Collisions** (with a :class:`CollisionChecker`): the spline sampled so that no point
   of the robot moves more than the resolution between samples, each interval's joint
   motion bounded by ``|q'|max ds`` (:mod:`ros_ik.paths.path_clearance`); the stretch ends
   where it can no longer be proven free, within about ``FINE_SPACING`` of the contact.
4. **Timing** from rest to rest (:class:`StretchTiming`).
"""

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.ik_solver import IkOptions, IkSolver
from ros_ik.kinematics.transforms import pose_error
from ros_ik.paths.joint_path import JointPath
from ros_ik.paths.path_clearance import free_until
from ros_ik.paths.path_geometry import CartesianPath
from ros_ik.paths.path_timing import Caps, StretchTiming
from ros_ik.paths.path_tracing import (BLOCKED, FULL, JOINT_LIMIT, joint_rate,
                                       NEWTON_ITERATIONS, solve_on_path, trace_joints)
from ros_ik.trajectory.motion_limits import MotionLimits

SINGULAR_MARGIN = 5e-4  # m of path: a stretch ends this far before where the branch fails
CHECK_SHARE = 0.02  # of the deviation tolerance allowed at the spline's check points
REFINE_ROUNDS = 8
FIRST_STEP, MAX_STEP, MIN_STEP = 0.005, 0.02, 1e-6  # m of path, the tracing's steps
BUFFER_ROWS = 2048
CHECK_POINTS = (0.25, 0.5, 0.75)  # fractions of each spline interval checked by FK


@dataclass(frozen=True)
class PathStop:
    """
    Why a stretch ends before its end, and where.

    ``kind``: 'joint_limit', 'singularity', 'unreachable', 'collision' or 'start' (the
    joints are not on the path); ``s`` (m of path) where the arm comes to rest; ``joint``
    or ``pair`` name what blocks.
    """

    kind: str
    s: float
    message: str
    joint: str = ''
    pair: Tuple[str, str] = ()


@dataclass(frozen=True)
class PathTask:
    """The arm and rules a path is planned with."""

    kinematics: ChainKinematics
    solver: IkSolver
    limits: MotionLimits  # velocity already scaled by velocity_scale
    mask: Tuple[bool, ...]  # task rows tracked
    orientation_weight: float = 1.0
    position_tolerance: float = 1e-3  # m: largest commanded deviation from the path
    orientation_tolerance: float = 1e-2  # rad
    caps: Caps = Caps(0.5, 1.5)
    checker: Optional[CollisionChecker] = None

    @property
    def rows(self) -> np.ndarray:
        """Return the tracked task rows."""
        return np.flatnonzero(np.array(self.mask))

    @property
    def weights(self) -> np.ndarray:
        """Return the weights of the tracked rows (rotation rows: orientation_weight)."""
        return np.array([1.0, 1.0, 1.0] + [self.orientation_weight] * 3)[self.rows]


@dataclass(frozen=True)
class PlannedStretch:
    """
    A stretch ready to follow: ``timing`` over ``joint_path`` from ``s_start`` to rest.

    ``stop``: why it ends before the planned end (None: it reaches it); ``deviation``:
    the largest position (m) and orientation (rad) deviation found at the check points.
    """

    joint_path: Optional[JointPath]
    timing: Optional[StretchTiming]
    s_start: float
    s_end: float
    stop: Optional[PathStop]
    deviation: Tuple[float, float]


def _arrays(task: PathTask) -> tuple:
    """Return the kinematics arrays of the compiled kernels."""
    kinematics = task.kinematics
    return kinematics.A, kinematics.prismatic, kinematics.G_tip


def deviation(task: PathTask, T_path: np.ndarray, T_tool: np.ndarray
              ) -> Tuple[np.ndarray, np.ndarray]:
    """Return how far tool poses are from path poses: position (m), orientation (rad), (k,)."""
    e_p, e_o = pose_error(T_path, T_tool)
    mask = np.array(task.mask)
    return (np.linalg.norm(e_p * mask[:3], axis=-1), np.linalg.norm(e_o * mask[3:], axis=-1))


def plan_stretch(path: CartesianPath, s_start: float, s_end: float, q_start: np.ndarray,
                 task: PathTask) -> PlannedStretch:
    """Return the planned stretch ``[s_start, s_end]`` from ``q_start`` (module docstring)."""
    starts, P, H, R_ref = path.arrays
    q0 = np.array(q_start, dtype=float)
    if not solve_on_path(starts, P, H, R_ref, s_start, q0, *_arrays(task), task.rows,
                         task.weights, NEWTON_ITERATIONS):
        return _not_moving(s_start, PathStop('start', s_start, 'the arm is not on the path '
                                             'where the stretch starts'))
    samples_s, samples_q, stop = _trace(path, s_start, s_end, q0, task)
    if len(samples_s) < 2:
        return _not_moving(s_start, stop)
    joint_path, worst = _refined_spline(path, samples_s, samples_q, task)
    if task.checker is not None:
        s_free, contact = free_until(joint_path, task.checker, s_start, joint_path.s_end)
        if contact is not None:
            stop = PathStop('collision', s_free, 'the path would bring '
                            f'{contact.text()} at {s_free:.4f} m of path',
                            pair=contact.owners)
            if s_free <= s_start:
                return _not_moving(s_start, stop)
    s_rest = stop.s if stop is not None else joint_path.s_end
    timing = StretchTiming.plan(joint_path, _tool_rates(path, joint_path), s_start, s_rest,
                                task.limits, task.caps)
    return PlannedStretch(joint_path, timing, s_start, s_rest, stop, worst)


def _not_moving(s: float, stop: PathStop) -> PlannedStretch:
    """Return a stretch that cannot move at all (``stop`` says why)."""
    return PlannedStretch(None, None, s, s, stop, (0.0, 0.0))


def _trace(path: CartesianPath, s_start: float, s_end: float, q0: np.ndarray,
           task: PathTask) -> Tuple[np.ndarray, np.ndarray, Optional[PathStop]]:
    """Return the traced samples (s, q) and why they end early (None: at ``s_end``)."""
    starts, P, H, R_ref = path.arrays
    lower, upper = task.limits.lower, task.limits.upper
    redundant = task.kinematics.n_joints > len(task.rows)
    chunks_s: List[np.ndarray] = []
    chunks_q: List[np.ndarray] = []
    s, q, step = s_start, q0, FIRST_STEP
    while True:
        out_s, out_q = np.empty(BUFFER_ROWS), np.empty((BUFFER_ROWS, len(q0)))
        count, status, s_stop, joint, _, step = trace_joints(
            starts, P, H, R_ref, s, s_end, q, *_arrays(task), task.rows, task.weights, lower,
            upper, redundant, step, MAX_STEP, MIN_STEP, out_s, out_q)
        first = 0 if not chunks_s else 1  # a continued chunk repeats its start
        chunks_s.append(out_s[first:count])
        chunks_q.append(out_q[first:count])
        if status != FULL:
            break
        s, q = out_s[count - 1], out_q[count - 1].copy()
    samples_s, samples_q = np.concatenate(chunks_s), np.concatenate(chunks_q)
    if status == JOINT_LIMIT:
        name = task.kinematics.chain.joint_names[joint]
        bound = 'upper' if samples_q[-1, joint] >= 0.5 * (lower[joint] + upper[joint]) else 'lower'
        return samples_s, samples_q, PathStop(
            'joint_limit', float(samples_s[-1]), f'{name} reaches its {bound} limit '
            f'({samples_q[-1, joint]:.4g}) at {samples_s[-1]:.4f} m of path', joint=name)
    if status == BLOCKED:
        return _stop_before_blocked(path, samples_s, samples_q, s_stop, task)
    return samples_s, samples_q, None


def _stop_before_blocked(path: CartesianPath, samples_s: np.ndarray, samples_q: np.ndarray,
                         s_blocked: float, task: PathTask
                         ) -> Tuple[np.ndarray, np.ndarray, PathStop]:
    """
    Return the samples up to ``SINGULAR_MARGIN`` before ``s_blocked`` and the stop there.

    An IK search for the pose just past ``s_blocked`` tells a singular configuration (the
    pose has a solution, the branch cannot reach it continuously) from the edge of the
    reachable poses (none).
    """
    starts, P, H, R_ref = path.arrays
    s_stop = max(float(samples_s[0]), s_blocked - SINGULAR_MARGIN)
    keep = samples_s < s_stop
    samples_s, samples_q = samples_s[keep], samples_q[keep]
    if len(samples_s) and s_stop - samples_s[-1] > 1e-9:
        q_stop = samples_q[-1].copy()
        if solve_on_path(starts, P, H, R_ref, s_stop, q_stop, *_arrays(task), task.rows,
                         task.weights, NEWTON_ITERATIONS):
            samples_s = np.append(samples_s, s_stop)
            samples_q = np.vstack([samples_q, q_stop])
    s_rest = float(samples_s[-1]) if len(samples_s) else s_stop
    options = IkOptions(mask=task.mask, orientation_weight=task.orientation_weight,
                        time_budget=0.01)
    beyond = min(s_blocked + SINGULAR_MARGIN, path.length)
    reachable = task.solver.solve(path.pose_at(beyond), samples_q[-1] if len(samples_q)
                                  else task.kinematics.chain.middle_configuration(),
                                  options).success
    if reachable:
        return samples_s, samples_q, PathStop(
            'singularity', s_rest, f'the path crosses a singular configuration at '
            f'{s_blocked:.4f} m of path: the joints cannot follow it continuously there')
    return samples_s, samples_q, PathStop(
        'unreachable', s_rest, f"the path leaves the arm's reach at {s_blocked:.4f} m of path")


def _refined_spline(path: CartesianPath, samples_s: np.ndarray, samples_q: np.ndarray,
                    task: PathTask) -> Tuple[JointPath, Tuple[float, float]]:
    """Return the spline through the samples, refined until its check points are on path."""
    starts, P, H, R_ref = path.arrays
    rate_start, rate_end = (np.empty(samples_q.shape[1]), np.empty(samples_q.shape[1]))
    redundant = task.kinematics.n_joints > len(task.rows)
    for rate, index in ((rate_start, 0), (rate_end, -1)):
        joint_rate(starts, P, H, R_ref, float(samples_s[index]), samples_q[index].copy(),
                   *_arrays(task), task.rows, task.weights, task.limits.lower,
                   task.limits.upper, redundant, rate, index == -1)
    limit_p = CHECK_SHARE * task.position_tolerance
    limit_o = CHECK_SHARE * task.orientation_tolerance
    for _ in range(REFINE_ROUNDS):
        joint_path = JointPath(samples_s, samples_q, rate_start, rate_end)
        h = np.diff(samples_s)
        checks = (samples_s[:-1, None] + h[:, None] * np.array(CHECK_POINTS)).ravel()
        T_tool = task.kinematics.tip_pose(joint_path.positions(checks))
        dev_p, dev_o = deviation(task, path.poses_at(checks), T_tool)
        worst = (float(dev_p.max(initial=0.0)), float(dev_o.max(initial=0.0)))
        off = ((dev_p > limit_p) | (dev_o > limit_o)).reshape(len(h), -1).any(axis=1)
        if not off.any():
            return joint_path, worst
        middles = samples_s[:-1][off] + 0.5 * h[off]
        guesses = joint_path.positions(middles)
        for s, q in zip(middles, guesses):
            solve_on_path(starts, P, H, R_ref, float(s), q, *_arrays(task), task.rows,
                          task.weights, NEWTON_ITERATIONS)
        order = np.argsort(np.concatenate([samples_s, middles]), kind='stable')
        samples_s = np.concatenate([samples_s, middles])[order]
        samples_q = np.vstack([samples_q, guesses])[order]
    return JointPath(samples_s, samples_q, rate_start, rate_end), worst


def _tool_rates(path: CartesianPath, joint_path: JointPath) -> np.ndarray:
    """Return per spline interval (N, 2) the largest ``|dp/ds|`` and ``|w|`` (ends, middle)."""
    knots = joint_path.s
    points = np.concatenate([knots, 0.5 * (knots[:-1] + knots[1:])])
    tangents = np.array([path.tangent_at(s) for s in points])
    linear = np.linalg.norm(tangents[:, :3], axis=1)
    angular = np.linalg.norm(tangents[:, 3:], axis=1) * (not path.position_only)
    count = len(knots) - 1
    rates = np.empty((count, 2))
    for column, values in enumerate((linear, angular)):
        at_knots, at_middles = values[:count + 1], values[count + 1:]
        rates[:, column] = np.maximum.reduce([at_knots[:-1], at_knots[1:], at_middles])
    return rates * 1.002  # between the three points a blend's rate changes by far less
