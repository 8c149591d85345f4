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
What ros2_control's controllers execute of the node's commands: JTC, forward controller, stall.

The controller (bundled UR5 and Panda, their joint_limits.yaml, velocity_scale 0.5) runs in
closed loop with an emulated controller on a simulated clock
(:mod:`ros_ik_testing.ros2_control_loop`): the node's real messages, cycles 10 % irregular,
each message delivered 0 to ``jitter`` ms late. Per row, 8 random reachable targets 6 s
apart. Columns: messages rejected by joint_trajectory_controller's validation (default
parameters), the setpoint's peak velocity, acceleration and jerk over the limits (divided
differences of the setpoint sampled at the controller's rate), targets reached (2 mm).
The goals: 0 rejected; 1.05 / 1.1 / 2; solve 8/8. The forward controller takes the newest
array at each update. The stall table stops the node's cycles for 0.5 s at t = 2 s (no
jitter, to isolate it) and gives the setpoint's peak speed over ``velocity_scale`` (goal
<= 1.05).

Run: ``.venv/bin/python bench/bench_ros2_control.py [--targets 8]``.
"""

import argparse
import os
import sys

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPOSITORY, os.path.join(REPOSITORY, 'test')]  # ros_ik, ros_ik_testing

import numpy as np  # noqa: E402
from ros_ik.control.arm import ControlledArm  # noqa: E402
from ros_ik.control.controller import IkController  # noqa: E402
from ros_ik.control.parameters import Settings  # noqa: E402
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,  # noqa
                                            load_bundled_chain)
from ros_ik.kinematics.task_space import axes_text  # noqa: E402
from ros_ik_testing.ros2_control_loop import (LoopFaults, run_random_targets,  # noqa: E402
                                              setpoint_peaks, wall_speed)

TIMER_JITTER = 0.1
SECONDS_PER_TARGET = 6.0


def controller(arm_name: str, mode: str, command_type: str, update_rate: float = 100.0
               ) -> IkController:
    """Return the controller of a bundled arm as the node builds it (no collision checks)."""
    chain = load_bundled_chain(arm_name)
    axes = axes_text(BUNDLED_ARMS[arm_name].task_rows)
    settings = Settings.from_values({
        'base_link': chain.base_link, 'tip_link': chain.tip_link, 'task_axes': axes,
        'joint_limits_file': bundled_joint_limits_path(arm_name), 'mode': mode,
        'command_type': command_type, 'update_rate': update_rate})
    return IkController(ControlledArm.from_chain(chain, axes), settings)


def row(arm_name: str, mode: str, command_type: str, controller_rate: float,
        faults: LoopFaults, targets: int, update_rate: float = 100.0):
    """Run one configuration; return (loop, reached)."""
    ik = controller(arm_name, mode, command_type, update_rate)
    return run_random_targets(ik, np.array(BUNDLED_ARMS[arm_name].home), controller_rate,
                              faults, targets, SECONDS_PER_TARGET)


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--targets', type=int, default=8)
    args = parser.parse_args()
    print('joint_trajectory_controller, default parameters (update_rate 100 Hz)')
    print('| arm | mode | JTC rate | jitter | rejected | velocity | acceleration | jerk | '
          'reached |')
    print('|---|---|---|---|---|---|---|---|---|')
    for arm_name in ('ur5', 'panda'):
        for mode in ('solve', 'servo'):
            for rate, jitter in ((500.0, 0.0), (500.0, 0.002), (500.0, 0.005),
                                 (1000.0, 0.005)):
                loop, reached = row(arm_name, mode, 'joint_trajectory', rate, LoopFaults(
                    delivery_jitter=jitter, timer_jitter=TIMER_JITTER), args.targets)
                ratios = setpoint_peaks(loop.record, loop.controller)
                print(f'| {arm_name} | {mode} | {rate:.0f} Hz | {1e3 * jitter:.0f} ms | '
                      f'{len(loop.record.rejections)} / {loop.record.messages} | '
                      f'{ratios[0]:.3f} | {ratios[1]:.3f} | {ratios[2]:.3f} | '
                      f'{reached}/{args.targets} |')
    print('\nforward position controller at 500 Hz, node update_rate 500 Hz, delivered at once')
    print('| arm | node timer jitter | velocity | acceleration | jerk | reached |')
    print('|---|---|---|---|---|---|')
    for arm_name in ('ur5', 'panda'):
        for timer_jitter in (0.0, 0.02):
            loop, reached = row(arm_name, 'solve', 'float64_multi_array', 500.0,
                                LoopFaults(timer_jitter=timer_jitter), args.targets, 500.0)
            ratios = setpoint_peaks(loop.record, loop.controller)
            print(f'| {arm_name} | {100 * timer_jitter:.0f} % | {ratios[0]:.3f} | '
                  f'{ratios[1]:.1f} | {ratios[2]:.1f} | {reached}/{args.targets} |')
    print('\n0.5 s stall of the node at t = 2 s, no jitter (JTC at 500 Hz; JointState '
          'stream to a perfect arm, sampled at the node rate)')
    print('| arm | mode | command_type | peak speed / velocity_scale | rejected | reached |')
    print('|---|---|---|---|---|---|')
    stall = LoopFaults(stall_at=2.0, stall_seconds=0.5)
    for arm_name in ('ur5', 'panda'):
        for mode in ('solve', 'servo'):
            for command_type in ('joint_trajectory', 'joint_state'):
                # a position stream is sampled where its commands land (the node's rate)
                rate = 500.0 if command_type == 'joint_trajectory' else 100.0
                loop, reached = row(arm_name, mode, command_type, rate, stall, args.targets)
                ik = loop.controller
                speed = wall_speed(loop.record, ik, 0.0) / ik.settings.velocity_scale
                print(f'| {arm_name} | {mode} | {command_type} | {speed:.3f} | '
                      f'{len(loop.record.rejections)} | {reached}/{args.targets} |')


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_ros2_control', main)
