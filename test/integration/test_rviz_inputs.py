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
Every RViz input path, sent as RViz sends it, moves the simulated arm where intended.

2D Goal Pose (PoseStamped, z = 0, yaw only, on /goal_pose), Publish Point (PointStamped on
/clicked_point) and the 6-DOF drag target (interactive-marker feedback, as RViz's
InteractiveMarkers display sends it). The drag-target test needs the interactive_markers
package (ROS 2 installs ship it) and skips without it.
"""

from geometry_msgs.msg import Point, PointStamped, PoseStamped
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.control.goal_modes import heading
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, load_bundled_chain)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import axis_angle_matrix, pose_error, transform
from ros_ik.node.messages import pose_message
from ros_ik.tools.node_processes import NodeProcess, ProcessGroup, RosPeer
from ros_ik_testing.stall_faults import stall_fault_reason
from sensor_msgs.msg import JointState
from std_msgs.msg import UInt32

ARM = BUNDLED_ARMS['ur5']
RELIABLE = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
Z = np.array([0.0, 0.0, 1.0])


class SimulatedSetup:
    """Strict sim_arm + ik_node (+ optional drag target) with RViz's topic remappings."""

    def __init__(self, processes: ProcessGroup, tmp_path, ik_parameters: dict,
                 with_marker: bool = False) -> None:
        """Start the processes and a peer that records joint states and the arm's faults."""
        urdf = bundled_urdf_path('ur5')
        limits = bundled_joint_limits_path('ur5')
        home = '[' + ', '.join(str(v) for v in ARM.home) + ']'
        self.processes = [
            processes.start('sim_arm', {'robot_description_file': urdf,
                                        'initial_positions': home,
                                        'joint_limits_file': limits, 'strict': True},
                            str(tmp_path / 'sim.log'),
                            ['-r', 'joint_commands:=/ros_ik/joint_commands']),
            processes.start('ik_node', {'robot_description_file': urdf,
                                        'joint_limits_file': limits, **ik_parameters},
                            str(tmp_path / 'ik.log'),
                            ['-r', '~/planar_goal:=/goal_pose',
                             '-r', '~/target_point:=/clicked_point'])]
        if with_marker:
            self.processes.append(processes.start(
                'target_marker', {'robot_description_file': urdf},
                str(tmp_path / 'marker.log'), ['-r', 'target_pose:=/ros_ik/target_pose']))
        self.peer = RosPeer()
        self.kinematics = ChainKinematics(load_bundled_chain('ur5'))
        self.states = []
        self.peer.node.create_subscription(JointState, 'joint_states', self.states.append, 10)
        self.faults = []
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.peer.node.create_subscription(UInt32, '/sim_arm/faults', self.faults.append,
                                           latched)
        assert self.peer.spin_until(lambda: self.states and self.faults, 20.0)
        self.T_start = self.tool()

    def tool(self) -> np.ndarray:
        """Return the simulated arm's current tool pose."""
        return self.kinematics.tip_pose(np.array(self.states[-1].position))

    def publish(self, message_type, topic: str, message) -> None:
        """Publish once the IK node (or marker server) listens."""
        publisher = self.peer.node.create_publisher(message_type, topic, RELIABLE)
        assert self.peer.spin_until(lambda: publisher.get_subscription_count() > 0, 20.0)
        publisher.publish(message)

    def wait_for(self, condition, timeout: float = 30.0) -> bool:
        """Spin until ``condition()`` holds."""
        return self.peer.spin_until(condition, timeout)

    def close(self) -> None:
        """
        Check the strict arm never faulted, then stop everything.

        Where each fault followed a stall of the node (a busy machine stopped the arm dead on
        the held command), the test is skipped, saying so.
        """
        fault_count = self.faults[-1].data
        stall_reason = stall_fault_reason(self.processes[1].output(),
                                          self.processes[0].output())
        self.peer.close()
        for process in self.processes:
            process.stop()
        if fault_count and stall_reason:
            pytest.skip(stall_reason)
        assert fault_count == 0, 'the strict simulated arm faulted'


@pytest.fixture
def start_setup(ros_domain_id, processes, tmp_path):
    """Yield a factory of SimulatedSetup; everything is stopped afterwards."""
    setups = []

    def start(ik_parameters=None, with_marker=False) -> SimulatedSetup:
        setups.append(SimulatedSetup(processes, tmp_path, ik_parameters or {}, with_marker))
        return setups[-1]
    yield start
    for setup in setups:
        setup.close()


def rviz_goal(x: float, y: float, yaw: float) -> PoseStamped:
    """Return a PoseStamped as RViz's 2D Goal Pose sends it (z = 0, yaw only)."""
    message = PoseStamped(pose=pose_message(transform(axis_angle_matrix(Z, yaw),
                                                      np.array([x, y, 0.0]))))
    message.header.frame_id = ARM.base_link
    return message


def test_planar_goal_moves_in_the_plane_keeping_tool_height(start_setup):
    """Check move_in_plane: x, y and heading from the click, height and tilt kept."""
    setup = start_setup()
    x, y, _ = setup.T_start[:3, 3]
    goal_x = 0.9 * (np.cos(0.4) * x - np.sin(0.4) * y)
    goal_y = 0.9 * (np.sin(0.4) * x + np.cos(0.4) * y)
    goal_yaw = heading(setup.T_start[:3, :3]) + 0.4
    setup.publish(PoseStamped, '/goal_pose', rviz_goal(goal_x, goal_y, goal_yaw))

    def arrived() -> bool:
        tool = setup.tool()
        return (np.hypot(tool[0, 3] - goal_x, tool[1, 3] - goal_y) < 1e-3
                and np.cos(heading(tool[:3, :3]) - goal_yaw) > 1.0 - 1e-5)
    assert setup.wait_for(arrived)
    tool = setup.tool()
    assert tool[2, 3] == pytest.approx(setup.T_start[2, 3], abs=1e-3)
    np.testing.assert_allclose(tool[2, :3], setup.T_start[2, :3], atol=1e-2)  # tilt kept


def test_planar_goal_as_given_is_used_as_the_pose(start_setup):
    """Check as_given: a full pose arriving on /goal_pose is reached as it is."""
    setup = start_setup({'planar_goal_mode': 'as_given'})
    q_goal = np.array(ARM.home) + np.array([0.3, 0.2, -0.2, 0.1, 0.2, 0.3])
    T_goal = setup.kinematics.tip_pose(q_goal)
    message = PoseStamped(pose=pose_message(T_goal))
    message.header.frame_id = ARM.base_link
    setup.publish(PoseStamped, '/goal_pose', message)

    def error() -> float:
        e_p, e_o = pose_error(T_goal, setup.tool())
        return max(np.linalg.norm(e_p), 0.1 * np.linalg.norm(e_o))
    assert setup.wait_for(lambda: error() < 1e-3)


@pytest.mark.parametrize('orientation', ['free', 'hold'])
def test_clicked_point_is_a_position_goal(start_setup, orientation):
    """Check Publish Point: the tool reaches the point; 'hold' keeps its orientation."""
    setup = start_setup({'point_orientation': orientation})
    point = setup.T_start[:3, 3] + np.array([0.05, -0.08, 0.06])
    message = PointStamped(point=Point(x=point[0], y=point[1], z=point[2]))
    message.header.frame_id = ARM.base_link
    setup.publish(PointStamped, '/clicked_point', message)
    assert setup.wait_for(lambda: np.linalg.norm(setup.tool()[:3, 3] - point) < 1e-3)
    if orientation == 'hold':
        _, e_o = pose_error(setup.T_start, setup.tool())
        assert np.linalg.norm(e_o) < 1e-2


def test_drag_target_follows_feedback_and_snaps_to_tool(start_setup):
    """Check the interactive marker: placed at the tool, drags move the arm, snap holds."""
    pytest.importorskip('interactive_markers',
                        reason='interactive_markers is not installed (ROS 2 installs ship it)')
    from visualization_msgs.msg import InteractiveMarkerFeedback
    from visualization_msgs.srv import GetInteractiveMarkers
    setup = start_setup(with_marker=True)
    targets = []
    setup.peer.node.create_subscription(PoseStamped, '/ros_ik/target_pose', targets.append,
                                        10)
    feedback_publisher = setup.peer.node.create_publisher(
        InteractiveMarkerFeedback, '/ik_target_marker/feedback', 10)
    assert setup.wait_for(lambda: feedback_publisher.get_subscription_count() > 0)

    # Like RViz, fetch the server's markers through its service once it has placed them.
    client = setup.peer.node.create_client(GetInteractiveMarkers,
                                           '/ik_target_marker/get_interactive_markers')
    assert client.wait_for_service(timeout_sec=20.0)

    def placed_markers():
        future = client.call_async(GetInteractiveMarkers.Request())
        assert setup.wait_for(future.done, 10.0)
        return [marker for marker in future.result().markers if marker.name == 'ik_target']
    assert setup.wait_for(lambda: placed_markers(), 20.0)
    placed = placed_markers()[0].pose.position
    np.testing.assert_allclose([placed.x, placed.y, placed.z], setup.T_start[:3, 3],
                               atol=1e-3)  # placed at the tool
    T_goal = setup.T_start.copy()
    T_goal[:3, 3] += [0.05, 0.04, -0.05]
    drag = InteractiveMarkerFeedback(client_id='/rviz/InteractiveMarkers',
                                     marker_name='ik_target', control_name='move_x',
                                     event_type=InteractiveMarkerFeedback.POSE_UPDATE,
                                     pose=pose_message(T_goal))
    drag.header.frame_id = ARM.base_link

    def dragged() -> bool:
        # RViz streams POSE_UPDATEs while the user drags; the server drops feedback from a
        # new client within 1 s of the marker's last change, so keep sending like RViz.
        feedback_publisher.publish(drag)
        setup.peer.spin_for(0.1)
        return any(abs(target.pose.position.x - T_goal[0, 3]) < 1e-9 for target in targets)
    assert setup.wait_for(dragged, 10.0)

    def error() -> float:
        e_p, e_o = pose_error(T_goal, setup.tool())
        return max(np.linalg.norm(e_p), 0.1 * np.linalg.norm(e_o))
    assert setup.wait_for(lambda: error() < 1e-3)
    targets.clear()
    snap = InteractiveMarkerFeedback(client_id='/rviz/InteractiveMarkers',
                                     marker_name='ik_target', menu_entry_id=1,
                                     event_type=InteractiveMarkerFeedback.MENU_SELECT)
    snap.header.frame_id = ARM.base_link
    feedback_publisher.publish(snap)
    assert setup.wait_for(lambda: targets, 10.0)
    snapped = targets[-1].pose.position
    np.testing.assert_allclose([snapped.x, snapped.y, snapped.z], setup.tool()[:3, 3],
                               atol=2e-3)


def test_drag_target_without_interactive_markers_says_so(ros_domain_id, tmp_path):
    """Where interactive_markers is missing, target_marker explains and exits 1."""
    try:
        import interactive_markers  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip('interactive_markers is installed; the drag-target test covers it')
    process = NodeProcess('target_marker', {'robot_description_file': bundled_urdf_path('ur5')},
                          str(tmp_path / 'marker.log'))
    try:
        assert process.wait(timeout=20.0) == 1
        assert ('the interactive_markers Python package is not installed' in process.output())
    finally:
        process.stop()
