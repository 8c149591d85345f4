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

"""The clearance of one checked pair at one configuration, with its witness points."""

from dataclasses import dataclass
from typing import Tuple

import numpy as np


@dataclass(frozen=True)
class Contact:
    """
    The clearance (m) of one pair at one sample, with witness points (base frame).

    ``normal`` (unit, base frame) points from the first element toward the second: the
    direction in which the second must move for the clearance to grow.
    """

    distance: float
    pair: int
    owners: Tuple[str, str]
    sample: int
    p_a: np.ndarray
    p_b: np.ndarray
    normal: np.ndarray

    def text(self) -> str:
        """Return ``'a into b'``, for messages about a motion that would hit."""
        return f'{self.owners[0]} into {self.owners[1]}'

    def in_collision_text(self) -> str:
        """Return the message for a pair already in collision (only moving apart is allowed)."""
        return (f'in collision: {self.owners[0]} and {self.owners[1]} are '
                f'{self.distance:.3g} m apart; only motions that move them apart are allowed')
