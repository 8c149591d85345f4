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
Trajectory generator benchmark: rest-to-rest durations against Ruckig, and time per step.

For 1000 random problems per joint count (limits: v 0.2-5, a 0.5-30, j 2-2000 per s^k;
start and target within +-3.6), prints the ratio of ros_ik's synchronised duration to
Ruckig's (median, max; the goal is <= 1.1), the share within 1 %, and the time of one
``OnlineGenerator.step`` (us, median). Ruckig (``pip install ruckig``) is a reference only.

Run: ``.venv/bin/python bench/bench_trajectory.py [--problems 1000]``.
"""

import argparse
import importlib.util
import os
import sys
import time

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPOSITORY, os.path.join(REPOSITORY, 'test')]  # ros_ik, ros_ik_testing

import numpy as np  # noqa: E402
from ros_ik.trajectory.motion_limits import MotionLimits  # noqa: E402
from ros_ik.trajectory.online_generator import MotionState, OnlineGenerator  # noqa: E402
from ros_ik_testing.ruckig_reference import rest_to_rest_duration  # noqa: E402


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--problems', type=int, default=1000)
    args = parser.parse_args()
    if importlib.util.find_spec('ruckig') is None:
        print('ruckig is not installed (pip install ruckig); nothing to compare with')
        return
    rng = np.random.default_rng(11)
    print(f'{"joints":>6}{"median":>9}{"max":>9}{"<=1.01":>8}{"step us":>9}   '
          '(duration ratio ros_ik / Ruckig, rest to rest)')
    for n in (1, 2, 6, 7):
        ratios, step_times = [], []
        for _ in range(args.problems):
            limits = MotionLimits(np.full(n, -4.0), np.full(n, 4.0), rng.uniform(0.2, 5.0, n),
                                  rng.uniform(0.5, 30.0, n), rng.uniform(2.0, 2000.0, n))
            start, target = rng.uniform(-3.6, 3.6, n), rng.uniform(-3.6, 3.6, n)
            generator = OnlineGenerator(limits)
            state = MotionState.at_rest(start)
            ours = generator.duration(state, target)
            begin = time.perf_counter()
            generator.step(state, target, 0.01)
            step_times.append(time.perf_counter() - begin)
            ratios.append(ours / rest_to_rest_duration(limits, start, target))
        ratios = np.array(ratios)
        print(f'{n:>6}{np.median(ratios):>9.4f}{ratios.max():>9.4f}'
              f'{100.0 * np.mean(ratios <= 1.01):>7.1f}%'
              f'{1e6 * np.median(step_times):>9.1f}')


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_trajectory', main)
