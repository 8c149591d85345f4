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

"""The simulated arm with the IK node, both as real processes, for every command type."""

from geometry_msgs.msg import PoseStamped
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, load_bundled_chain)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import pose_error
from ros_ik.node.messages import pose_message
from ros_ik.tools.node_processes import NodeProcess
from sensor_msgs.msg import JointState
from std_msgs.msg import UInt32
from visualization_msgs.msg import Marker, MarkerArray

COMMAND_TOPICS = {'joint_state': 'joint_commands', 'joint_trajectory': 'joint_trajectory',
                  'float64_multi_array': 'commands'}
# Float64MultiArray has no timing: the strict check uses receive times, so DDS jitter
# (milliseconds on a 10 ms period) needs room; a jump is still many times over the limit.
STRICT_TOLERANCE = {'joint_state': 0.01, 'joint_trajectory': 0.01, 'float64_multi_array': 1.0}
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


@pytest.mark.parametrize('command_type', sorted(COMMAND_TOPICS))
def test_sim_arm_follows_ik_commands_to_the_target(peer, tmp_path, command_type):
    """Check the closed loop strict sim_arm <-> ik_node reaches a Panda target, no fault."""
    arm = BUNDLED_ARMS['panda']
    chain = load_bundled_chain('panda')
    kinematics = ChainKinematics(chain)
    model = {'robot_description_file': bundled_urdf_path('panda'),
             'joint_limits_file': bundled_joint_limits_path('panda'),
             'base_link': arm.base_link, 'tip_link': arm.tip_link}
    topic = COMMAND_TOPICS[command_type]
    home = '[' + ', '.join(str(v) for v in arm.home) + ']'
    processes = [
        NodeProcess('sim_arm', {**model, 'initial_positions': home, 'strict': True,
                                'strict_tolerance': STRICT_TOLERANCE[command_type]},
                    str(tmp_path / 'sim.log'), ['-r', f'{topic}:=/ros_ik/{topic}']),
        NodeProcess('ik_node', {**model, 'command_type': command_type},
                    str(tmp_path / 'ik.log'))]
    try:
        states, markers, faults = [], [], []
        peer.node.create_subscription(JointState, 'joint_states', states.append, 10)
        peer.node.create_subscription(UInt32, '/sim_arm/faults', faults.append, LATCHED)
        peer.node.create_subscription(MarkerArray, '/ros_ik/markers', markers.append, 10)
        publisher = peer.node.create_publisher(
            PoseStamped, '/ros_ik/target_pose',
            QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE))
        goal = np.array(arm.home) + np.array([0.3, 0.2, -0.2, 0.3, 0.2, -0.2, 0.3])
        T_base_target = kinematics.tip_pose(goal)
        message = PoseStamped(pose=pose_message(T_base_target))
        message.header.frame_id = arm.base_link
        assert peer.spin_until(lambda: publisher.get_subscription_count() > 0 and states, 20.0)
        publisher.publish(message)

        def error() -> float:
            e_p, e_o = pose_error(T_base_target,
                                  kinematics.tip_pose(np.array(states[-1].position)))
            return max(np.linalg.norm(e_p), np.linalg.norm(e_o))
        assert peer.spin_until(lambda: error() < 1e-3, 30.0), error()
        speeds = np.abs(np.array([state.velocity for state in states]))
        assert np.all(speeds <= chain.velocity_limits * (1 + 1e-6))  # the simulated motors
        assert peer.spin_until(lambda: faults, 5.0) and faults[-1].data == 0

        def ik_markers():
            return [marker for marker in markers[-1].markers if marker.ns == 'ros_ik']
        assert peer.spin_until(lambda: markers and len(ik_markers()) == 2, 5.0)
        target_marker, ellipsoid = ik_markers()
        assert target_marker.type == Marker.ARROW and ellipsoid.type == Marker.SPHERE
        assert target_marker.pose.position.x == pytest.approx(T_base_target[0, 3], abs=1e-9)
        assert ellipsoid.header.frame_id == arm.base_link
    finally:
        for process in processes:
            process.stop()
