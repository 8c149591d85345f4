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
Collision benchmark on example-robot-data's UR5 and Panda (meshes, SRDFs) with a floor.

1. The cost of each check (median over random configurations and motions).
2. Random-target sessions in solve and servo mode, the ROS-free controller at 100 Hz with
   a perfect arm (every command becomes the measured joints), ``SESSION_SECONDS`` of
   controller time per row, collision checking on and off: every target is the tool pose
   of a random
   configuration that the reference says is free (self and floor). Every command is
   checked independently with Pinocchio + coal on the real meshes
   (:mod:`ros_ik_testing.reference_collisions`); printed: commands in collision, targets
   reached (within the tolerances), refused with a pair named, neither (timed out), the
   median and 95th percentile time of a solving cycle (IK plus the motion checks) and of
   any other cycle.

Run: ``.venv/bin/python bench/bench_collision.py [--seconds S]``.
"""

import argparse
import os
import sys
import time

import numpy as np

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPOSITORY, os.path.join(REPOSITORY, 'test')]  # ros_ik, ros_ik_testing

from ros_ik.collision.collision_checker import CollisionChecker  # noqa: E402
from ros_ik.collision.collision_setup import build_collision_model  # noqa: E402
from ros_ik.collision.kernel_warm_up import warm_up_collision_kernels  # noqa: E402
from ros_ik.collision.scene import parse_scene  # noqa: E402
from ros_ik.collision.shapes import search_path_packages  # noqa: E402
from ros_ik.control.arm import ControlledArm  # noqa: E402
from ros_ik.control.collision_guard import CollisionGuard  # noqa: E402
from ros_ik.control.controller import IkController  # noqa: E402
from ros_ik.control.parameters import Settings  # noqa: E402
from ros_ik.kinematics.transforms import pose_error  # noqa: E402
from ros_ik_testing.example_arms import example_arm, mesh_search_folder  # noqa: E402
from ros_ik_testing.reference_collisions import FLOOR_SCENE, ReferenceCollisions  # noqa: E402

PERIOD = 0.01
TARGET_SECONDS = 6.0
SESSION_SECONDS = 60.0
HOME = {'ur5': (0.0, -1.57, 1.57, -1.57, -1.57, 0.0),
        'panda': (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)}


def setup(name: str):
    """Return the arm, its collision model and the reference checker."""
    arm_files = example_arm(name)
    text = open(arm_files.urdf_path, encoding='utf-8').read()
    arm = ControlledArm.from_urdf(text, arm_files.base_link, arm_files.tip_link,
                                  'x y z rx ry rz')
    folder = mesh_search_folder()
    model, _ = build_collision_model(text, arm.kinematics,
                                     open(arm_files.srdf_path, encoding='utf-8').read(),
                                     parse_scene(FLOOR_SCENE), search_path_packages([folder]))
    reference = ReferenceCollisions(arm_files.urdf_path, arm_files.srdf_path, folder,
                                    arm.chain.joint_names)
    return arm, model, reference


def check_costs(name: str, model, rng) -> None:
    """Print the median cost of each check at random free configurations."""
    settings = Settings()
    checker = CollisionChecker(model, settings.collision_padding,
                               settings.collision_check_resolution)
    lower, upper = model.kinematics.chain.sampling_bounds()
    Q = rng.uniform(lower, upper, (300, len(lower)))
    timings = {'proxy check (all pairs)': [], 'nearest pair (coal)': [],
               'contacts within 0.1 m': []}
    for q in Q:
        for label, call in (('proxy check (all pairs)', lambda: checker.proxy_clearances(q, 0.0)),
                            ('nearest pair (coal)', lambda: checker.nearest(q)),
                            ('contacts within 0.1 m', lambda: checker.contacts(q, 0.1))):
            start = time.perf_counter()
            call()
            timings[label].append(time.perf_counter() - start)
    start = time.perf_counter()
    checker.proxy_clearances(Q, 0.0)
    batch = (time.perf_counter() - start) / len(Q)
    print(f'{name}: {len(model.pairs)} element pairs; ' + ', '.join(
        f'{label} {np.median(values) * 1e6:.0f} us' for label, values in timings.items())
        + f', proxy check per configuration in a motion batch {batch * 1e6:.1f} us')


def free_targets(arm, reference, rng, count: int):
    """Yield tool poses of random configurations the reference finds free."""
    lower, upper = arm.chain.sampling_bounds()
    produced = 0
    while produced < count:
        q = rng.uniform(lower, upper)
        if not reference.colliding(q):
            produced += 1
            yield arm.kinematics.tip_pose(q)


def session(name: str, arm, model, reference, collision: bool, seconds: float, rng,
            mode: str = 'solve') -> str:
    """Run one random-target session; return its table row."""
    settings = Settings(collision_checking='enabled' if collision else 'disabled', mode=mode)
    guard = (CollisionGuard(CollisionChecker(model, settings.collision_padding,
                                             settings.collision_check_resolution))
             if collision else None)
    controller = IkController(arm, settings, collision=guard)
    q = np.array(HOME[name])
    now = 0.0
    controller.update_joint_state(arm.chain.joint_names, q, now)
    in_collision = reached = refused = timed_out = 0
    solve_times, cycle_times = [], []
    targets = free_targets(arm, reference, rng, 10 ** 6)
    while now < seconds:
        T_target = next(targets)
        controller.set_target('', T_target[:3, 3], _quaternion(T_target), 'pose')
        started = now
        outcome = None
        attempts = 0
        while outcome is None:
            now += PERIOD
            start = time.perf_counter()
            result = controller.cycle(now)
            elapsed = time.perf_counter() - start
            solving = controller.status.values.get('solve_attempts', 0) > attempts
            attempts = controller.status.values.get('solve_attempts', 0)
            (solve_times if solving else cycle_times).append(elapsed)
            if result.command is not None:
                q = result.command.q
                if reference.colliding(q):
                    in_collision += 1
            controller.update_joint_state(arm.chain.joint_names, q, now)
            e_p, e_o = pose_error(T_target, arm.kinematics.tip_pose(q))
            at_rest = result.command is not None and not np.any(result.command.velocity)
            if np.linalg.norm(e_p) < 1e-3 and np.linalg.norm(e_o) < 1e-2 and at_rest:
                outcome = 'reached'
            elif controller.status.message.startswith('target refused'):
                outcome = 'refused'
            elif now - started > TARGET_SECONDS:
                outcome = 'timed out'
        reached += outcome == 'reached'
        refused += outcome == 'refused'
        timed_out += outcome == 'timed out'
    total = reached + refused + timed_out
    solve = (f'{np.median(solve_times) * 1e3:9.2f} {np.percentile(solve_times, 95) * 1e3:9.2f}'
             if solve_times else f'{"-":>9s} {"-":>9s}')
    return (f'{name:6s} {mode:5s} {"on" if collision else "off":9s} {total:7d} '
            f'{reached / total:8.1%} '
            f'{refused:7d} {timed_out:9d} {in_collision:12d} {solve} '
            f'{np.median(cycle_times) * 1e3:9.3f} {np.percentile(cycle_times, 95) * 1e3:9.3f}')


def _quaternion(T: np.ndarray) -> np.ndarray:
    """Return the (x, y, z, w) quaternion of a pose."""
    from ros_ik.kinematics.transforms import matrix_to_quaternion
    return matrix_to_quaternion(T[:3, :3])


def main() -> None:
    """Print the check costs and the session table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=SESSION_SECONDS)
    parser.add_argument('--arms', nargs='+', default=['ur5', 'panda'])
    arguments = parser.parse_args()
    if mesh_search_folder() is None:
        sys.exit('example-robot-data is not installed (pip install example-robot-data)')
    warm_up_collision_kernels()
    rng = np.random.default_rng(7)
    setups = {name: setup(name) for name in arguments.arms}
    print('check costs (median, this machine):')
    for name, (_, model, _) in setups.items():
        check_costs(name, model, rng)
    print(f'\nrandom free targets, {arguments.seconds:g} s of 100 Hz cycles per row, every '
          'command checked with Pinocchio + coal on the meshes (SRDF, floor at z = 0)')
    print('arm    mode  collision targets  reached refused timed_out in_collision '
          'solve_p50 solve_p95 cycle_p50 cycle_p95   (ms)')
    for name, (arm, model, reference) in setups.items():
        for mode in ('solve', 'servo'):
            for collision in (False, True):
                print(session(name, arm, model, reference, collision, arguments.seconds,
                              np.random.default_rng(11), mode), flush=True)


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_collision', main)
