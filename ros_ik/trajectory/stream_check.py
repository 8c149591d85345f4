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
What a controller sees in a command stream: peak velocity, acceleration and jerk per joint.

From command positions ``p_k`` (n,) at stamps ``t_k`` (s, strictly increasing), the divided
differences give ``v = p[k-1, k]``, ``a = 2 p[k-2, k-1, k]`` and ``j = 6 p[k-3, ..., k]``.
A divided difference of order m is a weighted mean of the m-th derivative of any trajectory
through the samples, so these peaks never exceed the limits of a trajectory that respects
them, for any (uneven) spacing of the stamps; a jump or a late stamp shows up as a peak.
"""

from dataclasses import dataclass
from typing import Tuple

import numpy as np


@dataclass(frozen=True)
class StreamPeaks:
    """Peak |v|, |a|, |j| (n,) per joint, and how far below/above the bounds (n,) it went."""

    velocity: np.ndarray
    acceleration: np.ndarray
    jerk: np.ndarray
    beyond_bounds: np.ndarray

    def ratios(self, velocity: np.ndarray, acceleration: np.ndarray,
               jerk: np.ndarray) -> np.ndarray:
        """Return the largest peak / limit over the joints for v, a and j, as (3,)."""
        return np.array([float(np.max(self.velocity / velocity, initial=0.0)),
                         float(np.max(self.acceleration / acceleration, initial=0.0)),
                         float(np.max(self.jerk / jerk, initial=0.0))])


def divided_differences(times: np.ndarray, values: np.ndarray, order: int) -> np.ndarray:
    """Return ``order! * f[t_k-order, ..., t_k]`` for every k (rows), values (N, n)."""
    table = np.asarray(values, dtype=float)
    times = np.asarray(times, dtype=float)
    for level in range(1, order + 1):
        span = (times[level:] - times[:-level])[:, None]
        table = level * (table[1:] - table[:-1]) / span
    return table


def stream_peaks(times: np.ndarray, positions: np.ndarray, lower: np.ndarray,
                 upper: np.ndarray) -> StreamPeaks:
    """Return the peaks of a command stream (times (N,), positions (N, n))."""
    positions = np.asarray(positions, dtype=float)

    def peak(order: int) -> np.ndarray:
        """Return the peak |order-th derivative| per joint (0 if too few samples)."""
        if len(positions) <= order:
            return np.zeros(positions.shape[1])
        return np.abs(divided_differences(times, positions, order)).max(axis=0)

    beyond = np.maximum(np.maximum(lower - positions, positions - upper), 0.0).max(axis=0)
    return StreamPeaks(peak(1), peak(2), peak(3), beyond)


def stall_starts(times: np.ndarray, stall_gap: float) -> np.ndarray:
    """Return the indices of the stamps more than ``stall_gap`` s after the one before."""
    return np.flatnonzero(np.diff(np.asarray(times, dtype=float)) > stall_gap) + 1


def stream_peaks_from_rest(times: np.ndarray, positions: np.ndarray, start: np.ndarray,
                           period: float, stall_gap: float, lower: np.ndarray,
                           upper: np.ndarray) -> Tuple[StreamPeaks, int]:
    """
    Return the peaks of a position stream from rest at ``start``, and its stall count.

    Two samples at rest at ``start`` precede the stream, ``period`` s apart. Stamps more
    than ``stall_gap`` s apart are a stall of the streaming process: a position controller
    held the last command meanwhile, so the stream after it is taken from rest there (the
    same way). The peaks are the largest over the pieces.
    """
    times = np.asarray(times, dtype=float)
    positions = np.asarray(positions, dtype=float)
    stalls = stall_starts(times, stall_gap)
    pieces = []
    for begin, end in zip([0, *stalls], [*stalls, len(times)]):
        rest = start if begin == 0 else positions[begin - 1]
        pieces.append(stream_peaks(
            np.concatenate([[times[begin] - 2 * period, times[begin] - period],
                            times[begin:end]]),
            np.vstack([rest, rest, positions[begin:end]]), lower, upper))
    peaks = StreamPeaks(*(np.max([getattr(piece, name) for piece in pieces], axis=0)
                          for name in ('velocity', 'acceleration', 'jerk', 'beyond_bounds')))
    return peaks, len(stalls)
