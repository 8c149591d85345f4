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
The joints as a function of path length: a C2 cubic spline through traced samples.

Knots ``s_0 < ... < s_N`` (m of path) with joints ``q_k`` (n,) solved on the path
(:mod:`ros_ik.paths.path_tracing`); the spline has continuous first and second derivatives
and the exact rates ``q'(s_0)``, ``q'(s_N)`` at its ends (clamped), so commands sampled
from it have continuous joint velocities and accelerations for any timing ``s(t)``, and a
jerk bounded by the piecewise constant third derivative. On interval ``k``,
``t = s - s_k`` in ``[0, h_k]``:

    q(t) = a + b t + c t^2 + d t^3,   a = q_k,  c = M_k / 2,  d = (M_{k+1} - M_k) / (6 h_k),
    b = (q_{k+1} - q_k) / h_k - h_k (2 M_k + M_{k+1}) / 6,

with the second derivatives ``M`` from the tridiagonal system of the clamped spline.
:meth:`JointPath.interval_bounds` gives, per interval and joint, the exact maxima of
``|q'|`` (a quadratic: ends and vertex), ``|q''|`` (linear: ends) and ``|q'''|``
(constant): the timing (:mod:`ros_ik.paths.path_timing`) bounds joint velocity,
acceleration and jerk with them.
"""

from typing import Tuple

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _clamped_second_derivatives(s: np.ndarray, q: np.ndarray, rate_start: np.ndarray,
                                rate_end: np.ndarray) -> np.ndarray:
    """Return ``M`` (N + 1, n): the clamped spline's second derivatives (Thomas algorithm)."""
    count, n = q.shape
    h = s[1:] - s[:-1]
    lower = np.zeros(count)
    diagonal = np.zeros(count)
    upper = np.zeros(count)
    rhs = np.zeros((count, n))
    diagonal[0], upper[0] = 2.0 * h[0], h[0]
    for j in range(n):
        rhs[0, j] = 6.0 * ((q[1, j] - q[0, j]) / h[0] - rate_start[j])
    for k in range(1, count - 1):
        lower[k], diagonal[k], upper[k] = h[k - 1], 2.0 * (h[k - 1] + h[k]), h[k]
        for j in range(n):
            rhs[k, j] = 6.0 * ((q[k + 1, j] - q[k, j]) / h[k]
                               - (q[k, j] - q[k - 1, j]) / h[k - 1])
    last = count - 1
    lower[last], diagonal[last] = h[last - 1], 2.0 * h[last - 1]
    for j in range(n):
        rhs[last, j] = 6.0 * (rate_end[j] - (q[last, j] - q[last - 1, j]) / h[last - 1])
    for k in range(1, count):  # forward elimination
        factor = lower[k] / diagonal[k - 1]
        diagonal[k] -= factor * upper[k - 1]
        for j in range(n):
            rhs[k, j] -= factor * rhs[k - 1, j]
    M = np.empty((count, n))
    for j in range(n):
        M[last, j] = rhs[last, j] / diagonal[last]
    for k in range(last - 1, -1, -1):
        for j in range(n):
            M[k, j] = (rhs[k, j] - upper[k] * M[k + 1, j]) / diagonal[k]
    return M


class JointPath:
    """A clamped C2 cubic spline ``q(s)`` (see the module docstring); immutable."""

    def __init__(self, s: np.ndarray, q: np.ndarray, rate_start: np.ndarray,
                 rate_end: np.ndarray) -> None:
        """Fit the spline through knots ``s`` (N + 1,), joints ``q`` (N + 1, n), N >= 1."""
        self.s = np.ascontiguousarray(s, dtype=float)
        self.q = np.ascontiguousarray(q, dtype=float)
        if len(self.s) < 2 or np.any(np.diff(self.s) <= 0.0):
            raise ValueError('a joint path needs at least two knots in increasing order')
        M = _clamped_second_derivatives(self.s, self.q, np.asarray(rate_start, dtype=float),
                                        np.asarray(rate_end, dtype=float))
        h = np.diff(self.s)[:, None]
        self.a = self.q[:-1]
        self.c = 0.5 * M[:-1]
        self.d = (M[1:] - M[:-1]) / (6.0 * h)
        self.b = (self.q[1:] - self.q[:-1]) / h - h * (2.0 * M[:-1] + M[1:]) / 6.0

    @property
    def s_start(self) -> float:
        """Return the path length of the first knot (m)."""
        return float(self.s[0])

    @property
    def s_end(self) -> float:
        """Return the path length of the last knot (m)."""
        return float(self.s[-1])

    def interval_of(self, s: np.ndarray) -> np.ndarray:
        """Return the interval index of each path length of ``s`` (clamped to the knots)."""
        return np.clip(np.searchsorted(self.s, s, side='right') - 1, 0, len(self.s) - 2)

    def evaluate(self, s: np.ndarray) -> Tuple[np.ndarray, ...]:
        """Return ``q, q', q'', q'''`` (k, n) at path lengths ``s`` (k,) within the knots."""
        s = np.clip(np.atleast_1d(np.asarray(s, dtype=float)), self.s[0], self.s[-1])
        k = self.interval_of(s)
        t = (s - self.s[k])[:, None]
        a, b, c, d = self.a[k], self.b[k], self.c[k], self.d[k]
        return (a + t * (b + t * (c + t * d)), b + t * (2.0 * c + 3.0 * t * d),
                2.0 * c + 6.0 * t * d, 6.0 * d)

    def positions(self, s: np.ndarray) -> np.ndarray:
        """Return the joints ``q`` (k, n) at path lengths ``s`` (k,)."""
        return self.evaluate(s)[0]

    def interval_bounds(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """
        Return per interval and joint (N, n) the maxima of ``|q'|``, ``|q''|``, ``|q'''|``.

        Exact: ``q'`` is a quadratic (its ends and its vertex ``t = -c / (3 d)`` where inside),
        ``q''`` linear (its ends), ``q'''`` constant.
        """
        h = np.diff(self.s)[:, None]
        b, c, d = self.b, self.c, self.d
        rate_end = b + h * (2.0 * c + 3.0 * h * d)
        first = np.maximum(np.abs(b), np.abs(rate_end))
        with np.errstate(divide='ignore', invalid='ignore'):
            vertex = np.where(d != 0.0, -c / (3.0 * d), -1.0)
        inside = (vertex > 0.0) & (vertex < h)
        at_vertex = np.abs(b + vertex * (2.0 * c + 3.0 * vertex * d))
        first = np.where(inside, np.maximum(first, at_vertex), first)
        second = np.maximum(np.abs(2.0 * c), np.abs(2.0 * c + 6.0 * h * d))
        return first, second, np.abs(6.0 * d)
