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

"""Planar goals (RViz 2D Goal Pose) and clicked points as IK targets."""

from hypothesis import given
from hypothesis import strategies as st
import numpy as np
import pytest
from ros_ik.control.goal_modes import heading, planar_goal_target, point_target
from ros_ik.kinematics.transforms import axis_angle_matrix, rpy_to_matrix, transform

Z = np.array([0.0, 0.0, 1.0])
angles = st.floats(min_value=-3.0, max_value=3.0)


@given(angles, st.floats(min_value=-1.4, max_value=1.4), angles, angles)
def test_move_in_plane_keeps_height_and_tilt_and_takes_xy_and_yaw(roll, pitch, yaw, goal_yaw):
    """Check z and the tool's tilt are kept, x, y and heading come from the goal."""
    T_tip = transform(rpy_to_matrix(roll, pitch, yaw), np.array([0.3, -0.2, 0.45]))
    T_goal = transform(axis_angle_matrix(Z, goal_yaw), np.array([0.5, 0.1, 0.0]))
    target = planar_goal_target(T_goal, T_tip, 'move_in_plane')
    np.testing.assert_allclose(target[:3, 3], [0.5, 0.1, 0.45])
    # Tilt kept: the angle of every tool axis to the vertical is unchanged.
    np.testing.assert_allclose(target[2, :3], T_tip[2, :3], atol=1e-12)
    assert np.cos(heading(target[:3, :3]) - goal_yaw) == pytest.approx(1.0, abs=1e-9)
    R = target[:3, :3]
    np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-12)


def test_heading_of_a_tool_pointing_down_uses_its_x_axis():
    """Check the heading of a downward tool (x horizontal) and of x pointing up."""
    assert heading(rpy_to_matrix(np.pi, 0.0, 0.4)) == pytest.approx(0.4)
    assert heading(rpy_to_matrix(0.0, -np.pi / 2, 0.0) @ axis_angle_matrix(
        np.array([1.0, 0.0, 0.0]), 0.0)) == pytest.approx(0.0)


def test_as_given_and_point_targets():
    """Check 'as_given' returns the goal and a held point keeps the tool orientation."""
    T_tip = transform(rpy_to_matrix(0.1, 0.2, 0.3), np.array([0.3, -0.2, 0.45]))
    T_goal = transform(axis_angle_matrix(Z, 1.0), np.array([0.5, 0.1, 0.0]))
    np.testing.assert_array_equal(planar_goal_target(T_goal, T_tip, 'as_given'), T_goal)
    held = point_target(T_goal, T_tip, 'hold')
    np.testing.assert_array_equal(held[:3, :3], T_tip[:3, :3])
    np.testing.assert_array_equal(held[:3, 3], T_goal[:3, 3])
    with pytest.raises(ValueError, match='planar goal mode must be one of'):
        planar_goal_target(T_goal, T_tip, 'teleport')
    with pytest.raises(ValueError, match='point orientation must be one of'):
        point_target(T_goal, T_tip, 'wobble')
