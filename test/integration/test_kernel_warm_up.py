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

"""The warm-up compiles every kernel the node uses, so no control cycle compiles one."""

import os
import subprocess
import sys
import tempfile

# Run with an empty numba cache: the warm-up must compile (events > 0), and the node's calls
# afterwards (IK full pose and position-only, servo, trajectory generator with its plan
# samples and state checks, FK, frames, log map, the command history's lag) must not.
CHECK = """
from numba.core import event
import numpy as np
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.damped_least_squares import COMMAND_DAMPING, damped_step
from ros_ik.kinematics.ik_solver import IkOptions, IkSolver
from ros_ik.kinematics.joint_limits import nearest_row_distance
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels
from ros_ik.kinematics.servo_step import ServoController, ServoOptions
from ros_ik.kinematics.task_space import POSITION_ONLY
from ros_ik.kinematics.transforms import pose_error
from ros_ik.kinematics.urdf_loader import load_urdf_file
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.online_generator import MotionState, OnlineGenerator
with event.install_recorder('numba:compile') as warm_up:
    warm_up_kernels()
arm = BUNDLED_ARMS['panda']
chain = load_urdf_file(bundled_urdf_path('panda'), arm.base_link, arm.tip_link)
with event.install_recorder('numba:compile') as later:
    solver = IkSolver(ChainKinematics(chain))
    q = chain.middle_configuration()
    T_base_target = solver.kinematics.tip_pose(q + 0.2)
    solver.solve(T_base_target, q)
    solver.solve(T_base_target, q, IkOptions(mask=POSITION_ONLY))
    ServoController(solver.kinematics).step(q, T_base_target, ServoOptions())
    n = chain.n_joints
    generator = OnlineGenerator(MotionLimits(chain.lower, chain.upper, chain.velocity_limits,
                                             np.full(n, 5.0), np.full(n, 50.0)))
    moving_step = generator.step(MotionState.at_rest(q), q + 0.5, 0.01, 0.5)
    moving = moving_step.state
    generator.brake_step(moving, 0.013).state.is_finite()
    generator.between(moving_step.plan, np.array([0.002, 0.004]))
    generator.stop_samples(moving)
    nearest_row_distance(np.zeros((3, n)), 1, 3, q, np.ones(n, dtype=bool))
    solver.kinematics.link_poses(q)
    pose_error(T_base_target, solver.kinematics.tip_pose(np.stack([q, q])))
    damped_step(solver.kinematics.jacobian(q), np.ones(6), COMMAND_DAMPING)
print(len(warm_up.buffer), len(later.buffer))
"""


def test_warm_up_compiles_every_kernel_the_node_calls():
    """Start from an empty cache; count numba compilations during and after the warm-up."""
    with tempfile.TemporaryDirectory() as cache:
        completed = subprocess.run([sys.executable, '-c', CHECK], capture_output=True,
                                   text=True, timeout=300,
                                   env={**os.environ, 'NUMBA_CACHE_DIR': cache})
    assert completed.returncode == 0, completed.stderr
    during, after = (int(count) for count in completed.stdout.split())
    assert during > 0
    assert after == 0
