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

"""Tests of the demo's path recording: the approach to the first corner is not the path."""

import numpy as np
from ros_ik.demo.driver import setpoint_times
from ros_ik.demo.path_runner import PathRecording

CORNERS = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.1, 0.1, 0.0]])


def recording(points: np.ndarray, period: float = 0.01) -> PathRecording:
    """Return a recording of ``points`` (k, 3) commanded every ``period`` s, cap 0.1 m/s."""
    return PathRecording(stamps=list(period * np.arange(len(points))),
                         positions=list(points), corners=CORNERS, speed_cap=0.1)


def test_the_approach_is_left_out_of_the_path_and_its_speed():
    """Check a fast joint-space approach (3 m/s) does not count as the path's tool speed."""
    approach = np.linspace([0.3, 0.0, 0.0], [0.0, 0.0, 0.0], 11)[:-1]  # 0.03 m per 10 ms
    along = np.linspace([0.0, 0.0, 0.0], [0.1, 0.0, 0.0], 101)  # 1 mm per 10 ms: 0.1 m/s
    path = recording(np.vstack([approach, along]))
    assert path.approach_count() == len(approach)
    stamps, positions = path.following()
    assert len(stamps) == len(along) and np.allclose(positions, along)
    assert np.allclose(path.speeds(), 0.1)
    assert np.linalg.norm(np.diff(np.array(path.positions), axis=0), axis=1).max() > 0.02


def test_a_path_from_the_first_corner_has_no_approach_and_one_that_never_gets_there_no_path():
    """Check the two ends: the tool at the first corner from the start, and never there."""
    along = np.linspace([0.0, 0.0, 0.0], [0.1, 0.0, 0.0], 11)
    assert recording(along).approach_count() == 0
    assert len(recording(along).speeds()) == len(along) - 1
    away = np.linspace([0.3, 0.0, 0.0], [0.2, 0.0, 0.0], 11)
    assert recording(away).approach_count() == len(away)
    assert len(recording(away).speeds()) == 0
    assert PathRecording(corners=CORNERS).approach_count() == 0


def test_the_emulated_controller_runs_on_a_grid_without_near_duplicate_times():
    """Check the setpoint times: a period apart, ending at ``until``, none closer than half."""
    period = 0.002
    for after, until in [(0.0, 0.01), (1.0, 1.0 + 5 * period), (3.3, 3.3 + 0.0031),
                         (12345.678, 12345.678 + 0.0007), (0.1, 0.1 + 17 * 0.002)]:
        times = setpoint_times(after, until, period)
        assert times[-1] == until
        steps = np.diff(np.concatenate([[after], times]))
        assert np.all(steps >= 0.5 * period - 1e-12) or len(times) == 1, steps
        assert np.all(steps <= 1.5 * period + 1e-12), steps
