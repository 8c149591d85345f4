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
Time FK + Jacobian of ros_ik against Pinocchio (C++) on the 6- and 7-DOF arms.

Prints microseconds per call (fastest of the repeats) for one configuration, and for a batch of
8 configurations (ros_ik's batched call against 8 Pinocchio calls), and the ratio. ros_ik's
time is the public ``ChainKinematics.tip_pose_and_jacobian`` call: the numba kernel plus its
Python wrapper (argument checks, output allocation), as a user calls it.
Run: ``.venv/bin/python bench/bench_kinematics.py [--number N] [--repeat R]``.
"""

import argparse
import os
import sys
import timeit

import numpy as np
import pinocchio

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path  # noqa: E402
from ros_ik.kinematics.chain_kinematics import ChainKinematics  # noqa: E402
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels  # noqa: E402
from ros_ik.kinematics.urdf_loader import load_urdf_file  # noqa: E402

BATCH = 8


def best_microseconds(function, number: int, repeat: int) -> float:
    """Return the fastest of ``repeat`` runs as time per call in microseconds (timeit advice)."""
    return min(timeit.repeat(function, number=number, repeat=repeat)) / number * 1e6


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--number', type=int, default=2000, help='calls per repeat')
    parser.add_argument('--repeat', type=int, default=7, help='repeats (fastest reported)')
    args = parser.parse_args()
    warm_up_kernels()  # compile (first run) or load the numba kernels before any timing
    print(f'{"arm":<8}{"dof":>4}{"batch":>6}{"ros_ik us":>11}{"pinocchio us":>14}{"ratio":>8}')
    for name in ('ur5', 'panda'):
        arm = BUNDLED_ARMS[name]
        chain = load_urdf_file(bundled_urdf_path(name), arm.base_link, arm.tip_link)
        kinematics = ChainKinematics(chain)
        model = pinocchio.buildModelFromUrdf(bundled_urdf_path(name))
        data = model.createData()
        frame_id = model.getFrameId(arm.tip_link)
        rng = np.random.default_rng(0)
        Q = rng.uniform(chain.lower, chain.upper, size=(BATCH, chain.n_joints))

        def pinocchio_call(q):
            J = pinocchio.computeFrameJacobian(model, data, q, frame_id,
                                               pinocchio.LOCAL_WORLD_ALIGNED)
            return pinocchio.updateFramePlacement(model, data, frame_id), J

        for batch in (1, BATCH):
            q = Q[0] if batch == 1 else Q
            ours = best_microseconds(lambda: kinematics.tip_pose_and_jacobian(q),
                                     args.number, args.repeat)
            if batch == 1:
                theirs = best_microseconds(lambda: pinocchio_call(Q[0]), args.number,
                                           args.repeat)
            else:
                theirs = best_microseconds(lambda: [pinocchio_call(row) for row in Q],
                                           args.number, args.repeat)
            print(f'{name:<8}{chain.n_joints:>4}{batch:>6}{ours:>11.2f}{theirs:>14.2f}'
                  f'{ours / theirs:>8.2f}')


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_kinematics', main)
