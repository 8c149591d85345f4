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
from ros_ik.demo.jog_runner import first_stall, live_cycles

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
    assert first_stall(times, along, cycles, WINDOW, 0.5) is None


def test_a_pause_while_the_node_runs_is_a_stall_and_one_while_it_does_not_is_not():
    """Check a 0.3 s pause: a stall with the node's cycles in it, none without them."""
    for pause in [(1.0, 1.3), (2.02, 2.5), (3.0, 3.26)]:
        stall = first_stall(*jog(pause, True), WINDOW, 0.5)
        assert stall is not None and pause[0] - 0.25 <= stall <= pause[0], (pause, stall)
        assert first_stall(*jog(pause, False), WINDOW, 0.5) is None, pause


def test_a_short_pause_within_the_window_and_one_in_the_ramp_are_no_stall():
    """Check a 0.2 s pause (under the 0.25 s window) and a pause before ``after`` pass."""
    assert first_stall(*jog((1.0, 1.2), True), WINDOW, 0.5) is None
    assert first_stall(*jog((0.0, 0.4), True), WINDOW, 0.5) is None
    assert first_stall(*jog((0.0, 0.4), True), WINDOW, 0.0) == 0.0


def test_cycles_after_the_twists_stop_for_longer_than_the_jog_timeout_are_not_the_jogs():
    """Check a 0.5 s gap in the twists: the cycles 0.2 s after the last one are left out."""
    cycles = np.arange(0.0, 2.0, PERIOD)
    sent = np.concatenate([np.arange(0.0, 1.0, 0.02), np.arange(1.5, 2.0, 0.02)])
    live = live_cycles(cycles, sent, 0.2)
    gap = (cycles > 0.98 + 0.2 + 1e-9) & (cycles < 1.5)
    assert np.array_equal(live, cycles[~gap])
    assert len(live_cycles(cycles, np.zeros(0), 0.2)) == 0
    assert len(live_cycles(cycles, np.array([5.0]), 0.2)) == 0  # none sent before them
