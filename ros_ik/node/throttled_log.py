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
from typing import Callable, Dict, Tuple


class KeyedThrottle:
    """
    Pass a message to ``log`` unless the same key was logged less than ``period`` s ago.

    ROS loggers' ``throttle_duration_sec`` throttles per call site, so two different problems
    reported from one line would hide each other; keys keep them apart. A message held back
    is not lost: the newest one held per key is logged by :meth:`flush` once its key is due
    again, with how many were held (a NaN target, then an inf one within the period: both
    are seen, the second up to ``period`` s later).
    """

    def __init__(self, log: Callable[[str], object], period: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Remember the log function, the period (s) and the clock."""
        self._log = log
        self._period = period
        self._clock = clock
        self._last: Dict[str, float] = {}
        self._held: Dict[str, Tuple[str, int]] = {}  # key -> (newest message held, count)

    def __call__(self, key: str, message: str) -> bool:
        """Log ``message`` if ``key`` is due, else hold it; return whether it was logged."""
        now = self._clock()
        if now - self._last.get(key, -float('inf')) < self._period:
            self._held[key] = (message, self._held.get(key, ('', 0))[1] + 1)
            return False
        self._emit(key, message, self._held.pop(key, ('', 0))[1], now)
        return True

    @property
    def holding(self) -> bool:
        """Return whether a message is held back (the caller should :meth:`flush` soon)."""
        return bool(self._held)

    def flush(self) -> None:
        """Log the newest held message of every key that is due again."""
        now = self._clock()
        for key, (message, count) in list(self._held.items()):
            if now - self._last[key] >= self._period:
                del self._held[key]
                self._emit(key, message, count - 1, now)

    def _emit(self, key: str, message: str, also_held: int, now: float) -> None:
        """Log ``message``, saying how many others of its key were held back before it."""
        self._last[key] = now
        if also_held > 0:
            message += (f' ({also_held} more like this in the last {self._period:g} s not '
                        'logged)')
        self._log(message)
