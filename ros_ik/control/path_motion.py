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
The commanded motion along a planned stretch: joint states at command times, brakes.

A :class:`StretchMotion` is a stretch's joint path ``q(s)`` with a timing ``s(t)`` (its plan
or a brake) started at command time ``t0`` (s, the controller's clock). At time ``t`` the
joints are ``q(s)``, their velocity ``q'(s) v`` and acceleration ``q''(s) v^2 + q'(s) a``
(``v, a`` of the timing at ``t - t0``): one continuous jerk-limited motion on the path, the
same whatever times the commands are sampled at. After the timing ends the joints rest
exactly (velocity and acceleration 0). A stretch that starts where the previous one came to
rest keeps that one as ``before``: times before ``t0`` are the previous motion's (a
command step that spans the stretches' change samples the approach to the rest point,
not the new stretch held at it).

It is also what the command stream asks of a path step: states between two commands (the
JointTrajectory horizon's dense points) and the hardest stop along the path after a
command (the horizon's tail, what joint_trajectory_controller executes if messages stop).
"""

from typing import Optional, Tuple

import numpy as np

from ros_ik.paths.path_timing import StretchTiming
from ros_ik.paths.stretch_planner import PlannedStretch
from ros_ik.trajectory.online_generator import MotionState

Samples = Tuple[np.ndarray, np.ndarray, np.ndarray]  # positions, velocities, accelerations


class StretchMotion:
    """A timing over a planned stretch's joint path from command time ``t0`` (s)."""

    def __init__(self, stretch: PlannedStretch, timing: StretchTiming, t0: float,
                 before: Optional['StretchMotion'] = None) -> None:
        """Keep the stretch, the timing followed, when it starts and the motion before."""
        self.stretch = stretch
        self.timing = timing
        self.t0 = t0
        # The motion that came to rest at t0, without its own ``before`` (one change).
        self.before = (None if before is None else
                       StretchMotion(before.stretch, before.timing, before.t0))

    @property
    def end_time(self) -> float:
        """Return the command time (s) at which the motion is at rest."""
        return self.t0 + self.timing.duration

    def path_state(self, times: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``s, v, a`` (k,) of the timing at command times (k,), rest after its end."""
        relative = np.asarray(times, dtype=float) - self.t0
        s, v, a, _ = self.timing.profile.state(relative)
        done = relative >= self.timing.duration
        return s, np.where(done, 0.0, v), np.where(done, 0.0, a)

    def samples(self, times: np.ndarray) -> Samples:
        """
        Return joint positions, velocities, accelerations (k, n) at command times (k,).

        ``q(s)``, ``q'(s) v`` and ``q''(s) v^2 + q'(s) a``; times before ``t0`` are the
        ``before`` motion's, where there is one.
        """
        times = np.asarray(times, dtype=float)
        s, v, a = self.path_state(times)
        q, q1, q2, _ = self.stretch.joint_path.evaluate(s)
        samples = (q, q1 * v[:, None], q2 * (v * v)[:, None] + q1 * a[:, None])
        earlier = times < self.t0
        if self.before is not None and earlier.any():
            for own, previous in zip(samples, self.before.samples(times[earlier])):
                own[earlier] = previous
        return samples

    def state_at(self, time: float) -> MotionState:
        """Return the commanded joint state at command time ``time`` (s)."""
        q, qdot, qddot = self.samples(np.array([time]))
        return MotionState(q[0], qdot[0], qddot[0])

    def s_at(self, time: float) -> float:
        """Return the path length (m) commanded at ``time`` (s)."""
        return float(self.path_state(np.array([time]))[0][0])

    def braked(self, time: float) -> 'StretchMotion':
        """Return the fastest stop along the path from the state at ``time`` (s)."""
        return StretchMotion(self.stretch, self.timing.brake(time - self.t0), time)

    def stop_samples(self, time: float, spacing: float
                     ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """
        Return the stop along the path after ``time`` sampled every ``spacing`` s.

        ``(times (k,) after time, positions, velocities, accelerations (k, n))``, the last
        row at rest; empty when the state at ``time`` is at rest.
        """
        brake = self.braked(time)
        duration = brake.timing.duration
        n = self.stretch.joint_path.q.shape[1]
        if duration <= 0.0:
            empty = np.empty((0, n))
            return np.empty(0), empty, empty, empty
        offsets = spacing * np.arange(1, int(duration / spacing) + 1)
        offsets = np.append(offsets[offsets < duration - 0.5 * spacing], duration)
        return (offsets,) + brake.samples(time + offsets)
