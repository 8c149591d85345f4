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
Compile (first run) or load (later runs) the numba kernels of Cartesian paths.

Like :mod:`ros_ik.collision.kernel_warm_up`: ``ik_node`` calls
:func:`warm_up_path_kernels` at start-up, and ``make`` runs ``python -m
ros_ik.paths.kernel_warm_up`` (every layer's kernels) after installing the package, so no
control cycle and no test deadline pays for a compilation: a short blended path on the
bundled planar arm, with a collision check, runs every kernel.
"""

import time

import numpy as np
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_setup import build_collision_model
from ros_ik.collision.kernel_warm_up import warm_up_collision_kernels, WARM_UP_URDF
from ros_ik.kinematics.bundled_arms import load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.ik_solver import IkSolver
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels
from ros_ik.kinematics.urdf_loader import load_urdf_string
from ros_ik.paths.cartesian_planner import plan_cartesian_path
from ros_ik.paths.path_timing import Caps
from ros_ik.paths.stretch_planner import PathTask
from ros_ik.trajectory.motion_limits import MotionLimits

WARM_UP_ARM = 'planar_2link'
PLANAR_MASK = (True, True, False, False, False, False)
TURN_MASK = (False, False, False, False, True, False)  # the one-joint arm turns about y


def warm_up_path_kernels() -> float:
    """Plan short paths (blended; along a one-joint arm with its checks); return seconds."""
    start = time.perf_counter()
    chain = load_bundled_chain(WARM_UP_ARM)
    kinematics = ChainKinematics(chain)
    n = chain.n_joints
    limits = MotionLimits(chain.lower, chain.upper, chain.velocity_limits, np.ones(n),
                          np.full(n, 10.0))
    q = chain.middle_configuration() + 0.4
    T_start = kinematics.tip_pose(q)
    corners = [T_start.copy() for _ in range(3)]
    corners[1][0, 3] += 0.1
    corners[2][:2, 3] += 0.1
    plan_cartesian_path(PathTask(kinematics, IkSolver(kinematics), limits, PLANAR_MASK,
                                 caps=Caps(0.5, 1.0)), corners, q, blend_radius=0.02)
    one_joint = ChainKinematics(load_urdf_string(WARM_UP_URDF, 'base', 'arm'))
    model, _ = build_collision_model(WARM_UP_URDF, one_joint, '', [], lambda package: None)
    limits = MotionLimits(np.array([-3.0]), np.array([3.0]), np.ones(1), np.ones(1),
                          np.full(1, 10.0))
    T_arm = one_joint.tip_pose(np.zeros(1))
    T_turned = one_joint.tip_pose(np.array([0.3]))
    plan_cartesian_path(PathTask(one_joint, IkSolver(one_joint), limits, TURN_MASK,
                                 caps=Caps(0.5, 1.0),
                                 checker=CollisionChecker(model, 0.0, 0.01)),
                        [T_arm, T_turned], np.zeros(1))
    return time.perf_counter() - start


def main() -> None:
    """Warm the kernel caches of every layer; say how long it took."""
    seconds = warm_up_kernels() + warm_up_collision_kernels() + warm_up_path_kernels()
    print(f'ros_ik: numba kernels ready in {seconds:.1f} s')


if __name__ == '__main__':
    main()
