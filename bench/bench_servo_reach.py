#!/usr/bin/env python3
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
Servo reach benchmark: servo mode toward every reachable target, and how fast it arrives.

For every bundled arm and example-robot-data's UR5, Panda, Kinova (a Jaco2: the package has
no Gen3) and xArm7, ``TARGETS`` poses of random configurations inside the limits (seeded,
so reachable) are sent one at a time to the ROS-free controller in a deterministic closed
loop (:mod:`ros_ik_testing.reach_loop`: a perfect arm at 100 Hz, simulated time, no
collision model), from the arm's home and from exactly singular starts, in servo mode; the
same targets from the same start in solve mode give the reference time. Per arm and start
it prints: the smallest singular value of the task Jacobian at the start, targets reached
within ``SECONDS`` s (tolerances 1 mm and 0.01 rad), the servo's recoveries (escapes from a
singular configuration, fallbacks from a joint limit or local minimum), the median and
largest time to reach, the targets solve mode reached from the same start and its median
time, the ratio of the medians, the stream's peak velocity, acceleration or jerk over
its limit from the command stamps (1: at the limit), and the median over the targets of the
tool's largest distance from the line through its start and the target (mm; at the
commanded joints, escapes and fallbacks included: how straight the servo's tool motion is).

Run: ``.venv/bin/python bench/bench_servo_reach.py [--targets N] [--arms A,B]
[--max-linear-speed M] [--max-angular-speed W] [--write-docs]`` (``--arms``: labels as
printed, e.g. ``planar_2link,erd ur5``; ``--max-linear-speed`` and ``--max-angular-speed``:
the servo's tool speed caps in m/s and rad/s instead of the parameters' defaults, which
bind on an arm as long as the planar one and on fast wrists).
"""

import argparse
import os
import sys
from typing import Callable, Dict, List, Optional, Tuple

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPOSITORY, os.path.join(REPOSITORY, 'test')]  # ros_ik, ros_ik_testing

import numpy as np  # noqa: E402
from ros_ik.control.controller import IkController  # noqa: E402
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS  # noqa: E402
from ros_ik.kinematics.manipulability import manipulability, task_jacobian  # noqa: E402
from ros_ik_testing.reach_loop import (bundled_controller, example_controller,  # noqa: E402
                                       EXAMPLE_HOMES, EXAMPLE_SINGULAR_STARTS,
                                       random_configurations, reach, ReachRun,
                                       SINGULAR_STARTS)

TARGETS = 50
SECONDS = 60.0  # s of simulated time per target
SEED = 7


def arms(settings: Dict[str, float]
         ) -> List[Tuple[str, Callable[..., Optional[IkController]], Dict[str, tuple]]]:
    """Return (label, controller factory, starts by name) of every arm, with ``settings``."""
    measured = []
    for name, arm in BUNDLED_ARMS.items():
        starts = {'home': arm.home, **SINGULAR_STARTS[name]}
        measured.append((name, lambda mode, name=name: bundled_controller(
            name, mode=mode, **settings), starts))
    for name, home in EXAMPLE_HOMES.items():
        starts = {'home': home, **EXAMPLE_SINGULAR_STARTS[name]}
        measured.append((f'erd {name}', lambda mode, name=name: example_controller(
            name, mode=mode, **settings), starts))
    return measured


def runs(make: Callable[..., IkController], mode: str, start: tuple,
         configurations: np.ndarray) -> List[ReachRun]:
    """Return one run per target (a fresh controller each) from ``start`` in ``mode``."""
    results = []
    for q_target in configurations:
        controller = make(mode)
        T_base_target = controller.arm.kinematics.tip_pose(q_target)
        position_only = len(controller.arm.task_rows) == 3
        results.append(reach(controller, np.array(start), T_base_target, SECONDS,
                             position_only=position_only))
    return results


def sigma_min_at(controller: IkController, q: tuple) -> float:
    """Return the smallest singular value of the task Jacobian at ``q`` (m/rad)."""
    J = controller.arm.kinematics.jacobian(np.array(q, dtype=float))
    return manipulability(task_jacobian(J, controller.arm.task_rows)).sigma_min


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--targets', type=int, default=TARGETS)
    parser.add_argument('--arms', default='', help='comma-separated labels (default: all)')
    parser.add_argument('--max-linear-speed', type=float, default=None,
                        help="the servo's tool speed cap [m/s] (default: the parameter's)")
    parser.add_argument('--max-angular-speed', type=float, default=None,
                        help="the servo's tool angular speed cap [rad/s] (default: the "
                             "parameter's)")
    arguments = parser.parse_known_args()[0]
    count = arguments.targets
    settings = {name: value for name, value in (
        ('max_linear_speed', arguments.max_linear_speed),
        ('max_angular_speed', arguments.max_angular_speed)) if value is not None}
    chosen = [label for label in arguments.arms.split(',') if label]
    print(f'{count} random reachable targets per arm, {SECONDS:g} s each, 100 Hz, seed {SEED}'
          + ''.join(f', {key} {value:g}' for key, value in settings.items()))
    print(f'{"arm":<13}{"start":<30}{"sigma":>9}{"reached":>9}{"esc":>5}{"fall":>5}'
          f'{"median s":>10}{"max s":>8}{"solved":>9}{"solve s":>9}{"ratio":>7}{"peak":>7}'
          f'{"line mm":>9}')
    for label, make, starts in arms(settings):
        if chosen and label not in chosen:
            continue
        probe = make('servo')
        if probe is None:
            print(f'{label:<13}example-robot-data is not installed')
            continue
        configurations = random_configurations(probe.arm.chain, count, SEED)
        for start_name, start in starts.items():
            solve_times = [run.seconds for run in runs(make, 'solve', start, configurations)
                           if run.reached]
            solve_median = float(np.median(solve_times)) if solve_times else float('nan')
            servo = runs(make, 'servo', start, configurations)
            times = [run.seconds for run in servo if run.reached]
            median = float(np.median(times)) if times else float('nan')
            escapes = sum(run.recoveries.count('escape') for run in servo)
            fallbacks = sum(run.recoveries.count('fallback') for run in servo)
            peak = max(run.peak_ratio for run in servo)
            off_line = 1e3 * float(np.median([run.off_line for run in servo]))
            print(f'{label:<13}{start_name:<30}{sigma_min_at(probe, start):>9.2g}'
                  f'{len(times):>5}/{count:<3}{escapes:>5}{fallbacks:>5}{median:>10.2f}'
                  f'{max(times, default=float("nan")):>8.2f}'
                  f'{len(solve_times):>5}/{count:<3}{solve_median:>9.2f}'
                  f'{median / solve_median:>7.2f}{peak:>7.3f}{off_line:>9.0f}', flush=True)


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_servo_reach', main)
