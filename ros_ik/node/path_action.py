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
The ``~/follow_path`` action (``ros_ik_msgs/action/FollowPath``): paths for programs.

A goal is handed to the controller as a path whose request is the goal handle
(:meth:`IkController.set_path`); a path it refuses (empty, too long, NaN, a zero quaternion,
an unknown frame) aborts the goal at once with ``INVALID_PATH`` and the reason. While the
path runs, the control cycle publishes feedback (``fraction``, ``waypoint``,
``max_deviation``) at most every ``FEEDBACK_PERIOD``; when it ends the goal ends with the
outcome: succeeded, canceled (a cancel brakes along the path) or aborted, with
``error_code``, ``fraction``, ``max_deviation``, the waypoint ahead, the joint or link pair
and ``message``. A new goal, path, target or jog replaces a running goal's path (the old
goal is aborted with ``REPLACED``).

The execute callback is a coroutine waiting on a future the control cycle completes, so a
goal costs the executor nothing while it runs.
"""

from typing import Callable, Dict, List, Optional, Tuple

from rclpy.action import ActionServer, CancelResponse
from rclpy.node import Node
from rclpy.task import Future
from ros_ik.control.controller import IkController
from ros_ik.control.cycle_types import Notice
from ros_ik.control.path_goals import CANCELED, PathOutcome, SUCCEEDED
from ros_ik.control.path_input import PathOptions
from ros_ik.node.path_messages import path_fields
from ros_ik_msgs.action import FollowPath

FEEDBACK_PERIOD = 0.05  # s between two feedback messages of a goal
ERROR_CODES = {
    '': FollowPath.Result.SUCCEEDED, 'joint_limit': FollowPath.Result.JOINT_LIMIT,
    'singularity': FollowPath.Result.SINGULARITY,
    'unreachable': FollowPath.Result.UNREACHABLE, 'collision': FollowPath.Result.COLLISION,
    'approach': FollowPath.Result.APPROACH_FAILED, 'refused': FollowPath.Result.APPROACH_FAILED,
    'tf': FollowPath.Result.FRAME_ERROR, 'canceled': FollowPath.Result.CANCELED,
    'replaced': FollowPath.Result.REPLACED, 'restart': FollowPath.Result.NOT_FOLLOWED,
    'start': FollowPath.Result.NOT_FOLLOWED,
}


def result_of(outcome: PathOutcome) -> FollowPath.Result:
    """Return the action result of a path's final outcome."""
    return FollowPath.Result(
        error_code=ERROR_CODES.get(outcome.reason, FollowPath.Result.NOT_FOLLOWED),
        fraction=float(outcome.fraction), max_deviation=float(outcome.deviation[0]),
        max_orientation_deviation=float(outcome.deviation[1]),
        waypoint=max(int(outcome.waypoint), 0), joint=outcome.joint,
        link_pair=list(outcome.pair), message=outcome.message)


class PathAction:
    """The ``~/follow_path`` action server of one node (see the module docstring)."""

    def __init__(self, node: Node, controller: Callable[[], Optional[IkController]],
                 now: Callable[[], float], log: Callable[[List[Notice]], None]) -> None:
        """
        Serve the action; ``controller()`` is the node's (None until the model is loaded).

        ``log(notices)``: the node's throttled log (a refused goal is logged as a refused
        path on the topic is).
        """
        self._controller = controller
        self._now = now
        self._log = log
        # id(goal handle) -> (goal handle, its result's future); handles are not hashable
        self._running: Dict[int, Tuple[object, Future]] = {}
        self._feedback_due: Dict[int, float] = {}
        self._server = ActionServer(node, FollowPath, '~/follow_path', self._execute,
                                    cancel_callback=self._on_cancel)

    def destroy(self) -> None:
        """Destroy the action server."""
        self._server.destroy()

    async def _execute(self, goal_handle) -> FollowPath.Result:
        """Hand the goal's path to the controller; return its result when it ends."""
        controller = self._controller()
        if controller is None:
            goal_handle.abort()
            return FollowPath.Result(error_code=FollowPath.Result.INVALID_PATH,
                                     message='the node has no robot model yet')
        goal = goal_handle.request
        options = PathOptions(max(goal.max_linear_speed, 0.0), max(goal.max_angular_speed, 0.0),
                              goal_handle)
        taken, notices = controller.set_path(*path_fields(goal.path), options, self._now())
        self._log(notices)
        if not taken:
            goal_handle.abort()
            return FollowPath.Result(error_code=FollowPath.Result.INVALID_PATH,
                                     message=notices[0].message if notices else 'refused')
        future = Future()
        self._running[id(goal_handle)] = (goal_handle, future)
        return await future

    def _on_cancel(self, goal_handle) -> CancelResponse:
        """Accept a cancel: the cycle brakes the path along itself (or drops it if pending)."""
        return CancelResponse.ACCEPT

    def update(self, controller: IkController) -> None:
        """In the control cycle: end the goals whose paths ended, cancel, publish feedback."""
        for ended in controller.take_ended_paths():
            if id(ended.request) not in self._running:
                continue
            goal_handle, future = self._running.pop(id(ended.request))
            self._feedback_due.pop(id(goal_handle), None)
            if ended.status == SUCCEEDED:
                goal_handle.succeed()
            elif ended.status == CANCELED and goal_handle.is_cancel_requested:
                goal_handle.canceled()
            else:
                goal_handle.abort()
            future.set_result(result_of(ended))
        for goal_handle, future in [entry for entry in self._running.values()
                                    if entry[0].is_cancel_requested]:
            if not controller.cancel_path(goal_handle):  # not moving yet: over at once
                goal_handle.canceled()
                del self._running[id(goal_handle)]
                future.set_result(FollowPath.Result(error_code=FollowPath.Result.CANCELED,
                                                    message='canceled before the path started'))
        outcome = controller.path_outcome()
        if outcome is not None and id(outcome.request) in self._running:
            self._feedback(outcome, self._now())

    def _feedback(self, outcome: PathOutcome, now: float) -> None:
        """Publish a running goal's feedback, at most every FEEDBACK_PERIOD."""
        goal_handle = outcome.request
        if now < self._feedback_due.get(id(goal_handle), 0.0):
            return
        self._feedback_due[id(goal_handle)] = now + FEEDBACK_PERIOD
        goal_handle.publish_feedback(FollowPath.Feedback(
            fraction=float(outcome.fraction), waypoint=max(int(outcome.waypoint), 0),
            max_deviation=float(outcome.deviation[0])))
