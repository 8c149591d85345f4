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

from collections import deque
from typing import Deque, Optional, Tuple

import numpy as np

from ros_ik.kinematics.joint_limits import wrapped_difference

SPACING = 0.005  # s between kept commands


class CommandHistory:
    """Commands (time s, positions (n,)) of the last ``window`` seconds."""

    def __init__(self, is_continuous: np.ndarray) -> None:
        """Start empty; ``is_continuous`` (n,) marks joints compared modulo 2 pi."""
        self._is_continuous = np.asarray(is_continuous, dtype=bool)
        self._commands: Deque[Tuple[float, np.ndarray]] = deque()
        self._newest: Optional[np.ndarray] = None

    def clear(self) -> None:
        """Forget every command."""
        self._commands.clear()
        self._newest = None

    def add(self, time: float, q: np.ndarray, window: float) -> None:
        """Keep command ``q`` sent at ``time``; drop those older than ``window`` s."""
        self._newest = np.array(q, dtype=float)
        if not self._commands or time >= self._commands[-1][0] + SPACING:
            self._commands.append((time, self._newest))
        while self._commands and self._commands[0][0] < time - window:
            self._commands.popleft()

    def lag(self, q_measured: np.ndarray) -> float:
        """Return the distance (rad or m) from ``q_measured`` to the nearest kept command."""
        if self._newest is None:
            return 0.0
        difference = wrapped_difference(
            np.array([q for _, q in self._commands] + [self._newest]) - q_measured,
            self._is_continuous)
        return float(np.abs(difference).max(axis=1).min())
