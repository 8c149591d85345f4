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
The demo's Cartesian path segment: a FollowPath goal, and the commanded tool along it.

The waypoints go to the IK node's ``~/follow_path`` action with the segment's tool speed
cap; while it runs, the commanded tool position (forward kinematics of the controller's
setpoint, the spline of the commands, at every joint-state sample) and speed (between
samples) are recorded for the table and the plot.
"""

from dataclasses import dataclass, field
import time
from typing import List, Optional, Tuple

from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
import numpy as np
from rclpy.action import ActionClient
from ros_ik.demo.segments import Segment
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.node.messages import pose_message
from ros_ik.tools.node_processes import RosPeer
from ros_ik_msgs.action import FollowPath


AT_FIRST_CORNER = 1e-3  # m: the node's default path_position_tolerance


@dataclass
class PathRecording:
    """
    The commanded tool during a path: stamps (s), positions (m, base frame), the cap.

    Where the tool did not start at the first corner, the node approached it first by a
    joint motion (``path_approach: move``, not bound by the path's tool speed cap): the
    path proper starts at the first command within ``AT_FIRST_CORNER`` of that corner.
    """

    stamps: List[float] = field(default_factory=list)
    positions: List[np.ndarray] = field(default_factory=list)
    corners: Optional[np.ndarray] = None  # (k, 3) the waypoints' positions
    speed_cap: float = 0.0
    result: Optional[FollowPath.Result] = None

    def approach_count(self) -> int:
        """Return how many commands approached the first corner before the path proper."""
        if not self.positions:
            return 0
        distances = np.linalg.norm(np.array(self.positions) - self.corners[0], axis=1)
        at_corner = np.flatnonzero(distances <= AT_FIRST_CORNER)
        return int(at_corner[0]) if len(at_corner) else len(self.positions)

    def following(self) -> Tuple[np.ndarray, np.ndarray]:
        """Return the stamps (k,) and tool positions (k, 3) of the path proper."""
        first = self.approach_count()
        return np.array(self.stamps[first:]), np.array(self.positions[first:]).reshape(-1, 3)

    def speeds(self) -> np.ndarray:
        """Return the commanded tool speed (m/s) between successive commands of the path."""
        stamps, positions = self.following()
        if len(stamps) < 2:
            return np.zeros(0)
        steps = np.linalg.norm(np.diff(positions, axis=0), axis=1)
        return steps / np.maximum(np.diff(stamps), 1e-9)


class PathRunner:
    """Sends a segment's path as a FollowPath goal and records the commanded tool."""

    def __init__(self, peer: RosPeer, kinematics: ChainKinematics, base_link: str) -> None:
        """Create the action client of the IK node's ``~/follow_path``."""
        self.peer = peer
        self.kinematics = kinematics
        self.base_link = base_link
        self.client = ActionClient(peer.node, FollowPath, 'ros_ik/follow_path')
        self.recording: Optional[PathRecording] = None

    def command(self, stamp: float, q: np.ndarray) -> None:
        """Record a command heard while a path runs (stamp s, joints)."""
        if self.recording is not None and self.recording.result is None:
            self.recording.stamps.append(stamp)
            self.recording.positions.append(self.kinematics.tip_pose(q)[:3, 3])

    def run(self, segment: Segment, timeout: float) -> Optional[FollowPath.Result]:
        """Send the path; return the action's result (None: no result within ``timeout``)."""
        self.recording = PathRecording(
            corners=np.array([T[:3, 3] for T in segment.path]), speed_cap=segment.path_speed)
        if not self.client.wait_for_server(timeout_sec=timeout):
            return None
        message = Path()
        message.header.frame_id = self.base_link
        message.poses = [PoseStamped(pose=pose_message(T)) for T in segment.path]
        sent = self.client.send_goal_async(FollowPath.Goal(
            path=message, max_linear_speed=segment.path_speed))
        deadline = time.monotonic() + timeout
        if not self.peer.spin_until(sent.done, timeout) or not sent.result().accepted:
            return None
        result = sent.result().get_result_async()
        if not self.peer.spin_until(result.done, max(deadline - time.monotonic(), 0.0)):
            return None
        self.recording.result = result.result().result
        return self.recording.result
