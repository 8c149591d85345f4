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
How RViz's planar tools become IK targets (pure numpy, base frame, metres and radians).

RViz's "2D Goal Pose" gives x, y and a yaw in the fixed frame with z = 0: usually
unreachable as a full pose. ``move_in_plane`` reads it as "slide the tool there": the
target keeps the tool's current height and tilt, takes x and y from the goal, and turns
the tool about the base z axis so its heading equals the goal's yaw. The heading of a
rotation is the angle of its x axis projected on the base xy plane (its y axis, minus
pi/2, when x points straight up or down).
"""

import numpy as np

from ros_ik.kinematics.transforms import axis_angle_matrix

PLANAR_GOAL_MODES = ('move_in_plane', 'as_given')
POINT_ORIENTATIONS = ('free', 'hold')
_Z = np.array([0.0, 0.0, 1.0])


def heading(R: np.ndarray) -> float:
    """Return the angle (rad) of the x axis of ``R`` projected on the base xy plane."""
    x_axis = R[:, 0]
    if np.hypot(x_axis[0], x_axis[1]) > 1e-6:
        return float(np.arctan2(x_axis[1], x_axis[0]))
    y_axis = R[:, 1]
    return float(np.arctan2(y_axis[1], y_axis[0]) - 0.5 * np.pi)


def planar_goal_target(T_base_goal: np.ndarray, T_base_tip: np.ndarray, mode: str
                       ) -> np.ndarray:
    """
    Return the IK target for a planar goal given the current tool pose ``T_base_tip``.

    ``as_given``: the goal itself. ``move_in_plane``: position ``(x_goal, y_goal,
    z_tip)``, rotation ``Rz(heading(R_goal) - heading(R_tip)) R_tip``.
    """
    if mode == 'as_given':
        return T_base_goal.copy()
    if mode != 'move_in_plane':
        raise ValueError(f'planar goal mode must be one of {PLANAR_GOAL_MODES}, got "{mode}"')
    R_tip = T_base_tip[:3, :3]
    turn = heading(T_base_goal[:3, :3]) - heading(R_tip)
    target = np.eye(4)
    target[:3, :3] = axis_angle_matrix(_Z, turn) @ R_tip
    target[:3, 3] = [T_base_goal[0, 3], T_base_goal[1, 3], T_base_tip[2, 3]]
    return target


def point_target(T_base_point: np.ndarray, T_base_tip: np.ndarray, orientation: str
                 ) -> np.ndarray:
    """
    Return the IK target for a clicked point: its position, with the tool's orientation.

    With ``free`` the orientation is not controlled (position-only goal, the node masks it);
    with ``hold`` the tool keeps its current orientation ``R_tip``.
    """
    if orientation not in POINT_ORIENTATIONS:
        raise ValueError(f'point orientation must be one of {POINT_ORIENTATIONS}, '
                         f'got "{orientation}"')
    target = np.eye(4)
    target[:3, :3] = T_base_tip[:3, :3]
    target[:3, 3] = T_base_point[:3, 3]
    return target
