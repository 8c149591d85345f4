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
Cartesian paths over DDS: ``~/target_path`` and the ``~/follow_path`` action, strict arm.

ik_node and the strict sim_arm as processes; every test checks the arm never faulted, the
command stream (from its stamps) within every limit, and every commanded tool position on
the path (forward kinematics of each command heard).
"""

import importlib.util
import math
from typing import List, Sequence

from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
import numpy as np
import pytest
from rclpy.action import ActionClient
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS
from ros_ik.kinematics.transforms import rpy_to_matrix, transform
from ros_ik.node.messages import pose_message
from ros_ik_msgs.action import FollowPath
from ros_ik_testing.polylines import distance_from_polyline
from test_closed_loop import bundled_loop, Loop
from test_tf_frames import MOUNT, start_static, T_of
from visualization_msgs.msg import Marker, MarkerArray

TARGET_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
TIMEOUT = 30.0


def path_message(waypoints: Sequence[np.ndarray], frame: str) -> Path:
    """Return a nav_msgs/Path of 4x4 poses in ``frame`` (the path's header frame)."""
    message = Path()
    message.header.frame_id = frame
    message.poses = [PoseStamped(pose=pose_message(T)) for T in waypoints]
    return message


def square(T0: np.ndarray, side: float) -> List[np.ndarray]:
    """Return the corners of a square in the base xy plane starting at ``T0``."""
    corners = []
    for dx, dy in ((0, 0), (1, 0), (1, 1), (0, 1), (0, 0)):
        T = T0.copy()
        T[0, 3] += side * dx
        T[1, 3] += side * dy
        corners.append(T)
    return corners


def off_path(loop: Loop, corners: Sequence[np.ndarray]) -> float:
    """Return the largest distance of a commanded tool position from the polyline."""
    points = loop.kinematics.tip_pose(np.array(loop.commands))[:, :3, 3]
    return float(distance_from_polyline(points, corners).max())


def at(loop: Loop, T: np.ndarray) -> bool:
    """Return whether the measured tool is at ``T`` (1 mm, 0.01 rad)."""
    return loop.q is not None and loop.error(T) < 1e-3


@pytest.mark.parametrize('arm', ['ur5', 'panda'])
def test_a_square_on_the_target_path_topic_is_drawn_on_the_path(peer, processes, tmp_path,
                                                                arm):
    """Check a square sent on ~/target_path: back at the start, on the path, no fault."""
    loop = bundled_loop(peer, processes, tmp_path, arm)
    try:
        home = np.array(BUNDLED_ARMS[arm].home)
        corners = square(loop.kinematics.tip_pose(home), 0.12)
        publisher = peer.node.create_publisher(Path, '/ros_ik/target_path', TARGET_QOS)
        drawn: List[Marker] = []
        peer.node.create_subscription(
            MarkerArray, '/ros_ik/markers', lambda message: drawn.extend(
                marker for marker in message.markers if marker.ns == 'ros_ik_path'),
            TARGET_QOS)
        assert peer.spin_until(lambda: publisher.get_subscription_count() > 0, TIMEOUT)
        publisher.publish(path_message(corners, loop.chain.base_link))
        loop.wait_for(lambda: loop.status is not None and loop.status.message == 'path done'
                      and at(loop, corners[-1]), TIMEOUT)
        assert off_path(loop, corners) <= 1e-3
        loop.check_stream(home)
        loop.wait_for(lambda: drawn, TIMEOUT)  # the path, as RViz and the browser draw it
        line = drawn[-1]
        assert line.type == Marker.LINE_STRIP and line.header.frame_id == loop.chain.base_link
        points = np.array([(p.x, p.y, p.z) for p in line.points])
        assert distance_from_polyline(points, corners).max() <= 1e-6
        assert np.linalg.norm(points[0] - corners[0][:3, 3]) <= 1e-6
    finally:
        loop.close()


@pytest.mark.parametrize('arm', ['ur5', 'panda'])
def test_a_line_through_a_near_singular_stretch_stops_short_with_the_reason(peer, processes,
                                                                            tmp_path, arm):
    """Check a line outward beyond the reach: the arm stretches, stops on the line, says so."""
    loop = bundled_loop(peer, processes, tmp_path, arm)
    try:
        home = np.array(BUNDLED_ARMS[arm].home)
        T0 = loop.kinematics.tip_pose(home)
        outward = np.append(T0[:2, 3] / np.linalg.norm(T0[:2, 3]), 0.2)
        T1 = T0.copy()
        T1[:3, 3] += 0.8 * outward  # the arm stretches toward its reach, then beyond it
        result, feedback = follow(peer, path_message([T0, T1], loop.chain.base_link))
        assert result.error_code in (FollowPath.Result.UNREACHABLE,
                                     FollowPath.Result.SINGULARITY,
                                     FollowPath.Result.JOINT_LIMIT), result.message
        assert 0.05 < result.fraction < 1.0 and result.waypoint == 1
        assert result.max_deviation <= 1e-3 and feedback
        assert 'm of path' in result.message
        assert off_path(loop, [T0, T1]) <= 1e-3
        loop.check_stream(home)
    finally:
        loop.close()


def follow(peer, path: Path, cancel_after: float = 0.0, speed: float = 0.0):
    """Send a FollowPath goal; return its result and the feedback fractions heard."""
    client = ActionClient(peer.node, FollowPath, '/ros_ik/follow_path')
    assert client.wait_for_server(timeout_sec=TIMEOUT)
    feedback: List[float] = []
    sent = client.send_goal_async(FollowPath.Goal(path=path, max_linear_speed=speed),
                                  feedback_callback=lambda m: feedback.append(
                                      m.feedback.fraction))
    assert peer.spin_until(sent.done, TIMEOUT)
    goal = sent.result()
    assert goal.accepted
    if cancel_after:
        peer.spin_until(lambda: feedback and feedback[-1] >= cancel_after, TIMEOUT)
        canceling = goal.cancel_goal_async()
        assert peer.spin_until(canceling.done, TIMEOUT)
    result = goal.get_result_async()
    assert peer.spin_until(result.done, TIMEOUT)
    client.destroy()
    return result.result().result, feedback


def test_the_action_reports_its_result_and_a_cancel_brakes_along_the_path(peer, processes,
                                                                          tmp_path):
    """Check FollowPath: succeeded with feedback, then a canceled line at rest on it."""
    loop = bundled_loop(peer, processes, tmp_path, 'ur5')
    try:
        home = np.array(BUNDLED_ARMS['ur5'].home)
        T0 = loop.kinematics.tip_pose(home)
        corners = square(T0, 0.1)[:3]
        result, feedback = follow(peer, path_message(corners, loop.chain.base_link), speed=0.2)
        assert result.error_code == FollowPath.Result.SUCCEEDED, result.message
        assert result.fraction == pytest.approx(1.0) and result.waypoint == 2
        assert feedback == sorted(feedback) and len(feedback) >= 3
        back = [corners[-1], corners[0]]
        result, feedback = follow(peer, path_message(back, loop.chain.base_link), cancel_after=0.2,
                                  speed=0.05)
        assert result.error_code == FollowPath.Result.CANCELED, result.message
        assert 0.2 <= result.fraction < 0.9
        loop.wait_for(lambda: np.all(loop.velocities[-1] == 0.0), TIMEOUT)
        assert off_path(loop, corners + [corners[0]]) <= 1e-3
        loop.check_stream(home)
    finally:
        loop.close()


@pytest.mark.skipif(importlib.util.find_spec('tf2_msgs') is None,
                    reason='tf2_msgs is not installed (make install builds it into the venv)')
def test_a_path_in_world_goes_through_tf_and_bad_paths_are_refused(peer, processes,
                                                                   tmp_path):
    """Check a line sent in world (base mounted by TF) and the refusals of bad paths."""
    start_static(processes, tmp_path, MOUNT, 'tf_mount')
    loop = bundled_loop(peer, processes, tmp_path, 'ur5', ik={'transform_timeout': 5.0})
    try:
        home = np.array(BUNDLED_ARMS['ur5'].home)
        T0 = loop.kinematics.tip_pose(home)
        T1 = T0.copy()
        T1[:3, 3] += [0.05, -0.1, 0.08]
        T_world_base = T_of(MOUNT)
        bad = [path_message([], 'world'), path_message([T1], 'nowhere'),
               path_message([transform(rpy_to_matrix(0.0, 0.0, 0.0),
                                       np.array([math.nan, 0.0, 0.0]))], 'world')]
        zero = path_message([T1], 'world')
        orientation = zero.poses[0].pose.orientation
        orientation.x = orientation.y = orientation.z = orientation.w = 0.0
        for message in bad + [zero]:
            result, _ = follow(peer, message)
            assert result.error_code in (FollowPath.Result.INVALID_PATH,
                                         FollowPath.Result.FRAME_ERROR), result.message
        result, _ = follow(peer, path_message([T_world_base @ T0, T_world_base @ T1], 'world'))
        assert result.error_code == FollowPath.Result.SUCCEEDED, result.message
        loop.wait_for(lambda: at(loop, T1), TIMEOUT)
        assert off_path(loop, [T0, T1]) <= 1e-3
        output = loop.processes[1].output()
        for warning in ('no waypoints', 'not finite', 'zero quaternion', '"nowhere"'):
            assert warning in output
        loop.check_stream(home)
    finally:
        loop.close()


def test_a_flood_of_waypoints_is_refused_while_a_path_runs(peer, processes, tmp_path):
    """
    Check 100k waypoints on ~/target_path are refused (a warning) and the square goes on.

    The refusal stands on /diagnostics (ERROR, before what the arm does) until a newer input.
    """
    loop = bundled_loop(peer, processes, tmp_path, 'ur5')
    try:
        home = np.array(BUNDLED_ARMS['ur5'].home)
        corners = square(loop.kinematics.tip_pose(home), 0.1)
        publisher = peer.node.create_publisher(Path, '/ros_ik/target_path', TARGET_QOS)
        assert peer.spin_until(lambda: publisher.get_subscription_count() > 0, TIMEOUT)
        publisher.publish(path_message(corners, loop.chain.base_link))
        loop.wait_for(lambda: loop.status is not None
                      and loop.status.message.startswith('following'), TIMEOUT)
        flood = Path()
        flood.header.frame_id = loop.chain.base_link
        flood.poses = [PoseStamped(pose=pose_message(corners[0]))] * 100000
        publisher.publish(flood)
        loop.wait_for(lambda: 'path ignored: 100000 waypoints' in loop.processes[1].output(),
                      TIMEOUT)
        refused = 'newest input refused: path ignored: 100000 waypoints'
        loop.wait_for(lambda: loop.status.message.startswith(refused)
                      and loop.status.message.endswith('; path done')
                      and at(loop, corners[-1]), TIMEOUT)
        assert loop.status.level == DiagnosticStatus.ERROR
        assert off_path(loop, corners) <= 1e-3
        loop.check_stream(home)
    finally:
        loop.close()
