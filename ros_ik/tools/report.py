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

"""Print a bundled (or given) arm's chain, joint limits, tip pose and manipulability."""

import argparse
import sys
from typing import List, Optional

import numpy as np

from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.manipulability import manipulability, task_jacobian
from ros_ik.kinematics.transforms import matrix_to_quaternion
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.tools.arm_selection import add_arm_arguments, load_selected_arm


def format_report(label: str, kinematics: ChainKinematics, task_rows, q: np.ndarray) -> str:
    """Return the text report of ``kinematics.chain`` at configuration ``q``."""
    chain = kinematics.chain
    lines: List[str] = [f'arm: {label}   chain: {chain.base_link} -> {chain.tip_link}, '
                        f'{chain.n_joints} moving joints', '',
                        f'{"joint":<22}{"type":<12}{"lower":>10}{"upper":>10}'
                        f'{"velocity":>10}{"q":>10}']
    for joint, value in zip(chain.joints, q):
        lines.append(f'{joint.name:<22}{joint.joint_type:<12}{joint.lower:>10.4f}'
                     f'{joint.upper:>10.4f}{joint.velocity:>10.4f}{value:>10.4f}')
    T_base_tip, J = kinematics.tip_pose_and_jacobian(q)
    x, y, z = T_base_tip[:3, 3]
    qx, qy, qz, qw = matrix_to_quaternion(T_base_tip[:3, :3])
    measures = manipulability(task_jacobian(J, task_rows))
    lines += ['', 'home pose:',
              f'  tip position [m]       : {x:.6f} {y:.6f} {z:.6f}',
              f'  tip orientation (xyzw) : {qx:.6f} {qy:.6f} {qz:.6f} {qw:.6f}',
              f'  task rows              : {list(task_rows)}',
              f'  manipulability w       : {measures.yoshikawa:.6g}',
              '  singular values        : '
              + ' '.join(f'{value:.4g}' for value in measures.singular_values),
              f'  condition number       : {measures.condition_number:.4g}']
    return '\n'.join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    """Print the report; exit 1 with the reason on a bad URDF."""
    parser = argparse.ArgumentParser(description=__doc__)
    add_arm_arguments(parser)
    args = parser.parse_args(argv)
    try:
        arm = load_selected_arm(args)
    except (UrdfError, ValueError) as error:
        print(f'error: {error}', file=sys.stderr)
        return 1
    kinematics = ChainKinematics(arm.chain)
    print(format_report(arm.label, kinematics, arm.task_rows, arm.home))
    return 0


if __name__ == '__main__':
    sys.exit(main())
