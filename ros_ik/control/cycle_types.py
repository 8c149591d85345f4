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
The plain data the control cycle's stages pass along: notices, goals, statuses, commands.

Frames and units as everywhere in the controller: the chain's base frame, metres, radians,
seconds on the caller's clock; joint vectors (n,) in chain order.
"""

from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

import numpy as np

from ros_ik.collision.contact import Contact
from ros_ik.control.trajectory_horizon import Horizon
from ros_ik.trajectory.online_generator import MotionState


@dataclass(frozen=True)
class Notice:
    """Something worth a log line: ``level`` 'info' or 'warn', a ``key`` per kind, text."""

    level: str
    key: str
    message: str


@dataclass(frozen=True)
class Goal:
    """
    Where this cycle moves: joint positions (None: brake to rest) and the speed fraction.

    A path step gives the commanded state itself (``path_state``, on a checked path) and
    the motion it samples (``path``: a :class:`ros_ik.control.path_motion.StretchMotion`,
    for the states between commands and the stop along the path after them).
    """

    q: Optional[np.ndarray]
    speed_fraction: float = 1.0
    velocity_caps: Optional[np.ndarray] = None
    path: Optional[object] = None
    path_state: Optional[MotionState] = None


HOLD = Goal(None)  # brake to rest and hold there


@dataclass(frozen=True)
class GoalChoice:
    """
    The goal stage's answer: status level and message for the goal it chose.

    ``tracking`` = (q_measured, T_base_target, mask) when a pose target is active, for the
    report's tracking errors (None otherwise).
    """

    level: str
    message: str
    goal: Goal
    tracking: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None


@dataclass(frozen=True)
class Command:
    """
    One joint command (chain order) for time ``time`` (s, the caller's clock).

    Positions (rad or m), velocities, accelerations, and ``dt`` (s) since the previous one;
    ``horizon``: the JointTrajectory points of this cycle (joint_trajectory commands only).
    """

    q: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    dt: float
    time: float
    horizon: Optional[Horizon] = None


@dataclass(frozen=True)
class CycleStatus:
    """
    What the last cycle saw: level ('OK', 'WARN', 'ERROR'), message and values.

    ``tracking`` = (q_measured, T_base_target, mask) when a target is active: the tip pose
    and the errors are computed when a report is asked for, not in the control loop.
    """

    level: str
    message: str
    values: Dict[str, object] = field(default_factory=dict)
    tracking: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None


@dataclass(frozen=True)
class CycleResult:
    """A cycle's output: the command (None: publish nothing), manipulability, notices."""

    command: Optional[Command] = None
    manipulability: Optional[float] = None
    notices: Tuple[Notice, ...] = ()


@dataclass(frozen=True)
class MarkerState:
    """
    What to draw: the target (if any), the tip, its velocity ellipsoid, the closest pair.

    ``path_points`` (k, 3): tool positions along the running or last Cartesian path.
    """

    T_base_target: Optional[np.ndarray]
    position_only: bool
    T_base_tip: np.ndarray
    semi_axes: np.ndarray
    R_base_ellipsoid: np.ndarray
    near_singularity: bool
    closest: Optional[Contact] = None
    path_points: Optional[np.ndarray] = None
