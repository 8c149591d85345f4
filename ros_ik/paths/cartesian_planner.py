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
Offline Cartesian paths: waypoints in, a timed joint trajectory and what was achieved out.

:func:`plan_cartesian_path` is what MoveIt's ``computeCartesianPath`` answers, without its
``jump_threshold``: the joints follow the path by continuation (no branch flip can happen),
every sample's tool pose is on the path within the tolerances, the timing keeps every
joint's velocity, acceleration and jerk limits and the tool's speed caps, and where the path
cannot go on the result says why and where (``fraction`` of the path length, the waypoint
ahead, the joint or the link pair). The node follows the same stretches
(:mod:`ros_ik.paths.stretch_planner`) one after the other.

An example (the bundled UR5, a 0.3 m line) is in ``docs/cartesian_paths.md``.
"""

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ros_ik.paths.path_geometry import CartesianPath
from ros_ik.paths.stretch_planner import deviation, PathStop, PathTask, plan_stretch


@dataclass(frozen=True)
class CartesianPlan:
    """
    A Cartesian path as a timed joint trajectory, with what it achieves.

    ``times`` (k,) s from the start; ``positions``, ``velocities``, ``accelerations`` (k, n)
    in chain order; ``s`` (k,) the path length (m) of each sample. ``fraction``: the share
    of the path's length achieved (1.0: all of it); ``stop``: why it ends early (None: it
    does not), ``waypoint``: the index of the waypoint ahead where it stops (the last
    waypoint when it reaches the end); ``max_deviation``: the largest position (m) and
    orientation (rad) deviation of the samples' tool poses from the path.
    """

    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray
    s: np.ndarray
    fraction: float
    stop: Optional[PathStop]
    waypoint: int
    max_deviation: Tuple[float, float]

    @property
    def duration(self) -> float:
        """Return how long the trajectory takes (s)."""
        return float(self.times[-1]) if len(self.times) else 0.0


def joint_states_along(stretch, t: np.ndarray) -> Tuple[np.ndarray, ...]:
    """Return ``s, q, qdot, qddot`` at times ``t`` (k,) of a planned stretch's timing."""
    s, v, a, _ = stretch.timing.profile.state(t)
    q, q1, q2, _ = stretch.joint_path.evaluate(s)
    return s, q, q1 * v[:, None], q2 * (v * v)[:, None] + q1 * a[:, None]


def plan_cartesian_path(task: PathTask, T_base_waypoints: Sequence[np.ndarray],
                        q_start: np.ndarray, blend_radius: float = 0.0,
                        sample_period: float = 0.01) -> CartesianPlan:
    """
    Return the timed joint trajectory along the waypoints from ``q_start`` at rest.

    ``T_base_waypoints`` (k >= 2, 4, 4): the first must be the tool's pose at ``q_start``
    (within the tolerances), consecutive ones distinct. Rotation rows outside
    ``task.mask`` are free (a position-only path). Stretch after stretch (rest point to
    rest point), each from where the one before came to rest, sampled every
    ``sample_period`` s and at each stretch's end.
    """
    path = CartesianPath(np.asarray(T_base_waypoints, dtype=float), blend_radius,
                         position_only=not any(task.mask[3:]))
    q = np.asarray(q_start, dtype=float)
    offset = 0.0
    parts: List[Tuple[np.ndarray, ...]] = []
    stop = None
    for s_start, s_end in zip(path.rest_s[:-1], path.rest_s[1:]):
        stretch = plan_stretch(path, s_start, s_end, q, task)
        if stretch.timing is not None:
            duration = stretch.timing.duration
            t = np.arange(0.0, duration - 0.5 * sample_period, sample_period)
            t = np.append(t, duration)[1 if parts else 0:]  # each rest point once
            parts.append((t + offset,) + joint_states_along(stretch, t))
            offset += stretch.timing.duration
            q = parts[-1][2][-1]
        if stretch.stop is not None:
            stop = stretch.stop
            break
    times, s, positions, velocities, accelerations = (
        np.concatenate([part[field] for part in parts]) if parts else
        np.empty((0,) + ((len(q),) if field > 1 else ())) for field in range(5))
    if not parts:
        positions = velocities = accelerations = np.empty((0, len(q)))
    reached = float(s[-1]) if len(s) else 0.0
    T_tool = task.kinematics.tip_pose(positions) if len(s) else np.empty((0, 4, 4))
    dev_p, dev_o = (deviation(task, path.poses_at(s), T_tool) if len(s)
                    else (np.zeros(1), np.zeros(1)))
    return CartesianPlan(times, positions, velocities, accelerations, s,
                         reached / path.length, stop,
                         path.segment_index(reached) + 1 if stop is not None
                         else len(path.waypoint_s) - 1,
                         (float(dev_p.max(initial=0.0)), float(dev_o.max(initial=0.0))))
