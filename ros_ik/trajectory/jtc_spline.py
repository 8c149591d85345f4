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
Joint_trajectory_controller's interpolation between two trajectory points, ROS-free.

JTC (ros2_controllers, ``interpolation_method: splines``) joins consecutive points of a
JointTrajectory by the polynomial their fields determine: the quintic matching position,
velocity and acceleration at both ends where both points have accelerations, the cubic
Hermite where both have velocities, else a straight line. A motion that is a cubic in time
between two points (constant jerk: a jerk-limited profile between its switches) is a
quintic with zero fourth and fifth coefficients, so JTC reproduces it exactly from its end
states, provided the states are those of the instants the message names: JTC reads its
points' times as whole nanoseconds, and a state 0.5 ns off its stamp moves the quintic's
acceleration by about ``5.8 |v| 0.5e-9 / T^2`` over a segment ``T`` s long (0.1 rad/s^2
at 0.7 rad/s over 0.15 ms). :func:`whole_nanoseconds` puts times on that grid. Used by
the command stream (the state JTC executes between sent points), the trajectory generator
(the instants of a stop) and the emulation of JTC (:mod:`ros_ik.node.jtc_emulation`).
Units: the joints' (rad or m), s.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

NANOSECOND = 1e-9  # s: the resolution of a JointTrajectory point's time


def whole_nanoseconds(time):
    """Return ``time`` (s; a float or an array) rounded to whole nanoseconds."""
    return np.round(np.asarray(time) / NANOSECOND) * NANOSECOND


@dataclass(frozen=True)
class Setpoint:
    """The controller's reference (n,) per joint: position, velocity, acceleration."""

    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray


def spline(t0: float, start: Tuple[np.ndarray, Optional[np.ndarray], Optional[np.ndarray]],
           t1: float, end: Tuple[np.ndarray, Optional[np.ndarray], Optional[np.ndarray]],
           t: float) -> Setpoint:
    """
    Return JTC's interpolation between two points at ``t`` (``t0 <= t <= t1``).

    Quintic where both points have accelerations (the unique quintic matching position,
    velocity and acceleration at both ends), cubic where both have velocities (Hermite),
    else linear; ``t1 == t0`` gives the end point.
    """
    p0, v0, a0 = start
    p1, v1, a1 = end
    T = t1 - t0
    if T <= 0.0:
        zeros = np.zeros_like(p1)
        return Setpoint(p1.copy(), v1.copy() if v1 is not None else zeros,
                        a1.copy() if a1 is not None else zeros)
    s = t - t0
    if v0 is None or v1 is None:
        slope = (p1 - p0) / T
        return Setpoint(p0 + slope * s, slope, np.zeros_like(p0))
    if a0 is None or a1 is None:
        c2 = (3.0 * (p1 - p0) - (2.0 * v0 + v1) * T) / T ** 2
        c3 = (2.0 * (p0 - p1) + (v0 + v1) * T) / T ** 3
        coefficients = [p0, v0, c2, c3, np.zeros_like(p0), np.zeros_like(p0)]
    else:
        dp = p1 - p0
        c3 = (20.0 * dp - (8.0 * v1 + 12.0 * v0) * T - (3.0 * a0 - a1) * T ** 2) / (2.0 * T ** 3)
        c4 = (-30.0 * dp + (14.0 * v1 + 16.0 * v0) * T + (3.0 * a0 - 2.0 * a1) * T ** 2) / (
            2.0 * T ** 4)
        c5 = (12.0 * dp - 6.0 * (v1 + v0) * T - (a0 - a1) * T ** 2) / (2.0 * T ** 5)
        coefficients = [p0, v0, 0.5 * a0, c3, c4, c5]
    c0, c1, c2, c3, c4, c5 = coefficients
    position = c0 + s * (c1 + s * (c2 + s * (c3 + s * (c4 + s * c5))))
    velocity = c1 + s * (2.0 * c2 + s * (3.0 * c3 + s * (4.0 * c4 + s * 5.0 * c5)))
    acceleration = 2.0 * c2 + s * (6.0 * c3 + s * (12.0 * c4 + s * 20.0 * c5))
    return Setpoint(position, velocity, acceleration)
