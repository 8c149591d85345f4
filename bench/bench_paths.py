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
Cartesian paths: on the path, within the limits and caps, near time-optimal, where they stop.

1. **Paths on every arm**, through the ROS-free controller at 100 Hz with a perfect arm
   (every command becomes the measured joints, as the node runs it): a 0.1 m square (0.3 m
   on the planar arm), 0.4 m lines along x, y and z, a 20-waypoint zig-zag with 2 cm
   blends, from a start pose, on the bundled arms and example-robot-data's UR5, Panda,
   Kinova (its only Kinova arm, a Jaco2 j2s6s200, not a Gen3) and xArm7 (URDF velocity
   limits, 5 rad/s^2 and 50 rad/s^3 assumed). Per run: the status and fraction, the
   largest deviation of a commanded tool pose from the path (the node's own measure, and
   for paths without blends an independent one: the distance to the polyline and the
   angle to the waypoints' orientation), the peak commanded joint velocity, acceleration
   and jerk over the limits (divided differences of the command stamps), the peak tool
   speed over its cap, the path time and the time-optimal time of the same joint path
   under the same velocity, acceleration and tool-speed limits (toppra; no jerk limit).
2. **Stops**: where a joint limit, the edge of the reach, a singular configuration and a
   scene object stop a path, against the true point (closed forms on the planar arm; for
   the UR5's wrist singularity, the line's point nearest the configurations with the
   wrist axes aligned, solved apart; for the table, the first contact by coal's exact
   distances), and commands in collision (coal, every command).
3. **Start latency** over DDS: ik_node (UR5, solve) at rest; a 20-waypoint path on
   ``~/target_path``; from its publication to the reception stamp of the first moving
   command (p50, p90, max over ``--latency-paths`` paths, forth and back).
4. **On the physics arm**: the UR5 on ``physics_arm`` (MuJoCo, shipped gains) draws the
   square: its peak tracking error at the tool (physics_arm's diagnostics).

Run: ``.venv/bin/python bench/bench_paths.py [--write-docs]`` (after ``make install``;
toppra from requirements-bench.txt for the time-optimal column).
"""

import argparse
import os
import sys
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(BENCH)
sys.path[:0] = [BENCH, REPOSITORY, os.path.join(REPOSITORY, 'test')]

from ros_ik.collision.collision_checker import CollisionChecker  # noqa: E402
from ros_ik.collision.collision_setup import build_collision_model  # noqa: E402
from ros_ik.collision.scene import parse_scene  # noqa: E402
from ros_ik.control.arm import ControlledArm  # noqa: E402
from ros_ik.control.controller import IkController  # noqa: E402
from ros_ik.control.motion_limit_sources import LimitDefaults, resolve_motion_limits  # noqa: E402
from ros_ik.control.parameters import Settings  # noqa: E402
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,  # noqa: E402
                                            bundled_urdf_path)
from ros_ik.kinematics.manipulability import manipulability, task_jacobian  # noqa: E402
from ros_ik.kinematics.task_space import axes_text, mask_of_rows  # noqa: E402
from ros_ik.kinematics.transforms import (matrix_to_quaternion, pose_error,  # noqa: E402
                                          rotation_vector)
from ros_ik.kinematics.urdf_loader import load_urdf_file  # noqa: E402
from ros_ik.paths.cartesian_planner import plan_cartesian_path  # noqa: E402
from ros_ik.paths.path_geometry import CartesianPath  # noqa: E402
from ros_ik.paths.path_timing import Caps  # noqa: E402
from ros_ik.paths.stretch_planner import PathTask, plan_stretch  # noqa: E402
from ros_ik.trajectory.motion_limits import MotionLimits  # noqa: E402
from ros_ik.trajectory.stream_check import stream_peaks  # noqa: E402
from ros_ik_testing.example_arms import example_arm  # noqa: E402
from ros_ik_testing.polylines import distance_from_polyline  # noqa: E402

PERIOD = 0.01  # s: the controller's cycle (update_rate 100 Hz)
VELOCITY_SCALE = 0.5
LINEAR_CAP, ANGULAR_CAP = 0.25, 1.0  # m/s, rad/s: the tool caps of the runs
EXAMPLE_LIMITS = (5.0, 50.0)  # rad/s^2, rad/s^3 assumed for example-robot-data's arms
EXAMPLE_ARMS = {'ur5': 'example ur5', 'panda': 'example panda', 'kinova': 'example kinova',
                'xarm7': 'example xarm7'}


def bundled(name: str) -> Tuple[ControlledArm, MotionLimits, np.ndarray, str]:
    """Return a bundled arm, its shipped limits, its home and its task axes."""
    spec = BUNDLED_ARMS[name]
    chain = load_urdf_file(bundled_urdf_path(name), spec.base_link, spec.tip_link)
    axes = axes_text(spec.task_rows)
    limits = resolve_motion_limits(chain, bundled_joint_limits_path(name),
                                   LimitDefaults.of(Settings()), {}).limits
    return ControlledArm.from_chain(chain, axes), limits, np.array(spec.home), axes


def example(name: str) -> Optional[Tuple[ControlledArm, MotionLimits, np.ndarray, str]]:
    """Return an example-robot-data arm, assumed limits and a well-conditioned start."""
    found = example_arm(name)
    if found is None:
        return None
    chain = load_urdf_file(found.urdf_path, found.base_link, found.tip_link)
    arm = ControlledArm.from_chain(chain, 'x y z rx ry rz')
    n = chain.n_joints
    limits = MotionLimits(chain.lower, chain.upper, chain.velocity_limits,
                          np.full(n, EXAMPLE_LIMITS[0]), np.full(n, EXAMPLE_LIMITS[1]))
    lower, upper = chain.sampling_bounds()
    rng = np.random.default_rng(1)
    middle = 0.5 * (lower + upper)
    samples = middle + 0.3 * (upper - lower) * rng.uniform(-1.0, 1.0, size=(400, n))
    sigma = [manipulability(task_jacobian(arm.kinematics.jacobian(q), range(6))).sigma_min
             for q in samples]
    return arm, limits, samples[int(np.argmax(sigma))], 'x y z rx ry rz'


def shapes(T0: np.ndarray, planar: bool) -> Dict[str, Tuple[List[np.ndarray], float]]:
    """Return the benchmark's paths from ``T0``: name -> (waypoints, blend radius)."""
    def moved(*offset):
        T = T0.copy()
        T[:3, 3] += offset
        return T
    side = 0.3 if planar else 0.1
    paths = {'square': ([moved(0, 0, 0), moved(side, 0, 0), moved(side, side, 0),
                         moved(0, side, 0), moved(0, 0, 0)], 0.0)}
    for axis, name in enumerate('xyz'):
        if planar and axis == 2:
            continue
        offset = np.zeros(3)
        offset[axis] = 0.4
        paths[f'line {name}'] = ([moved(0, 0, 0), moved(*offset)], 0.0)
    paths['zig-zag 20'] = ([moved(0.012 * k, 0.03 * (k % 2), 0) for k in range(20)], 0.02)
    return paths


def run_path(arm: ControlledArm, limits: MotionLimits, axes: str, q0: np.ndarray,
             waypoints: List[np.ndarray], blend: float) -> dict:
    """Run one path through the controller (perfect arm, 100 Hz); return its measures."""
    chain = arm.chain
    settings = Settings.from_values({
        'base_link': chain.base_link, 'tip_link': chain.tip_link, 'task_axes': axes,
        'velocity_scale': VELOCITY_SCALE, 'max_linear_speed': LINEAR_CAP,
        'max_angular_speed': ANGULAR_CAP, 'path_blend_radius': blend,
        'collision_checking': 'disabled'})
    controller = IkController(arm, settings, limits)
    names = chain.joint_names
    q, now = q0.copy(), 0.0
    controller.update_joint_state(names, q, now)
    controller.cycle(now)
    positions = np.array([T[:3, 3] for T in waypoints])
    quaternions = np.array([matrix_to_quaternion(T[:3, :3]) for T in waypoints])
    controller.set_path([''] * len(waypoints), positions, quaternions, [0.0] * len(waypoints))
    stamps, commands = [now - 2 * PERIOD, now - PERIOD], [q0, q0]
    started = None
    while now < 60.0:
        now += PERIOD
        controller.update_joint_state(names, q, now)
        command = controller.cycle(now).command
        q = command.q
        stamps.append(command.time)
        commands.append(q)
        if started is None and np.any(command.velocity != 0.0):
            started = command.time - PERIOD
        outcome = controller.path_outcome()
        if outcome is not None and outcome.status != 'running' and controller.is_at_rest():
            break
    scaled = limits.scaled(VELOCITY_SCALE)
    peaks = stream_peaks(np.array(stamps), np.array(commands), scaled.lower, scaled.upper)
    T_tool = arm.kinematics.tip_pose(np.array(commands))
    speeds = (np.linalg.norm(np.diff(T_tool[:, :3, 3], axis=0), axis=1)
              / np.maximum(np.diff(stamps), 1e-12))
    independent = (np.nan, np.nan)
    if blend == 0.0:  # every waypoint has the start's orientation
        turned = np.linalg.norm(rotation_vector(np.swapaxes(T_tool[:, :3, :3], 1, 2)
                                                @ waypoints[0][:3, :3]), axis=1)
        tracks_rotation = any(mask_of_rows(arm.task_rows)[3:])
        independent = (float(distance_from_polyline(T_tool[:, :3, 3], waypoints).max()),
                       float(turned.max()) if tracks_rotation else 0.0)
    return {'outcome': outcome, 'ratios': peaks.ratios(scaled.velocity, scaled.acceleration,
                                                       scaled.jerk),
            'speed': float(speeds.max()) / LINEAR_CAP, 'independent': independent,
            'time': (stamps[-1] - started) if started is not None else 0.0,
            'optimal': optimal_time(arm, scaled, axes, q0, waypoints, blend, outcome.fraction)}


def optimal_time(arm: ControlledArm, limits: MotionLimits, axes: str, q0: np.ndarray,
                 waypoints: List[np.ndarray], blend: float, fraction: float) -> float:
    """
    Return toppra's time-optimal time of the same joint path (v, a and the tool cap).

    Stretch by stretch (rest to rest), as far as the run got. The tool cap is a velocity
    limit on an extra coordinate ``c(s) = integral |dp/ds|`` (the tool's travel). NaN
    without toppra.
    """
    try:
        import toppra
        from toppra import algorithm, constraint
    except ImportError:
        return float('nan')
    import logging
    logging.getLogger('toppra').setLevel(logging.ERROR)
    mask = mask_of_rows(arm.task_rows)
    task = PathTask(arm.kinematics, arm.solver, limits, mask, caps=Caps(LINEAR_CAP,
                                                                        ANGULAR_CAP))
    path = CartesianPath(np.array(waypoints), blend, not any(mask[3:]))
    total, q = 0.0, q0
    for s_start, s_end in zip(path.rest_s[:-1], path.rest_s[1:]):
        s_end = min(s_end, fraction * path.length)
        if s_end <= s_start:
            break
        stretch = plan_stretch(path, s_start, s_end, q, task)
        if stretch.joint_path is None:
            break
        s = np.linspace(s_start, stretch.s_end, 400)
        travel = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(
            path.poses_at(s)[:, :3, 3], axis=0), axis=1))])
        waypoints_q = np.hstack([stretch.joint_path.positions(s), travel[:, None]])
        spline = toppra.SplineInterpolator(s - s_start, waypoints_q)
        velocity = np.append(limits.velocity, LINEAR_CAP)
        acceleration = np.append(limits.acceleration, 1e6)
        solver = algorithm.TOPPRA(
            [constraint.JointVelocityConstraint(np.vstack([-velocity, velocity]).T),
             constraint.JointAccelerationConstraint(np.vstack([-acceleration,
                                                               acceleration]).T)],
            spline, gridpoints=np.linspace(0.0, s[-1] - s_start, 801))
        trajectory = solver.compute_trajectory(0.0, 0.0)
        if trajectory is None:
            return float('nan')
        total += trajectory.duration
        q = stretch.joint_path.positions(np.array([stretch.s_end]))[0]
    return total


def print_paths() -> None:
    """Print section 1: every path on every arm."""
    arms = {name: bundled(name) for name in sorted(BUNDLED_ARMS)}
    arms.update({label: example(name) for name, label in EXAMPLE_ARMS.items()})
    print('1. Paths through the controller (100 Hz, perfect arm), tool caps '
          f'{LINEAR_CAP} m/s, {ANGULAR_CAP} rad/s, velocity_scale {VELOCITY_SCALE}')
    print('dev: largest commanded deviation from the path (node: its own measure at every '
          "command; ref: distance to the polyline, angle to the waypoints' orientation, "
          'paths without blends); v a j: peak commanded / limit from the stamps; tool: peak '
          "tool speed / cap; t, topp: path time and toppra's time-optimal time (v, a, tool "
          'cap; no jerk limit) of the same joint path')
    print(f'{"arm":<15}{"path":<12}{"status":<13}{"frac":>6}{"dev mm":>8}{"mrad":>7}'
          f'{"ref mm":>8}{"mrad":>7}{"v":>6}{"a":>6}{"j":>6}{"tool":>6}{"t s":>7}'
          f'{"topp s":>8}{"ratio":>7}')
    for label, setup in arms.items():
        if setup is None:
            print(f'{label:<15}(example-robot-data is not installed)')
            continue
        arm, limits, q0, axes = setup
        T0 = arm.kinematics.tip_pose(q0)
        for name, (waypoints, blend) in shapes(T0, label == 'planar_2link').items():
            result = run_path(arm, limits, axes, q0, waypoints, blend)
            outcome = result['outcome']
            status = outcome.status if outcome.status != 'aborted' else outcome.reason
            v, a, j = result['ratios']
            ref_p, ref_o = result['independent']
            print(f'{label:<15}{name:<12}{status:<13}{outcome.fraction:>6.3f}'
                  f'{1e3 * outcome.deviation[0]:>8.4f}{1e3 * outcome.deviation[1]:>7.3f}'
                  f'{1e3 * ref_p:>8.4f}{1e3 * ref_o:>7.3f}{v:>6.3f}{a:>6.3f}{j:>6.3f}'
                  f'{result["speed"]:>6.3f}{result["time"]:>7.2f}{result["optimal"]:>8.2f}'
                  f'{result["time"] / result["optimal"]:>7.2f}', flush=True)


def planar_stop(kind: str) -> Tuple[float, float, str]:
    """Return (fraction error m, path length m, stop kind) of a planar stop by closed form."""
    arm, limits, _, _ = bundled('planar_2link')
    lower = limits.lower.copy()
    elbow = 0.5
    if kind == 'joint limit':
        lower[1] = elbow
    limits = MotionLimits(lower, limits.upper, limits.velocity, limits.acceleration,
                          limits.jerk).scaled(VELOCITY_SCALE)
    task = PathTask(arm.kinematics, arm.solver, limits, (True, True) + (False,) * 4,
                    caps=Caps(1.0, 1.0))
    q = np.array([0.3, 1.4])
    T0 = arm.kinematics.tip_pose(q)
    r0 = float(np.linalg.norm(T0[:3, 3]))
    length = 1.0 if kind == 'joint limit' else 3.0
    T1 = T0.copy()
    T1[:3, 3] += length * T0[:3, 3] / r0
    plan = plan_cartesian_path(task, [T0, T1], q)
    true_radius = (np.sqrt(4.0 + 2.25 + 6.0 * np.cos(elbow)) if kind == 'joint limit'
                   else 3.5)  # L1 = 2, L2 = 1.5
    return plan.fraction * length - (true_radius - r0), length, plan.stop.kind


def full_pose_task(arm: ControlledArm, limits: MotionLimits,
                   checker: Optional[CollisionChecker] = None) -> PathTask:
    """Return the benchmark's full-pose path task of ``arm`` (velocity scale, tool caps)."""
    return PathTask(arm.kinematics, arm.solver, limits.scaled(VELOCITY_SCALE),
                    mask_of_rows(range(6)), caps=Caps(LINEAR_CAP, ANGULAR_CAP),
                    checker=checker)


def table_stop() -> Tuple[float, float, int, int, str]:
    """Return (fraction error m, length m, commands, in collision, stop) of the UR5 table."""
    arm, limits, q, _ = bundled('ur5')
    with open(bundled_urdf_path('ur5'), encoding='utf-8') as urdf_file:
        urdf = urdf_file.read()
    scene = parse_scene('objects: [{name: table, type: box, size: [0.3, 0.3, 0.1], '
                        'pose: {xyz: [-0.49, -0.11, -0.05]}}]')
    model, _ = build_collision_model(urdf, arm.kinematics, '', scene, lambda package: None)
    checker = CollisionChecker(model, 0.0, 0.01)
    task = full_pose_task(arm, limits, checker)
    T0 = arm.kinematics.tip_pose(q)
    T1 = T0.copy()
    T1[2, 3] = -0.3
    plan = plan_cartesian_path(task, [T0, T1], q, sample_period=PERIOD)
    colliding = sum(checker.nearest(q_k).distance <= 0.0 for q_k in plan.positions)
    path = CartesianPath(np.array([T0, T1]))
    stretch = plan_stretch(path, 0.0, path.length, q, task)
    s = np.linspace(plan.s[-1], min(plan.s[-1] + 0.02, stretch.joint_path.s_end), 401)
    touching = s[next(k for k, q_k in enumerate(stretch.joint_path.positions(s))
                      if checker.nearest(q_k).distance <= 0.0)]
    return plan.s[-1] - touching, path.length, len(plan.positions), colliding, plan.stop.kind


def wrist_singularity_stop() -> Tuple[float, float, float, str]:
    """
    Return (fraction error m, miss m, length m, stop) of a UR5 line past a wrist singularity.

    The tool line joins the poses at ``q5 = +0.05`` and ``-0.05`` rad (wrist axes aligned
    at ``q5 = 0``). Its point nearest the singular configurations: the path length ``s*``
    and joints with ``q5 = 0`` whose tool pose is nearest the path's pose at ``s*`` (6
    equations, 6 unknowns, least squares from the middle of the line, apart from the
    planner); ``miss``: the residual there (the line passes that close to the singular
    set without crossing it exactly: beyond it the wrist would have to turn half a
    revolution).
    """
    from scipy.optimize import least_squares
    arm, limits, _, _ = bundled('ur5')
    task = full_pose_task(arm, limits)
    q_a = np.array([0.0, -1.2, 1.6, -1.9, 0.05, 0.3])
    q_b = q_a.copy()
    q_b[4] = -0.05
    T0, T1 = arm.kinematics.tip_pose(q_a), arm.kinematics.tip_pose(q_b)
    plan = plan_cartesian_path(task, [T0, T1], q_a, sample_period=PERIOD)
    path = CartesianPath(np.array([T0, T1]))

    def residual(x: np.ndarray) -> np.ndarray:
        q = np.insert(x[:5], 4, 0.0)
        return np.concatenate(pose_error(path.pose_at(x[5]), arm.kinematics.tip_pose(q)))
    guess = np.append(np.delete(q_a, 4), 0.5 * path.length)
    nearest = least_squares(residual, guess, xtol=1e-14, ftol=1e-14, gtol=1e-14)
    assert nearest.success, nearest.message
    miss = float(np.linalg.norm(nearest.fun))
    return plan.s[-1] - nearest.x[5], miss, path.length, plan.stop.kind


def print_stops() -> None:
    """Print section 2: where a path stops against the true point."""
    print('\n2. Stops: fraction x length against the true stopping point (negative: before it)')
    print(f'{"case":<38}{"stop":<14}{"error mm":>10}{"commands":>10}{"in collision":>14}')
    for kind in ('joint limit', 'edge of the reach'):
        error, _, stop = planar_stop(kind)
        print(f'{"planar arm, " + kind:<38}{stop:<14}{1e3 * error:>10.3f}{"-":>10}{"-":>14}')
    error, miss, _, stop = wrist_singularity_stop()
    print(f'{"UR5 line past its wrist singularity":<38}{stop:<14}{1e3 * error:>10.3f}'
          f'{"-":>10}{"-":>14}  (against the line\'s point nearest it: {1e3 * miss:.3f} mm away)')
    error, _, count, colliding, stop = table_stop()
    print(f'{"UR5 line down into a table":<38}{stop:<14}{1e3 * error:>10.3f}{count:>10d}'
          f'{colliding:>14d}')


def print_latency(count: int) -> None:
    """Print section 3: path message in to first moving command, over DDS."""
    from path_latency import path_start_latencies
    latencies = path_start_latencies(count)
    print(f'\n3. Path start latency over DDS (UR5, solve, 100 Hz, 20 waypoints, {count} paths): '
          f'p50 {1e3 * np.percentile(latencies, 50):.2f} ms, p90 '
          f'{1e3 * np.percentile(latencies, 90):.2f} ms, max {1e3 * latencies.max():.2f} ms')


def print_physics() -> None:
    """Print section 4: the square on the physics arm."""
    from path_latency import physics_square
    error, result = physics_square()
    print(f'\n4. UR5 on physics_arm, the 0.1 m square at {LINEAR_CAP} m/s: {result}; peak '
          f'tracking error at the tool {1e3 * error:.3f} mm')


def main() -> None:
    """Run the sections asked for."""
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument('--latency-paths', type=int, default=40)
    parser.add_argument('--skip', nargs='*', default=[], choices=['paths', 'stops',
                                                                  'latency', 'physics'])
    args = parser.parse_args()
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    start = time.monotonic()
    if 'paths' not in args.skip:
        print_paths()
    if 'stops' not in args.skip:
        print_stops()
    if 'latency' not in args.skip:
        print_latency(args.latency_paths)
    if 'physics' not in args.skip:
        print_physics()
    print(f'({time.monotonic() - start:.0f} s)')


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_paths', main)
