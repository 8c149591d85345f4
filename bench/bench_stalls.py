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
Faults of a strict physics arm when the IK node's process stalls, per command type.

For a bundled arm: ``physics_arm`` strict driven by ``ik_node`` (servo mode) with each
command type, and the position streams also through ``position_stream_bridge`` (ik_node
sends JointTrajectory horizons to the bridge, a process of its own, which streams
JointState or Float64MultiArray from them at 500 Hz): :mod:`ros_ik_testing.stall_loop`.
The benchmark stops ik_node's process (SIGSTOP, then SIGCONT) for each stall length,
``--repeats`` times with the arm at rest on its target and as many times while it moves (a
new target, stopped once a joint moves at over 30 % of its velocity limit), and counts the
arm's faults (its latched ``~/faults``) and the targets not reached within 15 s.

Run: ``.venv/bin/python bench/bench_stalls.py [--arm ur5] [--repeats 20]`` (after
``make install``; ``--write-docs``: into docs/benchmarks.md).
"""

import argparse
import os
import random
import sys
import tempfile
from typing import Dict, List

from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS
from ros_ik.tools.node_processes import ProcessGroup, RosPeer

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPOSITORY, os.path.join(REPOSITORY, 'test')]  # ros_ik, ros_ik_testing
from ros_ik_testing.stall_loop import StallRun  # noqa: E402, I100

# name: (the command type the arm takes, whether through the bridge)
SETUPS = {'joint_trajectory': ('joint_trajectory', False),
          'joint_state': ('joint_state', False),
          'float64_multi_array': ('float64_multi_array', False),
          'joint_state+bridge': ('joint_state', True),
          'float64_multi_array+bridge': ('float64_multi_array', True)}


def main() -> None:
    """Run every setup and stall length; print the table."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--arm', default='ur5', choices=sorted(BUNDLED_ARMS))
    parser.add_argument('--repeats', type=int, default=20)
    parser.add_argument('--stalls', type=float, nargs='+', default=[0.02, 0.05, 0.1, 0.5],
                        help='stall lengths [s]')
    parser.add_argument('--setups', nargs='+', default=list(SETUPS), choices=list(SETUPS))
    args = parser.parse_args()
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', str(random.SystemRandom().randint(1, 100)))
    rows: List[Dict] = []
    for name in args.setups:
        command_type, bridged = SETUPS[name]
        logs = tempfile.mkdtemp(prefix='bench_stalls_')
        processes, peer = ProcessGroup(), RosPeer('bench_stalls')
        try:
            run = StallRun(args.arm, command_type, bridged, logs, processes, peer)
            for seconds in args.stalls:
                counts = {False: [0, 0], True: [0, 0]}
                for repeat in range(args.repeats):
                    for while_moving in (False, True):
                        faults, reached = run.trial(run.poses[(2 * repeat + while_moving) % 2],
                                                    seconds, while_moving)
                        counts[while_moving][0] += faults
                        counts[while_moving][1] += not reached
                rows.append({'setup': name,
                             'stall': seconds, 'rest': counts[False], 'moving': counts[True]})
                print(rows[-1], file=sys.stderr, flush=True)
        finally:
            peer.close()
            processes.stop_all()
    print(f'\n{args.arm}, physics_arm strict, ik_node servo; {args.repeats} stalls of each '
          'length at rest and as many while moving\n')
    print(f'{"commands":<36}{"stall ms":>9}{"faults at rest":>16}{"faults moving":>15}'
          f'{"not reached":>13}')
    for row in rows:
        print(f'{row["setup"]:<36}{1e3 * row["stall"]:>9.0f}{row["rest"][0]:>16d}'
              f'{row["moving"][0]:>15d}{row["rest"][1] + row["moving"][1]:>13d}')


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_stalls', main)
