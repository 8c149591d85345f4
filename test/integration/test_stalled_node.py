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
Stalls of ik_node's process never fault a strict physics arm that lags, sags and brakes.

ik_node (servo) drives the strict ``physics_arm`` (UR5, MuJoCo) with JointTrajectory into
its emulated joint_trajectory_controller, or through ``position_stream_bridge`` as a
position stream; its process is stopped (SIGSTOP, SIGCONT) for 20, 50, 100 and 500 ms while
the arm moves and once it rests on the target: the arm never faults and reaches every
target. (A position stream straight from ik_node cannot bridge its own stalls:
``bench/bench_stalls.py`` counts those faults.)
"""

import pytest
from ros_ik_testing.stall_loop import StallRun

STALLS = (0.02, 0.05, 0.1, 0.5)  # s


# JointState through the bridge is left out: with late horizons withdrawn the strict
# arm's acceleration from three stamped commands still faulted 10 times in the 120 stalls of
# 50-500 ms (bench_stalls.py), at rest too; not understood yet (docs/ros2_control.md).
@pytest.mark.parametrize('command_type, bridged', [('joint_trajectory', False),
                                                   ('float64_multi_array', True)])
def test_stalls_of_the_node_never_fault_the_strict_physics_arm(peer, processes, tmp_path,
                                                               command_type, bridged):
    """Stop ik_node at rest and while moving, each length: 0 faults, every target reached."""
    run = StallRun('ur5', command_type, bridged, str(tmp_path), processes, peer)
    outcomes = []
    for seconds in STALLS:
        for while_moving in (True, False):  # each trial moves to the other pose
            faults, reached = run.trial(run.poses[(len(outcomes) + 1) % 2], seconds,
                                        while_moving)
            outcomes.append((seconds, while_moving, faults, reached))
    assert all(faults == 0 and reached for _, _, faults, reached in outcomes), (
        outcomes, processes.processes[0].output()[-2000:])
