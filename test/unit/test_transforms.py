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

"""Property tests of the rotation helpers (hypothesis)."""

from hypothesis import example, given, settings
from hypothesis import strategies as st
import numpy as np
import pytest
from ros_ik.kinematics.transforms import (axis_angle_matrix, matrix_to_quaternion,
                                          pose_error, pose_error_into, pose_matrix,
                                          quaternion_to_matrix, rotation_vector,
                                          rotation_vector_to_matrix, rpy_to_matrix)

angles = st.floats(min_value=-np.pi, max_value=np.pi, allow_nan=False)
components = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
quaternions = st.tuples(components, components, components, components).filter(
    lambda q: np.linalg.norm(q) > 1e-3).map(lambda q: np.array(q) / np.linalg.norm(q))


def assert_rotation(R: np.ndarray) -> None:
    """Assert that ``R`` is orthonormal with determinant +1."""
    np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-12)


@given(angles, angles, angles)
def test_rpy_gives_rotation_matching_fixed_axis_product(roll, pitch, yaw):
    """Check ``R = Rz(yaw) Ry(pitch) Rx(roll)`` and orthonormality."""
    R = rpy_to_matrix(roll, pitch, yaw)
    assert_rotation(R)
    expected = (axis_angle_matrix(np.array([0.0, 0.0, 1.0]), yaw)
                @ axis_angle_matrix(np.array([0.0, 1.0, 0.0]), pitch)
                @ axis_angle_matrix(np.array([1.0, 0.0, 0.0]), roll))
    np.testing.assert_allclose(R, expected, atol=1e-12)


@given(quaternions)
def test_quaternion_round_trip(q):
    """Check quaternion -> matrix -> quaternion returns ``q`` up to sign."""
    R = quaternion_to_matrix(q)
    assert_rotation(R)
    q_back = matrix_to_quaternion(R)
    sign = 1.0 if np.dot(q, q_back) >= 0.0 else -1.0
    np.testing.assert_allclose(sign * q_back, q, atol=1e-9)


@given(quaternions, st.tuples(components, components, components))
def test_pose_matrix_is_the_rotation_and_the_position_in_one_transform(q, p):
    """Check ``[[R(q), p], [0, 1]]``: R the axis-angle matrix of ``q``, ``p`` as given."""
    T = pose_matrix(p, q)
    angle = 2.0 * np.arctan2(np.linalg.norm(q[:3]), q[3])
    axis = q[:3] / np.linalg.norm(q[:3]) if np.linalg.norm(q[:3]) > 1e-9 else np.array(
        [1.0, 0.0, 0.0])
    np.testing.assert_allclose(T[:3, :3], axis_angle_matrix(axis, angle), atol=1e-9)
    np.testing.assert_array_equal(T[:3, 3], p)
    np.testing.assert_array_equal(T[3], [0.0, 0.0, 0.0, 1.0])


def test_pose_matrix_of_a_quarter_turn_about_z():
    """Closed form: ``q = (0, 0, sin 45 deg, cos 45 deg)`` maps x to y."""
    T = pose_matrix([1.0, 2.0, 3.0], [0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)])
    np.testing.assert_allclose(T, [[0.0, -1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 2.0],
                                   [0.0, 0.0, 1.0, 3.0], [0.0, 0.0, 0.0, 1.0]], atol=1e-15)


@given(st.tuples(components, components, components).filter(
    lambda v: np.linalg.norm(v) > 1e-6), st.floats(min_value=0.0, max_value=np.pi))
def test_rotation_vector_inverts_exponential(axis, angle):
    """Check ``log(exp(r)) = r`` for angles in [0, pi], including angles near pi."""
    r = np.array(axis) / np.linalg.norm(axis) * angle
    R = rotation_vector_to_matrix(r)
    assert_rotation(R)
    r_back = rotation_vector(R)
    if angle > np.pi - 1e-6:
        # At pi, r and -r are the same rotation.
        np.testing.assert_allclose(rotation_vector_to_matrix(r_back), R, atol=1e-9)
    else:
        np.testing.assert_allclose(r_back, r, atol=1e-9)


@settings(max_examples=50)
@given(st.lists(quaternions, min_size=1, max_size=5))
def test_rotation_vector_batched_equals_one_by_one(qs):
    """Check the batched logarithm against single calls."""
    Rs = np.array([quaternion_to_matrix(q) for q in qs])
    np.testing.assert_allclose(rotation_vector(Rs),
                               np.array([rotation_vector(R) for R in Rs]), atol=1e-12)


positions = st.tuples(*[st.floats(min_value=-5.0, max_value=5.0)] * 3)


@given(quaternions, positions, quaternions, positions)
# a half turn about (-1, 2, -2) / 3: two equal diagonal entries, v of rounding noise only
@example(np.array([0.0, 1.0, 1.0, 1.0]) / np.sqrt(3.0), (0.0, 0.0, 0.0),
         np.array([0.0, 0.0, 0.0, 1.0]), (0.0, 0.0, 0.0))
# 2e-5 rad short of a half turn: the log map amplifies the products' rounding there
@example(np.array([0.0, 0.0, 1.0, 1.0]) / np.sqrt(2.0), (0.0, 0.0, 0.0),
         np.array([1.0, 0.5, 1e-5, 0.0]) / np.linalg.norm([1.0, 0.5, 1e-5, 0.0]),
         (0.0, 0.0, 0.0))
def test_the_compiled_pose_error_of_one_pose_equals_pose_error(q_target, p_target, q_current,
                                                               p_current):
    """
    Check ``pose_error_into`` against ``pose_error``, half turns included (by symmetry).

    The two compose ``R_target R_current^T`` in different orders (a loop, BLAS), which
    differ by rounding (~1e-16); near a half turn the log map amplifies that by about
    ``1 / sin(angle)``, so the tolerance grows there (never to the size of a sign flip).
    """
    T_target, T_current = np.eye(4), np.eye(4)
    T_target[:3, :3], T_target[:3, 3] = quaternion_to_matrix(q_target), p_target
    T_current[:3, :3], T_current[:3, 3] = quaternion_to_matrix(q_current), p_current
    for T_current_case in (T_current, T_target @ np.diag([1.0, -1.0, -1.0, 1.0])):
        error = np.empty(6)
        pose_error_into(T_target, T_current_case, error)
        e_p, e_o = pose_error(T_target, T_current_case)
        tolerance = 1e-12 + 1e-15 / max(np.sin(np.linalg.norm(e_o)), 1e-5)
        np.testing.assert_allclose(error, np.concatenate([e_p, e_o]), rtol=0, atol=tolerance)
