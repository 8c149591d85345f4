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

"""Per-problem log throttling: each kind of problem is reported, each at most once a period."""

import time
from typing import Callable, Dict


class KeyedThrottle:
    """
    Pass a message to ``log`` unless the same key was logged less than ``period`` s ago.

    ROS loggers' ``throttle_duration_sec`` throttles per call site, so two different problems
    reported from one line would hide each other; keys keep them apart.
    """

    def __init__(self, log: Callable[[str], object], period: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Remember the log function, the period (s) and the clock."""
        self._log = log
        self._period = period
        self._clock = clock
        self._last: Dict[str, float] = {}

    def __call__(self, key: str, message: str) -> bool:
        """Log ``message`` if ``key`` is due; return whether it was logged."""
        now = self._clock()
        if now - self._last.get(key, -float('inf')) < self._period:
            return False
        self._last[key] = now
        self._log(message)
        return True
