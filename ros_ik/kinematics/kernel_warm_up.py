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
Compile (first run on a machine) or load (later runs) every numba kernel of the core.

numba compiles a kernel at its first call and, with ``cache=True``, stores the machine code
next to the module (or in the user's cache directory where that is read-only). A cold
compile of all kernels takes about 15 s on a 2-core machine, a cache load about 0.3 s.
``ik_node`` calls :func:`warm_up_kernels` at start-up, so no control cycle pays for it, and
``make`` runs ``python -m ros_ik.kinematics.kernel_warm_up`` after installing the package.
Before loading any, the warm-up removes caches older than the package's sources
(:mod:`ros_ik.kinematics.kernel_cache`: numba checks only a kernel's own file).
"""

import time

import numpy as np

from ros_ik.kinematics.bundled_arms import load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.ik_solver import IkOptions, IkSolver
from ros_ik.kinematics.joint_limits import nearest_row_distance, speed_scale
from ros_ik.kinematics.kernel_cache import drop_stale_kernel_caches
from ros_ik.kinematics.servo_step import ServoController, ServoOptions
from ros_ik.kinematics.transforms import rotation_vector
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.online_generator import MotionState, OnlineGenerator

WARM_UP_ARM = 'planar_2link'


def warm_up_kernels() -> float:
    """
    Call every compiled kernel once on the bundled planar arm; return the seconds taken.

    Caches of older sources are removed first, so stale kernels never load.
    """
    start = time.perf_counter()
    drop_stale_kernel_caches()
    chain = load_bundled_chain(WARM_UP_ARM)
    kinematics = ChainKinematics(chain)
    q = chain.middle_configuration() + 0.3
    T_base_target = kinematics.tip_pose(q)
    solver = IkSolver(kinematics, IkOptions(max_attempts=1))
    solver.solve(T_base_target, chain.middle_configuration())
    solver.first_solutions(T_base_target[None], chain.middle_configuration())
    ServoController(kinematics).step(chain.middle_configuration(), T_base_target,
                                     ServoOptions())
    n = chain.n_joints
    generator = OnlineGenerator(MotionLimits(chain.lower, chain.upper, chain.velocity_limits,
                                             np.ones(n), np.full(n, 10.0)))
    moving = generator.step(MotionState.at_rest(q), q + 0.1, 0.01)
    generator.brake_step(moving.state, 0.01).state.is_finite()
    generator.between(moving.plan, np.array([0.005]))
    generator.stop_samples(moving.state)
    nearest_row_distance(np.zeros((2, n)), 0, 2, q, np.zeros(n, dtype=bool))
    kinematics.link_poses(q)
    speed_scale(q, np.ones(n))
    rotation_vector(T_base_target[:3, :3])
    return time.perf_counter() - start


def main() -> None:
    """Warm the kernel cache and say how long it took."""
    print(f'ros_ik: numba kernels ready in {warm_up_kernels():.1f} s')


if __name__ == '__main__':
    main()
