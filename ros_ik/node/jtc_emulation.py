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
An emulation of ros2_control's joint_trajectory_controller (JTC), from its documented behaviour.

Written from the ros2_controllers documentation and the behaviour of
``validate_trajectory_msg`` and ``Trajectory::sample`` (Jazzy 4.x, Kilted 5.x: they agree),
with JTC's default parameters (``allow_partial_joints_goal``,
``allow_nonzero_velocity_at_trajectory_end``, ``allow_integration_in_goal_trajectories``,
``interpolate_from_desired_state``, ``open_loop_control``: all false):

* **validation** of each message on the topic: joint names non-empty, all known and as
  many as the controller's joints; points non-empty; ``time_from_start`` strictly
  increasing; positions of every joint, velocities and accelerations empty or complete;
  the last point's velocities zero (within float epsilon); with a non-zero
  ``header.stamp``, the trajectory must not end before now. A rejected message leaves the
  active trajectory as it is.
* **replacement**: an accepted message becomes the active trajectory at the next update;
  its start time is ``header.stamp`` (zero: that update). JTC keeps the state it had then
  (the hardware's positions and velocities: no acceleration interface) as the point before
  the trajectory.
* **sampling** at each update: before the first point, the spline from the state before
  the trajectory to the first point; between points, the spline between them (quintic
  where both have accelerations, cubic where both have velocities, else linear); after the
  last point, the last point held.

Times are seconds (float) on one clock, shared with the messages' stamps through
``epoch_ns`` (stamps are nanoseconds since 1970; ``t = (stamp_ns - epoch_ns) 1e-9``).
"""

from dataclasses import dataclass, replace
from typing import List, Optional, Sequence, Tuple

import numpy as np
from ros_ik.trajectory.jtc_spline import Setpoint, spline
from trajectory_msgs.msg import JointTrajectory

FLOAT_EPSILON = float(np.finfo(np.float32).eps)  # JTC: std::numeric_limits<float>::epsilon()


@dataclass(frozen=True)
class ActiveTrajectory:
    """
    An accepted trajectory in controller joint order: point offsets and (k, n) arrays.

    ``start`` (s): the header stamp; None for a zero stamp (the update that activates it).
    """

    offsets: np.ndarray
    start: Optional[float]
    positions: np.ndarray
    velocities: Optional[np.ndarray]
    accelerations: Optional[np.ndarray]


class JointTrajectoryControllerEmulation:
    """One JTC with default parameters for ``joint_names``, starting at rest at ``start``."""

    def __init__(self, joint_names: Sequence[str], start: np.ndarray, epoch_ns: int) -> None:
        """Hold ``start`` (n,) until the first accepted trajectory."""
        self.joint_names = list(joint_names)
        self.epoch_ns = epoch_ns
        start = np.array(start, dtype=float)
        self.setpoint = Setpoint(start, np.zeros_like(start), np.zeros_like(start))
        self.rejections: List[str] = []
        self._pending: Optional[ActiveTrajectory] = None
        self._active: Optional[ActiveTrajectory] = None
        self._before: Tuple[float, Tuple[np.ndarray, np.ndarray, None]] = (
            0.0, (start, np.zeros_like(start), None))

    def receive(self, message: JointTrajectory, now: float) -> Optional[str]:
        """
        Validate ``message`` received at ``now`` (s); keep it for the next update.

        Return the reason it was rejected (also kept in :attr:`rejections`), else None.
        """
        reason, trajectory = self.validated(message, now)
        if reason:
            self.rejections.append(reason)
            return reason
        self.accept(trajectory)
        return None

    def accept(self, trajectory: ActiveTrajectory) -> None:
        """Keep a trajectory :meth:`validated` returned for the next update."""
        self._pending = trajectory

    def validated(self, message: JointTrajectory, now: float
                  ) -> Tuple[str, Optional[ActiveTrajectory]]:
        """
        Return (reason, None) for a message JTC rejects at ``now`` (s), else ('', the trajectory).

        The trajectory's points are in this controller's joint order; nothing is kept.
        """
        names = list(message.joint_names)
        n = len(self.joint_names)
        if len(names) != n:
            return 'joints on incoming trajectory do not match the controller joints', None
        if not names:
            return 'empty joint names on incoming trajectory', None
        if not message.points:
            return 'empty trajectory received', None
        unknown = [name for name in names if name not in self.joint_names]
        if unknown:
            return f'incoming joint {unknown[0]} does not match the controller joints', None
        last_velocities = message.points[-1].velocities
        moving = [name for name, value in zip(names, last_velocities)
                  if abs(value) > FLOAT_EPSILON]
        if moving:
            return f'velocity of last trajectory point of joint {moving[0]} is not zero', None
        stamp_ns = message.header.stamp.sec * 10 ** 9 + message.header.stamp.nanosec
        offsets = np.array([point.time_from_start.sec + point.time_from_start.nanosec * 1e-9
                            for point in message.points])
        start = (stamp_ns - self.epoch_ns) * 1e-9 if stamp_ns else None
        if start is not None and start + offsets[-1] < now:
            return 'received trajectory with non-zero start time that ends in the past', None
        if np.any(np.diff(offsets) <= 0.0):
            return 'time between points is not strictly increasing', None
        for field, may_be_empty in (('positions', False), ('velocities', True),
                                    ('accelerations', True)):
            sizes = {len(getattr(point, field)) for point in message.points}
            if not sizes <= ({0, n} if may_be_empty else {n}):
                return f'mismatch between joint_names and {field} sizes', None
        order = [names.index(name) for name in self.joint_names]

        def field_array(field: str) -> Optional[np.ndarray]:
            """
            Return the field of every point in controller joint order (None if empty).

            rclpy keeps a float64[] field as an ``array.array('d')``: its bytes, joined,
            are the (points, n) array (a fifth of the time of converting each point's).
            """
            if not len(getattr(message.points[0], field)):
                return None
            values = b''.join(getattr(point, field).tobytes() for point in message.points)
            return np.frombuffer(values, dtype=float).reshape(len(message.points), n)[:, order]

        return '', ActiveTrajectory(offsets, start, field_array('positions'),
                                    field_array('velocities'), field_array('accelerations'))

    def update(self, now: float) -> Setpoint:
        """Run one controller update at ``now`` (s); return (and keep) the setpoint."""
        if self._pending is not None:
            trajectory, self._pending = self._pending, None
            if trajectory.start is None:  # zero stamp: starts at this update
                trajectory = replace(trajectory, start=now)
            self._active = trajectory
            self._before = (now, (self.setpoint.position, self.setpoint.velocity, None))
        if self._active is not None:
            self.setpoint = self._sample(self._active, now)
        return self.setpoint

    def _sample(self, trajectory: ActiveTrajectory, t: float) -> Setpoint:
        """Return the trajectory's setpoint at ``t`` (see the module docstring)."""
        times = trajectory.start + trajectory.offsets

        def point(index: int):
            """Return (positions, velocities, accelerations) of point ``index``."""
            return (trajectory.positions[index],
                    None if trajectory.velocities is None else trajectory.velocities[index],
                    None if trajectory.accelerations is None
                    else trajectory.accelerations[index])

        if t < times[0]:
            time_before, state_before = self._before
            return spline(time_before, state_before, times[0], point(0), t)
        index = int(np.searchsorted(times, t, side='right')) - 1
        if index >= len(times) - 1:
            last = point(len(times) - 1)
            return spline(times[-1], last, times[-1], last, t)
        return spline(times[index], point(index), times[index + 1], point(index + 1), t)
