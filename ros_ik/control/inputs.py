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
The controller's inputs: the joint-state cache and the newest target or jog.

Plain values in (names, numbers, frame names, receive times in s on the caller's clock,
stamps in s on the ROS clock), a list of :class:`Notice` back for whatever is worth a log
line. The newest input drives the arm: a target preempts a jog and the previous target, a
jog preempts a target. Frame names with a leading ``/`` are the same frame without it.

A target is kept in its own frame and expressed in the base frame once, on the first
cycle after it arrives (:meth:`ControllerInputs.target_in_base`: ``T_base_target =
T_base_frame T_frame_target``). A frame of the chain gives ``T_base_frame(q)`` by FK at the
commanded joints ``q``. Any other frame is looked up in TF (a :class:`FrameSource`) at the
target's stamp (0: the latest): until that works the target is pending and the running
motion goes on; after ``transform_timeout`` s it is refused, naming the frames and the
reason (:meth:`ControllerInputs.resolve_pending`). In servo mode a target in a TF frame is
looked up again every cycle at the latest time, so the arm follows a moving frame
(:meth:`ControllerInputs.followed_target`); a solve target keeps its first transform. A
jog twist in a TF frame takes the frame's latest orientation every cycle.
"""

from dataclasses import dataclass, replace
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ros_ik.control.arm import ControlledArm
from ros_ik.control.cycle_types import Notice
from ros_ik.control.frame_source import FrameSource
from ros_ik.control.goal_modes import planar_goal_target, point_target
from ros_ik.control.jogging import JogCommand, JogPath, joint_velocity_command
from ros_ik.control.joint_state_cache import JointStateCache
from ros_ik.control.parameters import Settings
from ros_ik.control.path_input import (base_waypoints, check_waypoints, PathInput,
                                       PathOptions)
from ros_ik.control.targets import (check_pose, has_subnormal, INT_BITS_HINT, is_known_frame,
                                    known_frames)
from ros_ik.kinematics.transform_buffer import frame_name, FrameError, UNKNOWN_FRAME


@dataclass
class Target:
    """
    The latest target: its frame, pose in that frame (4x4), kind, position-only flag.

    ``stamp``: the pose's time (s, ROS clock; 0: the latest). A target in a TF frame
    (``via_tf``) carries ``T_base_frame`` at ``frame_time`` (s; 0: a static way).
    """

    frame_id: str
    T_frame_target: np.ndarray
    kind: str
    position_only: bool
    sequence: int = 0
    stamp: float = 0.0
    via_tf: bool = False
    T_base_frame: Optional[np.ndarray] = None
    frame_time: float = 0.0
    T_base_target: Optional[np.ndarray] = None


@dataclass(frozen=True)
class PendingTarget:
    """A target in a TF frame waiting for its transform until ``deadline`` (s)."""

    target: Target
    deadline: float


class ControllerInputs:
    """The latest joint states, target and jog of one arm (see the module docstring)."""

    def __init__(self, arm: ControlledArm, frames: Optional[FrameSource] = None) -> None:
        """Start with no joint state, no target and no jog; ``frames``: TF (None: none)."""
        self.arm = arm
        self.frames = frames
        self.joints = JointStateCache(arm.chain.joint_names)
        self.target: Optional[Target] = None
        self.pending: Optional[PendingTarget] = None
        self.jog: Optional[JogCommand] = None
        self.jog_path = JogPath()
        self.path: Optional[PathInput] = None
        self.pending_path: Optional[Tuple[PathInput, float]] = None  # (path, deadline s)
        self.refused_path: Optional[Tuple[PathInput, str]] = None  # TF failed: why
        # Why the newest input was refused ('' once a newer one is taken): the status
        # shows it until then.
        self.refusal = ''
        self._target_sequence = 0

    def refuse(self, key: str, message: str) -> List[Notice]:
        """Refuse the newest input: keep why until a newer one is taken; return its notice."""
        self.refusal = message
        return [Notice('warn', key, message)]

    def has_input(self) -> bool:
        """Return whether a target, path or jog is there to drive the arm (not pending)."""
        return self.target is not None or self.jog is not None or self.path is not None

    def update_joint_state(self, names: Sequence[str], positions: Sequence[float],
                           receive_time: float) -> List[Notice]:
        """Merge a joint-state message's chain joints; return what to log about it."""
        update = self.joints.update(names, positions, receive_time)
        notices = []
        if update.error:
            notices.append(Notice('warn', 'joint_states:' + update.problem, update.error))
        elif update.absent_joints:
            notices.append(Notice('warn', 'joint_states:absent',
                                  'joint_states message lacks chain joints '
                                  f'{", ".join(update.absent_joints)}; using their last '
                                  'known positions'))
        if update.extra_joints:
            notices.append(Notice('info', 'joint_states:extra',
                                  'joint_states also carries joints outside the chain, '
                                  f'ignored: {", ".join(update.extra_joints)}'))
        return notices

    def set_target(self, frame_id: str, position: Sequence[float],
                   quaternion_xyzw: Optional[Sequence[float]], kind: str, settings: Settings,
                   receive_time: float = 0.0, stamp: float = 0.0) -> List[Notice]:
        """
        Validate and keep a target (the newest one preempts the previous and any jog).

        ``kind``: 'pose' (full pose), 'planar' (RViz 2D Goal Pose, read per
        ``planar_goal_mode``) or 'point' (``quaternion_xyzw`` None, per
        ``point_orientation``). An empty ``frame_id`` is ``planning_frame``. A target in a
        TF frame is pending from ``receive_time`` (s) until its transform at ``stamp`` (s,
        ROS time; 0: the latest) is known.
        """
        check = check_pose(position, quaternion_xyzw)
        if check.error:
            return self.refuse('target:' + check.problem, f'target ignored: {check.error}')
        notices = []
        if check.warning:
            notices.append(Notice('warn', 'target:normalised', check.warning))
        chain = self.arm.chain
        frame = frame_name(frame_id) or frame_name(settings.planning_frame)
        position_only = kind == 'point' and settings.point_orientation == 'free'
        via_tf = not is_known_frame(chain, frame)
        target = Target(frame, check.T_frame_target, kind, position_only, stamp=stamp,
                        via_tf=via_tf)
        if via_tf and self.frames is None:
            return notices + self.refuse('target:frame', f'target ignored: unknown frame '
                                         f'"{frame}"; use one of {known_frames(chain)} (or '
                                         'empty for the base)')
        self.refusal = ''
        if via_tf:
            self.pending = PendingTarget(target, receive_time + settings.transform_timeout)
        else:
            self._drive(target)
        return notices

    def resolve_pending(self, now: float, settings: Settings) -> List[Notice]:
        """
        Drive the pending target once its transform is known; refuse it at its deadline.

        ``now``: the controller's clock (s). Until the deadline a failed lookup waits (a
        late ``/tf_static``, a transform that has not reached the stamp yet).
        """
        pending = self.pending
        if pending is None:
            return []
        target = pending.target
        try:
            T_base_frame, time = self.frames.base_from(target.frame_id, target.stamp)
        except FrameError as error:
            if now < pending.deadline:
                return []
            self.pending = None
            return self.refuse('target:tf_' + error.kind,
                               f'target ignored: no transform from "{target.frame_id}" to '
                               f'"{self.arm.chain.base_link}" within transform_timeout '
                               f'({settings.transform_timeout:g} s): {error}')
        self.pending = None
        target.T_base_frame, target.frame_time = T_base_frame, time  # not shared yet
        self._drive(target)
        return []

    def _drive(self, target: Target) -> None:
        """Make ``target`` the input that drives the arm (a new target: a new sequence)."""
        self._target_sequence += 1
        target.sequence = self._target_sequence
        self.target = target
        self.pending = self.jog = self.path = self.pending_path = None
        self.jog_path.reset()

    def set_twist(self, frame_id: str, linear: Sequence[float], angular: Sequence[float],
                  receive_time: float, settings: Settings) -> List[Notice]:
        """
        Take a jog twist (m/s, rad/s) in ``frame_id`` received at ``receive_time`` (s).

        An empty frame means ``twist_frame`` (itself empty: the tip link). The jog takes
        over from a pose target; see :mod:`ros_ik.control.jogging`.
        """
        values = np.concatenate([np.asarray(linear, dtype=float),
                                 np.asarray(angular, dtype=float)])
        if values.shape != (6,) or not np.all(np.isfinite(values)):
            return self.refuse('jog:twist', f'jog twist ignored: not 6 finite values: '
                               f'{values.tolist()}')
        if has_subnormal(values):
            return self.refuse('jog:int_bits', f'jog twist ignored: subnormal values '
                               f'{values.tolist()}: {INT_BITS_HINT}')
        chain = self.arm.chain
        frame = frame_name(frame_id) or frame_name(settings.twist_frame) or chain.tip_link
        if frame not in chain.frame_names and self.frames is None:
            return self.refuse('jog:frame', f'jog twist ignored: unknown frame "{frame}"; '
                               f'use one of {known_frames(chain)}')
        self.refusal = ''
        if self.jog is None or self.jog.kind != 'twist':
            self.jog_path.reset()
        self.jog = JogCommand('twist', frame, values, receive_time)
        self.target = self.pending = self.path = self.pending_path = None
        return []

    def set_joint_jog(self, names: Sequence[str], velocities: Sequence[float],
                      receive_time: float) -> List[Notice]:
        """Take joint velocities (rad/s or m/s) by name; the jog takes over from a target."""
        qdot, problem = joint_velocity_command(self.arm.chain.joint_names, names, velocities)
        if qdot is None:
            return self.refuse('jog:joints', problem)
        self.refusal = ''
        self.jog = JogCommand('joint', '', qdot, receive_time)
        self.target = self.pending = self.path = self.pending_path = None
        return []

    def set_path(self, frame_ids: Sequence[str], positions: np.ndarray,
                 quaternions: np.ndarray, stamps: Sequence[float], options: PathOptions,
                 settings: Settings, receive_time: float = 0.0) -> Tuple[bool, List[Notice]]:
        """
        Validate and keep a Cartesian path; return whether it is taken, and notices.

        Each waypoint in its frame (empty: ``planning_frame``); a path with waypoints in TF
        frames is pending until every one is transformed (at its stamp) or refused after
        ``transform_timeout``. A taken path replaces any target, jog or path.
        """
        check = check_waypoints(positions, quaternions)
        if check.error:
            return False, self.refuse('path:' + check.problem, check.error)
        notices = [Notice('warn', 'path:normalised', check.warning)] if check.warning else []
        planning = frame_name(settings.planning_frame)
        frames = tuple(frame_name(frame) or planning for frame in frame_ids)
        in_tf = sorted({frame for frame in frames if not is_known_frame(self.arm.chain, frame)})
        if in_tf and self.frames is None:
            return False, self.refuse('path:frame', f'path ignored: unknown frame "{in_tf[0]}"; '
                                      f'use one of {known_frames(self.arm.chain)}')
        self.refusal = ''
        self._target_sequence += 1
        path = PathInput(frames, check.poses, tuple(float(stamp) for stamp in stamps), options,
                         self._target_sequence)
        if in_tf:
            self.pending_path = (path, receive_time + settings.transform_timeout)
        else:
            self._drive_path(path)
        return True, notices

    def resolve_pending_path(self, now: float, settings: Settings) -> List[Notice]:
        """Drive the pending path once every TF frame is known; refuse it at its deadline."""
        if self.pending_path is None:
            return []
        path, deadline = self.pending_path
        try:
            for frame, stamp in sorted(set(zip(path.frames, path.stamps))):
                if not is_known_frame(self.arm.chain, frame) and (frame, stamp) not in (
                        path.tf_poses):
                    path.tf_poses[(frame, stamp)] = self.frames.base_from(frame, stamp)[0]
        except FrameError as error:
            if now < deadline:
                return []
            self.pending_path = None
            message = (f'path ignored: no transform to "{self.arm.chain.base_link}" within '
                       f'transform_timeout ({settings.transform_timeout:g} s): {error}')
            self.refused_path = (path, message)
            return self.refuse('path:tf_' + error.kind, message)
        self._drive_path(path)
        return []

    def drop_pending_path(self, request: object) -> None:
        """Forget the path waiting for TF if it answers ``request``."""
        if self.pending_path is not None and self.pending_path[0].options.request is request:
            self.pending_path = None

    def _drive_path(self, path: PathInput) -> None:
        """Make ``path`` the input that drives the arm."""
        self.path = path
        self.pending_path = self.target = self.pending = self.jog = None
        self.jog_path.reset()

    def path_in_base(self, q: np.ndarray) -> PathInput:
        """Return the path with ``T_base_waypoints`` set (chain frames by FK at ``q``, once)."""
        path = self.path
        if path.T_base_waypoints is None:
            path.T_base_waypoints = base_waypoints(
                path, lambda frame: self.arm.kinematics.frame_pose(q, frame), path.tf_poses)
        return path

    def base_from(self, frame: str, q: np.ndarray, stamp: float = 0.0) -> np.ndarray:
        """
        Return ``T_base_frame`` (4x4): FK at ``q`` for a chain frame, else TF at ``stamp``.

        Raises :class:`ros_ik.kinematics.transform_buffer.FrameError` for a TF frame
        without a transform (or without TF).
        """
        if frame in self.arm.chain.frame_names or frame == '':
            return self.arm.kinematics.frame_pose(q, frame)
        if self.frames is None:
            raise FrameError(UNKNOWN_FRAME, f'frame "{frame}" is not a chain frame and '
                             'there is no TF')
        return self.frames.base_from(frame, stamp)[0]

    def followed_target(self, settings: Settings) -> Target:
        """
        Return the target, in servo mode with its TF frame's latest transform.

        A new transform makes a new :class:`Target` (same sequence) whose base-frame pose
        is computed anew; raises :class:`ros_ik.kinematics.transform_buffer.FrameError`
        when the frame is lost (stale, gone).
        """
        target = self.target
        if not target.via_tf or settings.mode != 'servo':
            return target
        T_base_frame, time = self.frames.base_from(target.frame_id, 0.0)
        if time != target.frame_time or (T_base_frame is not target.T_base_frame and not
                                         np.array_equal(T_base_frame, target.T_base_frame)):
            self.target = target = replace(target, T_base_frame=T_base_frame, frame_time=time,
                                           T_base_target=None)
        return target

    def target_in_base(self, q: np.ndarray, settings: Settings) -> Target:
        """
        Return the target with ``T_base_target`` set, computed once with FK at ``q``.

        ``T_base_frame``: FK at ``q`` for a chain frame, TF's for a TF frame. A planar goal
        becomes a target per ``planar_goal_mode``; a point keeps the current tool
        orientation (used only when ``point_orientation`` is ``hold``).
        """
        target = self.target
        if target.T_base_target is None:
            kinematics = self.arm.kinematics
            T_base_frame = (target.T_base_frame if target.via_tf
                            else kinematics.frame_pose(q, target.frame_id))
            T_base_target = T_base_frame @ target.T_frame_target
            if target.kind == 'planar':
                T_base_target = planar_goal_target(T_base_target, kinematics.tip_pose(q),
                                                   settings.planar_goal_mode)
            elif target.kind == 'point':
                T_base_target = point_target(T_base_target, kinematics.tip_pose(q),
                                             settings.point_orientation)
            target.T_base_target = T_base_target
        return target
