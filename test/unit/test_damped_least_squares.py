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

"""The Jacobi eigen-solver and both DLS step paths against numpy's LAPACK and each other."""

from hypothesis import given, settings, strategies as st
import numpy as np
import pytest

from ros_ik.kinematics.damped_least_squares import (damped_step, damped_step_into, DampingSchedule,
                                                    fast_damped_step_into, make_workspace)
from ros_ik.kinematics.symmetric_eigen import symmetric_eigen_into

THRESHOLD, MAX_DAMPING = 0.02, 0.05


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=8),
       st.floats(min_value=-6.0, max_value=2.0), st.integers(min_value=0, max_value=2 ** 31))
def test_jacobi_eigen_matches_lapack(m, n, log_scale, seed):
    """Check eigenvalues (ascending), orthonormal vectors and reconstruction of J J^T."""
    J = np.random.default_rng(seed).normal(size=(m, n)) * 10.0 ** log_scale
    M = J @ J.T
    eigenvalues, V = np.empty(m), np.empty((m, m))
    symmetric_eigen_into(M.copy(), eigenvalues, V)
    size = np.abs(M).max()
    np.testing.assert_allclose(eigenvalues, np.linalg.eigvalsh(M), rtol=0, atol=1e-13 * size)
    np.testing.assert_allclose(V.T @ V, np.eye(m), atol=1e-13)
    np.testing.assert_allclose(V @ np.diag(eigenvalues) @ V.T, M, rtol=0, atol=1e-13 * size)


def reference_step(J, error, active, scale, extra_squared=0.0):
    """Return the DLS step from numpy's SVD of the active columns (the formula, directly)."""
    J_active = J * active
    U, sigma, Vt = np.linalg.svd(J_active, full_matrices=False)
    rank = min(J.shape[0], int(active.sum()))
    ratio = min(sigma[rank - 1] / THRESHOLD, 1.0)
    damping_squared = (1.0 - ratio ** 2) * MAX_DAMPING ** 2 * scale + extra_squared
    keep = sigma > 1e-6 * sigma[0]
    gain = np.divide(sigma, sigma ** 2 + damping_squared, out=np.zeros_like(sigma),
                     where=keep)
    return Vt.T @ (gain * (U.T @ error))


@pytest.mark.parametrize('sigma_min', [1.0, 0.03, 0.021, 0.019, 0.005, 1e-5])
@pytest.mark.parametrize('held', [(), (2,), (1, 4), (0, 1, 5)])
@pytest.mark.parametrize('n', [7, 6, 5, 3])
def test_both_step_paths_match_the_svd_formula(sigma_min, held, n):
    """
    Build J (6 x n) = U diag(sigma) V^T; compare the eigen and Cholesky-first paths to SVD.

    n >= 6 with few held joints uses the row form J J^T, fewer active joints than rows the
    column form J^T J: both must give the same step as the SVD formula.
    """
    rng = np.random.default_rng(7)
    U, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    V, _ = np.linalg.qr(rng.normal(size=(n, n)))
    sigma = np.array([2.0, 1.5, 1.0, 0.7, 0.4, sigma_min])[:n]
    sigma[-1] = sigma_min
    S = np.zeros((6, n))
    S[:len(sigma), :len(sigma)] = np.diag(sigma)
    J = U @ S @ V.T
    error = rng.normal(size=6) * 0.1
    active = np.ones(n, dtype=bool)
    active[[j for j in held if j < n]] = False
    expected = reference_step(J, error, active, 0.5)
    eigen_dq, fast_dq = np.empty(n), np.empty(n)
    work = make_workspace(n)
    damped_step_into(J, error, active, THRESHOLD, MAX_DAMPING, 0.5, eigen_dq, work)
    fast_damped_step_into(J, error, active, THRESHOLD, MAX_DAMPING, 0.5, fast_dq, work)
    scale = max(1.0, np.abs(expected).max())
    np.testing.assert_allclose(eigen_dq, expected, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(fast_dq, expected, rtol=0, atol=1e-9 * scale)
    assert np.all(eigen_dq[~active] == 0.0)


@pytest.mark.parametrize('sigma_min', [1.0, 0.005])
@pytest.mark.parametrize('n', [7, 5])
def test_the_error_damping_adds_to_lambda_squared(sigma_min, n):
    """The Levenberg-Marquardt term c |e|^2 adds to lam^2 on both paths, any sigma_min."""
    rng = np.random.default_rng(11)
    U, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    V, _ = np.linalg.qr(rng.normal(size=(n, n)))
    S = np.zeros((6, n))
    sigma = np.array([2.0, 1.5, 1.0, 0.7, 0.4, 0.3])[:min(6, n)]
    sigma[-1] = sigma_min
    S[:len(sigma), :len(sigma)] = np.diag(sigma)
    J, error = U @ S @ V.T, rng.normal(size=6) * 0.1
    active = np.ones(n, dtype=bool)
    dq = np.empty(n)
    damping = fast_damped_step_into(J, error, active, THRESHOLD, MAX_DAMPING, 0.5, dq,
                                    make_workspace(n), 0.01)
    expected = reference_step(J, error, active, 0.5, 0.01)
    np.testing.assert_allclose(dq, expected, rtol=0, atol=1e-9 * max(1.0, np.abs(expected).max()))
    ratio = min(sigma_min / THRESHOLD, 1.0)
    assert damping == pytest.approx(np.sqrt((1 - ratio ** 2) * MAX_DAMPING ** 2 * 0.5 + 0.01))


def test_fewer_joints_than_rows_damps_only_a_real_singularity():
    """A 5-joint J (6 x 5) of full column rank: sigma_min is its 5th singular value, lam 0."""
    rng = np.random.default_rng(3)
    J, error = rng.normal(size=(6, 5)), rng.normal(size=6)
    step = damped_step(J, error, DampingSchedule(THRESHOLD, MAX_DAMPING))
    assert step.sigma_min == pytest.approx(np.linalg.svd(J, compute_uv=False)[-1], rel=1e-9)
    assert step.damping == 0.0
    np.testing.assert_allclose(step.dq, np.linalg.lstsq(J, error, rcond=None)[0], atol=1e-12)


def test_step_reports_sigma_min_and_damping_from_the_schedule():
    """Check lam = lam_max sqrt(1 - (sigma_min/eps)^2) below eps and 0 above."""
    for sigma_min, expected in ((0.01, MAX_DAMPING * np.sqrt(0.75)), (0.05, 0.0)):
        J = np.diag([1.0, sigma_min])
        step = damped_step(J, np.ones(2), DampingSchedule(THRESHOLD, MAX_DAMPING))
        assert step.sigma_min == pytest.approx(sigma_min, rel=1e-12)
        assert step.damping == pytest.approx(expected, rel=1e-12)
