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

"""Tests of the demo's jog check: a stall counts over the IK node's cycles, not wall time."""

import numpy as np
from ros_ik.demo.jog_runner import progress_never_stalls

PERIOD = 0.01  # s: the node's control cycles (100 Hz)
WINDOW = 25  # cycles: 0.25 s of them


def jog(pause: tuple, node_ran_during_pause: bool) -> tuple:
    """
    Return (times, along, cycles) of a 4 s jog at 0.05 m/s, sampled every 20 ms.

    The tool stands still during ``pause`` (start, end s); the node's cycles run every
    10 ms except during the pause when ``node_ran_during_pause`` is False.
    """
    times = np.arange(0.0, 4.0, 0.02)
    moving = (times < pause[0]) | (times >= pause[1])
    along = np.concatenate([[0.0], np.cumsum(0.05 * 0.02 * moving[1:])])
    cycles = np.arange(0.0, 4.0, PERIOD)
    if not node_ran_during_pause:
        cycles = cycles[(cycles < pause[0]) | (cycles >= pause[1])]
    return times, along, cycles


def test_a_steady_jog_never_stalls():
    """Check a tool advancing at every sample passes from the ramp on."""
    times, along, cycles = jog((10.0, 10.0), True)
    assert progress_never_stalls(times, along, cycles, WINDOW, 0.5)


def test_a_pause_while_the_node_runs_is_a_stall_and_one_while_it_does_not_is_not():
    """Check a 0.3 s pause: a stall with the node's cycles in it, none without them."""
    for pause in [(1.0, 1.3), (2.02, 2.5), (3.0, 3.26)]:
        assert not progress_never_stalls(*jog(pause, True), WINDOW, 0.5), pause
        assert progress_never_stalls(*jog(pause, False), WINDOW, 0.5), pause


def test_a_short_pause_within_the_window_and_one_in_the_ramp_are_no_stall():
    """Check a 0.2 s pause (under the 0.25 s window) and a pause before ``after`` pass."""
    assert progress_never_stalls(*jog((1.0, 1.2), True), WINDOW, 0.5)
    assert progress_never_stalls(*jog((0.0, 0.4), True), WINDOW, 0.5)
    assert not progress_never_stalls(*jog((0.0, 0.4), True), WINDOW, 0.0)
