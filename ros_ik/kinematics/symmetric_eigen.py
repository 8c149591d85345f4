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
Eigen-decomposition of small symmetric matrices by cyclic Jacobi rotations (numba).

For a symmetric ``M`` (m x m, here ``J J^T`` with m <= 6) each rotation ``P`` in the
``(p, k)`` plane, ``tan(phi) = t`` with ``t`` the smaller root of ``t^2 + 2 theta t - 1 = 0``,
``theta = (M_kk - M_pp) / (2 M_pk)``, zeroes ``M_pk`` in ``P^T M P``; sweeps over all pairs
shrink the off-diagonal mass quadratically until ``M = V diag(w) V^T``. Jacobi is accurate
to ``eps |M|`` in every eigenvalue, like LAPACK's ``syevd``, and needs no LAPACK (numba's
``np.linalg.eigh`` would need SciPy).
"""

import numba
import numpy as np

MAX_SWEEPS = 50
# Stop when the off-diagonal squares fall below this fraction of |M|_F^2 (~eps^2).
RELATIVE_OFF_DIAGONAL = 1e-32


@numba.njit(cache=True, nogil=True)
def _rotate(M: np.ndarray, V: np.ndarray, p: int, k: int) -> None:
    """Apply the Jacobi rotation that zeroes ``M[p, k]``: ``M <- P^T M P``, ``V <- V P``."""
    theta = (M[k, k] - M[p, p]) / (2.0 * M[p, k])
    if abs(theta) > 1e150:
        t = 0.5 / theta
    else:
        t = 1.0 / (abs(theta) + np.sqrt(theta * theta + 1.0))
        if theta < 0.0:
            t = -t
    c = 1.0 / np.sqrt(t * t + 1.0)
    s = t * c
    for i in range(M.shape[0]):
        m_ip, m_ik = M[i, p], M[i, k]
        M[i, p] = c * m_ip - s * m_ik
        M[i, k] = s * m_ip + c * m_ik
    for i in range(M.shape[0]):
        m_pi, m_ki = M[p, i], M[k, i]
        M[p, i] = c * m_pi - s * m_ki
        M[k, i] = s * m_pi + c * m_ki
        v_ip, v_ik = V[i, p], V[i, k]
        V[i, p] = c * v_ip - s * v_ik
        V[i, k] = s * v_ip + c * v_ik


@numba.njit(cache=True, nogil=True)
def symmetric_eigen_into(M: np.ndarray, eigenvalues: np.ndarray, V: np.ndarray) -> None:
    """
    Write the eigenvalues (ascending) and eigenvectors (columns of ``V``) of symmetric ``M``.

    ``M`` (m, m) is overwritten (it ends nearly diagonal); ``eigenvalues`` (m,), ``V`` (m, m)
    are outputs with ``M_input = V diag(eigenvalues) V^T``.
    """
    m = M.shape[0]
    for i in range(m):
        for k in range(m):
            V[i, k] = 1.0 if i == k else 0.0
    for _ in range(MAX_SWEEPS):
        off_diagonal = 0.0
        total = 0.0
        for i in range(m):
            total += M[i, i] * M[i, i]
            for k in range(i + 1, m):
                off_diagonal += M[i, k] * M[i, k]
        if off_diagonal <= RELATIVE_OFF_DIAGONAL * (total + 2.0 * off_diagonal):
            break
        for p in range(m - 1):
            for k in range(p + 1, m):
                if M[p, k] != 0.0:
                    _rotate(M, V, p, k)
    for i in range(m):
        eigenvalues[i] = M[i, i]
    for i in range(1, m):
        j = i
        while j > 0 and eigenvalues[j - 1] > eigenvalues[j]:
            eigenvalues[j - 1], eigenvalues[j] = eigenvalues[j], eigenvalues[j - 1]
            for r in range(m):
                V[r, j - 1], V[r, j] = V[r, j], V[r, j - 1]
            j -= 1
