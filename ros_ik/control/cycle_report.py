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
Reports of the last cycle, computed when asked for: tracking errors, clearance, markers.

Nothing here runs in the control loop: the node asks at its diagnostics and marker rates.
The tracking errors are the masked norms of ``[p_target - p_tip; log(R_target R_tip^T)]``
(m, rad, base frame) at the measured joints; the clearance is the closest checked pair
there (m); the markers show the target, the tip and its velocity ellipsoid (semi-axes the
singular values of the linear Jacobian rows, m/s per unit joint speed).
"""

from dataclasses import replace
from typing import Optional, Tuple

import numpy as np

from ros_ik.collision.contact import Contact
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.cycle_types import CycleStatus, MarkerState
from ros_ik.control.inputs import Target
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.manipulability import manipulability, task_jacobian, velocity_ellipsoid
from ros_ik.kinematics.transforms import pose_error


class CycleReport:
    """The report and markers of one arm; keeps the closest pair of the last report."""

    def __init__(self, arm: ControlledArm) -> None:
        """Start with no closest pair measured."""
        self.arm = arm
        self._nearest: Tuple[Optional[np.ndarray], object, Optional[Contact]] = (
            None, None, None)

    def report(self, status: CycleStatus, q_measured: Optional[np.ndarray],
               guard: Optional[CollisionGuard], settings: Settings) -> CycleStatus:
        """
        Return ``status`` with the tracking errors on the controlled axes and the clearance.

        ``position_error`` (m) and ``orientation_error`` (rad); an OK status within both
        tolerances says 'target reached'.
        """
        status = self._with_clearance(status, q_measured, guard)
        if status.tracking is None:
            return status
        q_tracked, T_base_target, mask = status.tracking
        e_p, e_o = pose_error(T_base_target, self.arm.kinematics.tip_pose(q_tracked))
        position_error = float(np.linalg.norm(e_p * mask[:3]))
        orientation_error = float(np.linalg.norm(e_o * mask[3:]))
        values = dict(status.values, position_error=position_error,
                      orientation_error=orientation_error)
        message = status.message
        if (status.level == 'OK' and position_error <= settings.position_tolerance
                and orientation_error <= settings.orientation_tolerance):
            message = 'target reached'
        return CycleStatus(status.level, message, values)

    def _with_clearance(self, status: CycleStatus, q: Optional[np.ndarray],
                        guard: Optional[CollisionGuard]) -> CycleStatus:
        """
        Return ``status`` with ``min_distance`` (m) and ``closest_pair`` at the measured joints.

        Closer than ``collision_padding``: WARN (if not worse), in collision.
        """
        contact = self._nearest_at(q, guard) if guard and q is not None else None
        if contact is None:
            return status
        values = dict(status.values, min_distance=contact.distance,
                      closest_pair=' - '.join(contact.owners))
        level, message = status.level, status.message
        if guard.touches(contact) and level == 'OK':
            level, message = 'WARN', contact.in_collision_text()
        return replace(status, level=level, message=message, values=values)

    def _nearest_at(self, q: np.ndarray, guard: CollisionGuard) -> Optional[Contact]:
        """Return the closest pair at ``q``, kept while ``q`` and the model stay the same."""
        cached_q, cached_for, contact = self._nearest
        unchanged = cached_q is not None and np.array_equal(q, cached_q)
        if cached_for is not guard or not unchanged:
            contact = guard.nearest(q)
            self._nearest = (np.array(q), guard, contact)
        return contact

    def marker_state(self, q_measured: Optional[np.ndarray], target: Optional[Target],
                     guard: Optional[CollisionGuard], settings: Settings,
                     path_points: Optional[np.ndarray] = None) -> Optional[MarkerState]:
        """
        Return the target and the velocity ellipsoid at the measured tip (None: no joints).

        The closest pair is the one the last report measured (markers stay cheap);
        ``path_points`` (k, 3): the Cartesian path to draw (None: none).
        """
        if q_measured is None:
            return None
        arm = self.arm
        T_base_tip, J = arm.kinematics.tip_pose_and_jacobian(q_measured)
        semi_axes, R_base_ellipsoid = velocity_ellipsoid(J)
        sigma_min = manipulability(task_jacobian(J, arm.task_rows)).sigma_min
        closest = self._nearest[2] if guard is not None else None
        return MarkerState(
            T_base_target=target.T_base_target if target is not None else None,
            position_only=target is not None and target.position_only,
            T_base_tip=T_base_tip, semi_axes=semi_axes, R_base_ellipsoid=R_base_ellipsoid,
            near_singularity=sigma_min < settings.singularity_warning, closest=closest,
            path_points=path_points)
