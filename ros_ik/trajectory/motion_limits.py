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
Per-joint motion limits: position range, velocity, acceleration and jerk.

Units per joint: rad, rad/s, rad/s^2, rad/s^3 (revolute and continuous) or m, m/s, m/s^2,
m/s^3 (prismatic). Continuous joints have infinite position bounds.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MotionLimits:
    """Limits (n,) of a chain's joints in chain order; every rate limit positive."""

    lower: np.ndarray
    upper: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    jerk: np.ndarray

    def __post_init__(self) -> None:
        """Check shapes, order of bounds and that every rate limit is finite and positive."""
        n = len(self.lower)
        for name in ('upper', 'velocity', 'acceleration', 'jerk'):
            if len(getattr(self, name)) != n:
                raise ValueError(f'{name} limits have {len(getattr(self, name))} values for '
                                 f'{n} joints')
        if np.any(self.lower > self.upper):
            raise ValueError('a lower position limit is above its upper limit')
        for name in ('velocity', 'acceleration', 'jerk'):
            values = getattr(self, name)
            if not np.all(np.isfinite(values) & (values > 0.0)):
                raise ValueError(f'{name} limits must be finite and positive, got {values}')

    @property
    def n_joints(self) -> int:
        """Return the number of joints."""
        return len(self.lower)

    def scaled(self, velocity_scale: float, acceleration_scale: float = 1.0
               ) -> 'MotionLimits':
        """
        Return these limits with the velocity and acceleration limits times factors in (0, 1].

        The jerk limits stay: a lower acceleration limit is reached sooner, never with more
        jerk.
        """
        return MotionLimits(self.lower, self.upper, self.velocity * velocity_scale,
                            self.acceleration * acceleration_scale, self.jerk)
