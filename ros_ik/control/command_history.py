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
The recent command stream, to tell an arm that follows with a delay from one that lags.

Joint states arrive late (driver latency, a 10 Hz driver, a slow network): the measured
joints match a command from some time ago, not the latest. The arm counts as following
while its joints are within ``max_tracking_error`` of *some* command of the last
``window`` seconds: ``lag = min_k max_j |q_k,j - q_measured,j|`` (continuous joints
compared modulo 2 pi, since drivers report them wrapped). Commands are kept every
``SPACING`` s (the newest always), so the cost does not grow with the control rate; between
two kept commands the path moves at most ``v_max SPACING``, a few mrad.
"""

import numpy as np

from ros_ik.kinematics.joint_limits import nearest_row_distance

SPACING = 0.005  # s between kept commands
INITIAL_ROWS = 128


class CommandHistory:
    """
    Commands (time s, positions (n,)) of the last ``window`` seconds.

    Kept in arrays (rows ``first`` to ``end - 1``; the newest command in the row after
    them), compacted when full: adding and measuring the lag cost no Python loop over the
    commands.
    """

    def __init__(self, is_continuous: np.ndarray) -> None:
        """Start empty; ``is_continuous`` (n,) marks joints compared modulo 2 pi."""
        self._is_continuous = np.asarray(is_continuous, dtype=bool)
        self._times = np.empty(INITIAL_ROWS)
        self._rows = np.empty((INITIAL_ROWS, len(self._is_continuous)))
        self._first = self._end = 0
        self._has_newest = False

    def clear(self) -> None:
        """Forget every command."""
        self._first = self._end = 0
        self._has_newest = False

    def add(self, time: float, q: np.ndarray, window: float) -> None:
        """Keep command ``q`` sent at ``time``; drop those older than ``window`` s."""
        if self._end == self._first or time >= self._times[self._end - 1] + SPACING:
            self._make_room()
            self._times[self._end] = time
            self._end += 1
            self._rows[self._end - 1] = q
        self._rows[self._end] = q  # the newest, kept in any case
        self._has_newest = True
        self._first += int(np.searchsorted(self._times[self._first:self._end], time - window))

    def _make_room(self) -> None:
        """Ensure two free rows after ``end`` (a kept command and the newest)."""
        if self._end + 2 <= len(self._times):
            return
        count = self._end - self._first
        capacity = max(len(self._times), 2 * (count + 2))
        times, rows = np.empty(capacity), np.empty((capacity, self._rows.shape[1]))
        times[:count] = self._times[self._first:self._end]
        rows[:count] = self._rows[self._first:self._end]
        self._times, self._rows, self._first, self._end = times, rows, 0, count

    def lag(self, q_measured: np.ndarray) -> float:
        """Return the distance (rad or m) from ``q_measured`` to the nearest kept command."""
        if not self._has_newest:
            return 0.0
        return nearest_row_distance(self._rows, self._first, self._end + 1,
                                    np.asarray(q_measured, dtype=float), self._is_continuous)
