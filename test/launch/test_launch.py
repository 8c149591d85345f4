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
launch_pytest tests of the shipped launch files (ik.launch.py, demo.launch.py).

They need launch_pytest and launch_ros (a ROS 2 install has both; PyPI does not) and the
installed ros_ik package in the ament index (``colcon build`` then ``colcon test``), and
skip with the reason otherwise.
"""

import os

from ament_index_python.packages import get_package_share_directory
from geometry_msgs.msg import PoseStamped
import numpy as np
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import pose_error
from ros_ik.node.messages import pose_message
from ros_ik.tools.node_processes import RosPeer
from sensor_msgs.msg import JointState

launch_pytest = pytest.importorskip('launch_pytest', reason='launch_pytest is not installed '
                                    '(it ships with ROS 2, not on PyPI)')
pytest.importorskip('launch_ros', reason='launch_ros is not installed (it ships with ROS 2)')

from launch import LaunchDescription, LaunchService  # noqa: E402, I100
from launch.actions import IncludeLaunchDescription  # noqa: E402, I100
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402

try:
    SHARE = get_package_share_directory('ros_ik')
except (LookupError, OSError, ValueError) as error:
    pytest.skip(f'ros_ik is not installed in the ament index ({error}); build it with colcon',
                allow_module_level=True)

ARM = 'panda'
# s for ik_node to subscribe its target: the first start of a fresh install compiles the
# kernels (a minute or more on a busy 2-core machine; later starts load them in seconds).
STARTUP_TIMEOUT = 300.0


def include(launch_file: str, **arguments) -> IncludeLaunchDescription:
    """Include a shipped launch file from the installed share directory."""
    return IncludeLaunchDescription(
        PythonLaunchDescriptionSource(os.path.join(SHARE, 'launch', launch_file)),
        launch_arguments={key: str(value) for key, value in arguments.items()}.items())


def drive_to_target(target_topic: str, state_topic: str = 'joint_states',
                    echo_commands: bool = False) -> None:
    """Publish a target and check the arm's joint states reach it (within 1 mm / 10 mrad)."""
    arm = BUNDLED_ARMS[ARM]
    chain = load_bundled_chain(ARM)
    kinematics = ChainKinematics(chain)
    peer = RosPeer('launch_test_peer')
    try:
        states = []
        peer.node.create_subscription(JointState, state_topic, states.append, 10)
        if echo_commands:
            publisher = peer.node.create_publisher(JointState, 'joint_states', 10)
            q = {'now': list(arm.home)}

            def echo(message: JointState) -> None:
                q['now'] = list(message.position)
            peer.node.create_subscription(JointState, '/ros_ik/joint_commands', echo, 10)
            peer.node.create_timer(0.01, lambda: publisher.publish(
                JointState(name=list(chain.joint_names), position=q['now'])))
        targets = peer.node.create_publisher(PoseStamped, target_topic, QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE))
        T_base_target = kinematics.tip_pose(np.array(arm.home) + 0.2)
        message = PoseStamped(pose=pose_message(T_base_target))
        message.header.frame_id = arm.base_link
        assert peer.spin_until(lambda: targets.get_subscription_count() > 0, STARTUP_TIMEOUT)
        targets.publish(message)

        def error() -> float:
            if not states or len(states[-1].position) != chain.n_joints:
                return np.inf
            e_p, e_o = pose_error(T_base_target,
                                  kinematics.tip_pose(np.array(states[-1].position)))
            return max(np.linalg.norm(e_p), 0.1 * np.linalg.norm(e_o))
        assert peer.spin_until(lambda: error() < 1e-3, 40.0), error()
        topics = {name for name, _ in peer.node.get_topic_names_and_types()}
        assert {'/ros_ik/manipulability', '/ros_ik/markers', '/diagnostics'} <= topics
    finally:
        peer.close()


@launch_pytest.fixture
def ik_launch():
    """Launch ik.launch.py for the Panda-class arm with its target topic remapped."""
    return LaunchDescription([include('ik.launch.py', arm=ARM, target_topic='/ik_target',
                                      command_type='joint_state'),
                              launch_pytest.actions.ReadyToTest()])


@pytest.mark.launch(fixture=ik_launch)
def test_ik_launch_starts_the_node_and_reaches_a_target():
    """Check ik.launch.py: the node's topics appear and a remapped target is reached."""
    drive_to_target('/ik_target', echo_commands=True)


@launch_pytest.fixture
def demo_launch():
    """Launch demo.launch.py headless: simulated arm and IK node, no RViz or TF."""
    return LaunchDescription([include('demo.launch.py', arm=ARM, use_rviz='false',
                                      use_rsp='false'),
                              launch_pytest.actions.ReadyToTest()])


@pytest.mark.launch(fixture=demo_launch)
def test_demo_launch_moves_the_simulated_arm_to_a_goal_pose():
    """Check demo.launch.py: the simulated arm follows the IK node to a target."""
    drive_to_target('/ros_ik/target_pose')


def test_bad_urdf_argument_ends_the_launch_non_zero(tmp_path):
    """Check that a malformed URDF ends ik.launch.py with a non-zero exit code."""
    urdf = tmp_path / 'broken.urdf'
    urdf.write_text('<robot name="broken"><link name="a"/')
    service = LaunchService()
    service.include_launch_description(include('ik.launch.py', urdf_file=str(urdf),
                                               base_link='a', tip_link='b'))
    assert service.run() != 0
