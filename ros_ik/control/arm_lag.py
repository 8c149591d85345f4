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
Whether the measured arm follows the command stream, lags it, or has stopped away from it.

The lag is the distance (rad or m, the largest joint's) from the measured joints to the
nearest command of the last ``joint_state_timeout`` s
(:meth:`ros_ik.control.command_history.CommandHistory.lag`). Within ``max_tracking_error``
the arm follows. Farther, it lags: the stream brakes to rest and waits for it. A lagging arm
that has not moved by ``LAG_MOTION * max_tracking_error`` (at least ``LAG_MOTION_FLOOR``)
for ``joint_state_timeout`` while the commands were at rest has stopped away (it was moved,
or its controller faulted): the stream restarts at rest at the measured joints, which moves
nothing (a controller restarting after a fault expects exactly that). An arm still closing
in on the held command (a slow controller, late joint states) is waited for: taking it
where it is would command a jump back from where the commands left it.
"""

from typing import Optional, Tuple

import numpy as np

from ros_ik.control.command_stream import CommandStream
from ros_ik.control.parameters import Settings

# A lagging arm counts as moving while a joint moves by more than this part of
# max_tracking_error, and at least LAG_MOTION_FLOOR (rad or m: encoder ticks and
# joint-state noise never count; a 12-bit servo's tick is 1.5e-3 rad); one that has not
# for joint_state_timeout has stopped away.
LAG_MOTION = 0.1
LAG_MOTION_FLOOR = 5e-3

FOLLOWS, LAGS, STOPPED_AWAY = 'follows', 'lags', 'stopped away'


class LagWatch:
    """Tells a following arm from a lagging one and from one stopped away (docstring)."""

    def __init__(self) -> None:
        """Start with an arm that follows."""
        # While the arm lags: (time, joints) where it was last seen moving (None: it follows).
        self._moved: Optional[Tuple[float, np.ndarray]] = None

    def verdict(self, q_measured: np.ndarray, lag: float, stream: CommandStream,
                settings: Settings) -> str:
        """Return ``FOLLOWS``, ``LAGS`` or ``STOPPED_AWAY`` for the arm at ``q_measured``."""
        if lag <= settings.max_tracking_error:
            self._moved = None
            return FOLLOWS
        now, moved = stream.last_time, self._moved
        if moved is None or np.abs(q_measured - moved[1]).max() > max(
                LAG_MOTION * settings.max_tracking_error, LAG_MOTION_FLOOR):
            moved = self._moved = (now, q_measured.copy())
        if (stream.state.is_at_rest()
                and now - max(stream.rest_since, moved[0]) > settings.joint_state_timeout):
            self._moved = None  # the stream restarts at the measured joints: it follows
            return STOPPED_AWAY
        return LAGS
