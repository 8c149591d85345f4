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
Compile (first run) or load (later runs) the numba kernels of the collision checks.

Like :mod:`ros_ik.kinematics.kernel_warm_up`: ``ik_node`` calls
:func:`warm_up_collision_kernels` at start-up when collision checking is on, and ``make``
runs ``python -m ros_ik.collision.kernel_warm_up`` after installing the package, so no
control cycle and no test deadline pays for a compilation.
"""

import time

import numpy as np
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_setup import build_collision_model
from ros_ik.collision.scene import parse_scene
from ros_ik.collision.velocity_damper import damped_velocity, DamperRule
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.kernel_cache import drop_stale_kernel_caches
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels
from ros_ik.kinematics.urdf_loader import load_urdf_string
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.online_generator import MotionState, OnlineGenerator

WARM_UP_URDF = (
    '<robot name="warm_up"><link name="base"/>'
    '<link name="arm"><collision><geometry><cylinder radius="0.05" length="0.5"/></geometry>'
    '</collision></link>'
    '<joint name="turn" type="revolute"><parent link="base"/><child link="arm"/>'
    '<origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>'
    '<limit lower="-3" upper="3" velocity="1" effort="1"/></joint></robot>')
WARM_UP_SCENE = ('objects: [{name: block, type: box, size: [0.2, 0.2, 0.2], '
                 'pose: {xyz: [0.3, 0.0, 0.45]}}]')  # passed close by: every kernel runs


def warm_up_collision_kernels() -> float:
    """
    Call every compiled collision kernel once on a one-joint arm; return the seconds.

    Caches of older sources are removed first (:mod:`ros_ik.kinematics.kernel_cache`).
    """
    start = time.perf_counter()
    drop_stale_kernel_caches()
    kinematics = ChainKinematics(load_urdf_string(WARM_UP_URDF, 'base', 'arm'))
    model, _ = build_collision_model(WARM_UP_URDF, kinematics, '', parse_scene(WARM_UP_SCENE),
                                     lambda package: None)
    checker = CollisionChecker(model, 0.0, 0.01)
    generator = OnlineGenerator(MotionLimits(np.array([-3.0]), np.array([3.0]), np.ones(1),
                                             np.ones(1), np.full(1, 10.0)))
    checker.first_contact(*generator.samples(MotionState.at_rest(np.zeros(1)), np.ones(1),
                                             model.motion_weights, 0.01, 10000))
    moving = generator.step(MotionState.at_rest(np.zeros(1)), np.ones(1), 0.1).state
    checker.first_contact(*generator.step_and_stop_samples(
        MotionState.at_rest(np.zeros(1)), moving, 0.1, model.motion_weights, 0.01, 10000))
    q = np.array([1.2])
    damped_velocity(checker, q, np.ones(1), np.eye(1), DamperRule(0.02, 1.0, 0.5, 0.0), 0.02)
    return time.perf_counter() - start


def main() -> None:
    """Warm the kernel caches of the core and the collision checks; say how long it took."""
    print(f'ros_ik: numba kernels ready in {warm_up_kernels() + warm_up_collision_kernels():.1f}'
          ' s')


if __name__ == '__main__':
    main()
