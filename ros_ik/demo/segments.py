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
The demo's scripted targets and its offline damped-vs-undamped replay (core: no ROS imports).

Targets are derived from the arm itself, so any URDF works, in this order: poses near the
home pose, one sent in the ``world`` frame and one in a ``camera`` frame (the arm's base is
mounted in ``world``, the camera looks down on it: :data:`FRAMES`, published as static
transforms), a square the tool draws as a Cartesian path (the ``~/follow_path`` action), a
position-only goal, a table put under the tool (a run-time scene) with a jog down onto it
and a target under it, back to pose A, a near-singular configuration found near it (the
"stretch", sigma_min a quarter of the damping threshold) and a pose the servo must leave it
for, a point twice the arm's reach away (unreachable), and a jog: a constant twist driving
the tool straight through a singular configuration.
"""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.damped_least_squares import COMMAND_DAMPING, DampingSchedule
from ros_ik.kinematics.ik_solver import IkSolver
from ros_ik.kinematics.manipulability import manipulability, task_jacobian
from ros_ik.kinematics.servo_step import ServoController, ServoOptions
from ros_ik.kinematics.transforms import rpy_to_matrix, transform

SEARCH_SAMPLES = 3000
CLEAR_CANDIDATES = 200  # the best near-singular samples checked for clearance
# sigma_min of the stretch pose: a quarter of the servo's damping threshold, so the
# approach runs through the damped region yet the pose is reached in a few seconds.
STRETCH_SIGMA = 0.25 * COMMAND_DAMPING.singular_value_threshold
JOG_LEAD = 0.1  # m of jog line before (and after) the singular pose
JOG_SPEED = 0.05  # m/s
JOG_SEARCH_SEEDS = 40
TABLE_DROP = 0.12  # m from the tool down to the demo table's top
TABLE_SIZE = (0.3, 0.3, 0.04)  # m
TABLE_JOG_SPEED = 0.05  # m/s straight down
TABLE_JOG_SECONDS = 4.0  # 0.2 m commanded, the table is 0.12 m down
UNDER_TABLE = 0.08  # m from the table's underside down to the target under it
SQUARE_SIDE = 0.1  # m: the side of the square the tool draws (at most 0.15 of the reach)
SQUARE_SPEED = 0.1  # m/s: its tool speed cap
EMPTY_SCENE = 'objects: []\n'
BASE = '<base>'  # stands for the chain's base link in FRAMES
# The demo's TF tree: (parent, child, xyz m, rpy rad) of each static transform. The arm's
# base 0.5 m up in world, turned 90 deg; a camera 1.2 m up, 0.8 m in front, looking down.
FRAMES = (('world', BASE, (0.0, 0.0, 0.5), (0.0, 0.0, 1.5708)),
          ('world', 'camera', (0.8, 0.0, 1.7), (3.1416, 0.0, 1.5708)))


@dataclass(frozen=True)
class Segment:
    """One scripted target: a pose (or a point if ``position_only``) in the base frame."""

    label: str
    T_base_target: np.ndarray
    position_only: bool
    reachable: bool
    jog_velocity: Optional[np.ndarray] = None  # m/s, base frame: a jog, not a target
    jog_seconds: float = 0.0
    q_singular: Optional[np.ndarray] = None  # the singular configuration a jog crosses
    scene: str = ''  # a collision scene (YAML) to publish before the segment
    stops: bool = False  # a jog that must stop at an obstacle short of its distance
    refused: bool = False  # a target the node must refuse: its motion would collide
    frame: str = ''  # the TF frame the target is sent in ('': the chain's base)
    path: Tuple[np.ndarray, ...] = ()  # waypoints (4x4, base frame): a Cartesian path
    path_speed: float = 0.0  # m/s: the path's tool speed cap


def frame_poses(base_link: str) -> Dict[str, np.ndarray]:
    """Return ``T_base_frame`` (4x4) of each frame of :data:`FRAMES` but the base."""
    T_world = {child: transform(rpy_to_matrix(*rpy), np.array(xyz))
               for _, child, xyz, rpy in FRAMES}
    T_base_world = np.linalg.inv(T_world[BASE])
    poses = {'world': T_base_world}
    poses.update({child: T_base_world @ T for child, T in T_world.items() if child != BASE})
    return {frame: T for frame, T in poses.items() if frame != base_link}


def static_transforms(base_link: str) -> List[Tuple[str, str, Tuple[float, ...],
                                                    Tuple[float, ...]]]:
    """Return :data:`FRAMES` with the chain's base link in place of ``BASE``."""
    return [(parent, base_link if child == BASE else child, xyz, rpy)
            for parent, child, xyz, rpy in FRAMES]


def clipped_inside_limits(kinematics: ChainKinematics, q: np.ndarray) -> np.ndarray:
    """Return ``q`` clipped 0.05 rad (or m) inside the position limits."""
    chain = kinematics.chain
    return np.clip(q, chain.lower + 0.05, chain.upper - 0.05)


def near_singular_configuration(kinematics: ChainKinematics, q_center: np.ndarray,
                                task_rows: Tuple[int, ...], sigma_target: float,
                                seed: int, clear: Callable[[np.ndarray], bool] = lambda q: True
                                ) -> np.ndarray:
    """
    Return a sampled configuration with sigma_min near ``sigma_target``, close to ``q_center``.

    Half the samples lie within 0.8 rad of ``q_center``, half anywhere within the limits;
    the pick minimises ``|sigma_min - sigma_target| + 0.002 |q - q_center|`` among the
    ``clear`` ones (far enough from collisions for the servo to get there; of the best
    ``CLEAR_CANDIDATES``, else the best of all).
    """
    rng = np.random.default_rng(seed)
    chain = kinematics.chain
    near = q_center + rng.uniform(-0.8, 0.8, size=(SEARCH_SAMPLES // 2, len(q_center)))
    anywhere = rng.uniform(np.maximum(chain.lower, -np.pi), np.minimum(chain.upper, np.pi),
                           size=(SEARCH_SAMPLES // 2, len(q_center)))
    samples = clipped_inside_limits(kinematics, np.vstack([near, anywhere]))
    J = task_jacobian(kinematics.jacobian(samples), task_rows)
    sigma_min = np.linalg.svd(J, compute_uv=False)[:, -1]
    cost = (np.abs(sigma_min - sigma_target)
            + 0.002 * np.linalg.norm(samples - q_center, axis=1))
    ranked = np.argsort(cost)
    return next((samples[index] for index in ranked[:CLEAR_CANDIDATES]
                 if clear(samples[index])), samples[ranked[0]])


def plan_segments(kinematics: ChainKinematics, home: np.ndarray,
                  task_rows: Tuple[int, ...], seed: int = 3,
                  clear: Callable[[np.ndarray], bool] = lambda q: True) -> List[Segment]:
    """
    Return the demo's targets for an arm starting at ``home``.

    ``clear(q)``: whether the arm at ``q`` keeps its distance from collisions (the
    near-singular stretch is chosen among such configurations).
    """
    n = len(home)
    alternating = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    q_a = clipped_inside_limits(kinematics, home + 0.35 * alternating)
    q_b = clipped_inside_limits(kinematics, home - 0.3 * alternating)
    q_c = clipped_inside_limits(kinematics, home + 0.25)
    q_stretch = near_singular_configuration(kinematics, q_a, task_rows, STRETCH_SIGMA, seed,
                                            clear)
    T_far = kinematics.tip_pose(q_b)
    solver = IkSolver(kinematics)
    direction = T_far[:3, 3] - solver.reach_origin
    T_far[:3, 3] = solver.reach_origin + 2.0 * solver.reach * direction / np.linalg.norm(
        direction)
    q_world = clipped_inside_limits(kinematics, home + 0.2 * alternating)
    # Local motions first, from the postures the servo reaches near home: the square (from A
    # and back), the position-only goal and the table put under it; then back to A (the
    # table cleared), the stretch near A, leaving it, and the rest.
    segments = [
        Segment('reach pose A', kinematics.tip_pose(q_a), False, True),
        Segment('pose W sent in world', kinematics.tip_pose(q_world), False, True,
                frame='world'),
        Segment('pose A sent in camera', kinematics.tip_pose(q_a), False, True,
                frame='camera'),
        square_segment(kinematics.tip_pose(q_a), solver),
        Segment('position-only goal', kinematics.tip_pose(q_c), True, True),
    ]
    table = table_segments(segments[-1].T_base_target, task_rows)
    away = [
        Segment('back to pose A', kinematics.tip_pose(q_a), False, True,
                scene=EMPTY_SCENE if table else ''),
        Segment('stretch to near-singular', kinematics.tip_pose(q_stretch), False, True),
        Segment('leave it for pose B', kinematics.tip_pose(q_b), False, True),
        Segment('unreachable (2x reach)', T_far, False, False),
    ]
    return segments + table + away + jog_segments(kinematics, solver, q_c, task_rows, seed)


def square_segment(T_base_tool: np.ndarray, solver: IkSolver) -> Segment:
    """
    Return a square the tool draws from ``T_base_tool`` and back, at its orientation.

    In the base's xy plane, its first side toward the base's axis (inside the reach), the
    side ``SQUARE_SIDE`` m (at most 0.15 of the reach, for small arms).
    """
    side = min(SQUARE_SIDE, 0.15 * solver.reach)
    outward = T_base_tool[:2, 3] - solver.reach_origin[:2]
    outward = outward / max(np.linalg.norm(outward), 1e-9)
    across = np.array([-outward[1], outward[0]])
    corners = []
    for a, b in ((0, 0), (1, 0), (1, 1), (0, 1), (0, 0)):
        T = T_base_tool.copy()
        T[:2, 3] += side * (a * outward + b * across)
        corners.append(T)
    return Segment('draw a square (path)', T_base_tool, False, True, path=tuple(corners),
                   path_speed=SQUARE_SPEED)


def table_segments(T_base_tool: np.ndarray, task_rows: Tuple[int, ...]) -> List[Segment]:
    """
    Return a table put under the tool, a jog onto it and a target under it (full-pose arms).

    The table's top lies ``TABLE_DROP`` m below the tool position of ``T_base_tool``
    (where the previous segment left it). A jog straight down must stop at the table
    (``collision_stop_distance`` above it); then a target ``UNDER_TABLE`` m below the
    table's underside, the same orientation, must be refused with the table named (the
    servo heads straight down into it and stays stopped short of it).
    """
    if len(task_rows) < 6:  # full-pose arms; the 5-joint and planar arms' runs stay as they were
        return []
    x, y, z = T_base_tool[:3, 3]
    top = z - TABLE_DROP
    width, depth, thickness = TABLE_SIZE
    scene = ('objects:\n'
             f'  - {{name: table, type: box, size: [{width}, {depth}, {thickness}], '
             f'pose: {{xyz: [{x:.6f}, {y:.6f}, {top - thickness / 2:.6f}]}}}}\n')
    T_under = T_base_tool.copy()
    T_under[2, 3] = top - thickness - UNDER_TABLE
    return [Segment('jog onto the table', T_base_tool, False, True,
                    jog_velocity=np.array([0.0, 0.0, -TABLE_JOG_SPEED]),
                    jog_seconds=TABLE_JOG_SECONDS, scene=scene, stops=True),
            Segment('target under the table', T_under, False, False, refused=True)]


def jog_segments(kinematics: ChainKinematics, solver: IkSolver, q_near: np.ndarray,
                 task_rows: Tuple[int, ...], seed: int) -> List[Segment]:
    """
    Return a target JOG_LEAD m before a singular pose and a jog through it (or none).

    The line runs through the tool point of a configuration with sigma_min ~ 0 near
    ``q_near``, along the direction the tool moves most easily there (largest singular
    value of the position rows); both ends must be reachable (up to ``JOG_SEARCH_SEEDS``
    sampled configurations are tried), else the arm gets no jog.
    """
    for attempt in range(JOG_SEARCH_SEEDS):
        q_singular = near_singular_configuration(kinematics, q_near, task_rows, 0.0,
                                                 seed + attempt)
        T_singular = kinematics.tip_pose(q_singular)
        direction = np.linalg.svd(kinematics.jacobian(q_singular)[:3])[0][:, 0]
        ends = []
        for sign in (-1.0, 1.0):
            T_end = T_singular.copy()
            T_end[:3, 3] += sign * JOG_LEAD * direction
            ends.append((T_end, solver.solve(T_end, q_singular).success))
        if all(reached for _, reached in ends):
            return [Segment('to the jog start', ends[0][0], False, True),
                    Segment('jog through singular', ends[1][0], False, True,
                            jog_velocity=JOG_SPEED * direction,
                            jog_seconds=2 * JOG_LEAD / JOG_SPEED, q_singular=q_singular)]
    return []


def singular_replay_target(kinematics: ChainKinematics, q_start: np.ndarray,
                           task_rows: Tuple[int, ...], seed: int = 3) -> Segment:
    """Return a target at the most singular configuration found near ``q_start``."""
    q_singular = near_singular_configuration(kinematics, q_start, task_rows, 0.0, seed)
    return Segment('singular pose', kinematics.tip_pose(q_singular), False, True)


@dataclass(frozen=True)
class Replay:
    """Time (s), peak joint speed as a fraction of its limit, and sigma_min per step."""

    time: np.ndarray
    peak_speed_fraction: np.ndarray
    sigma_min: np.ndarray


def replay_servo(kinematics: ChainKinematics, q_start: np.ndarray, segment: Segment,
                 options: ServoOptions, task_rows: Tuple[int, ...], duration: float,
                 dt: float, mask: Optional[Tuple[bool, ...]] = None) -> Replay:
    """
    Servo from ``q_start`` toward the segment's target offline; record joint speeds.

    The servo's joint velocity is integrated directly (``q += qdot dt``, kept in the
    limits), without the acceleration limiter, to show what the damping alone does.
    """
    controller = ServoController(kinematics)
    if mask is not None:
        options = ServoOptions(**{**options.__dict__, 'mask': mask})
    q = q_start.copy()
    chain = kinematics.chain
    limits = chain.velocity_limits
    times, peaks, sigmas = [], [], []
    for index in range(int(duration / dt)):
        step = controller.step(q, segment.T_base_target, options)
        times.append(index * dt)
        peaks.append(float(np.max(np.abs(step.velocity) / limits)))
        sigmas.append(manipulability(task_jacobian(kinematics.jacobian(q),
                                                   task_rows)).sigma_min)
        q = np.clip(q + step.velocity * dt, chain.lower, chain.upper)
    return Replay(np.array(times), np.array(peaks), np.array(sigmas))


def replay_jog(kinematics: ChainKinematics, q_start: np.ndarray, segment: Segment,
               options: ServoOptions, dt: float) -> Replay:
    """Jog the segment's twist offline (integrated directly); record joint speeds."""
    controller = ServoController(kinematics)
    chain = kinematics.chain
    twist = np.concatenate([segment.jog_velocity, np.zeros(3)])
    q = q_start.copy()
    times, peaks, sigmas = [], [], []
    for index in range(int(segment.jog_seconds / dt)):
        velocity = controller.jog(q, twist, options).velocity
        times.append(index * dt)
        peaks.append(float(np.max(np.abs(velocity) / chain.velocity_limits)))
        sigmas.append(float(np.linalg.svd(kinematics.jacobian(q), compute_uv=False)[-1]))
        q = np.clip(q + velocity * dt, chain.lower, chain.upper)
    return Replay(np.array(times), np.array(peaks), np.array(sigmas))


def undamped_options(options: ServoOptions) -> ServoOptions:
    """Return ``options`` with no damping and no joint speed limit: a plain pseudo-inverse."""
    return ServoOptions(**{**options.__dict__,
                           'damping': DampingSchedule(singular_value_threshold=1e-12,
                                                      max_damping=1e-12),
                           'velocity_scale': 1e9})
