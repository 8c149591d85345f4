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
Polled subscriptions over real DDS: names as the node resolves them, order, receive times.

The node under test is an rclpy node in the test's context (the peer's), with its own
remap; messages come from the peer's publishers. No executor spins the polled inputs.
"""

from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from ros_ik.node.polled_inputs import PolledInputs
from sensor_msgs.msg import JointState
from std_msgs.msg import String

RELIABLE = QoSProfile(depth=20, reliability=ReliabilityPolicy.RELIABLE)
NEWEST = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)


def node_seconds(node: Node) -> float:
    """Return the node's clock (s)."""
    return node.get_clock().now().nanoseconds * 1e-9


def test_polled_topics_take_what_arrived_oldest_first_as_the_node_resolves_names(peer):
    """
    Check a remapped and a private topic, read with no executor: every message, in order.

    ``joint_states`` remapped for this node only (``node:from:=to``) and ``~/target`` (the
    node's private name) must be what the inner node subscribes; receive times lie between
    the publication and the take, on the node's clock.
    """
    node = Node('polling_node', namespace='/arm', context=peer.context,
                cli_args=['--ros-args', '-r', 'polling_node:joint_states:=/driver/states'])
    polled = PolledInputs(node)
    try:
        states = polled.subscribe(JointState, 'joint_states', RELIABLE)
        targets = polled.subscribe(String, '~/target', NEWEST)
        state_publisher = peer.node.create_publisher(JointState, '/driver/states', RELIABLE)
        target_publisher = peer.node.create_publisher(String, '/arm/polling_node/target',
                                                      RELIABLE)
        assert peer.spin_until(lambda: state_publisher.get_subscription_count() > 0
                               and target_publisher.get_subscription_count() > 0, 20.0)
        published_at = node_seconds(node)
        for index in range(8):
            state_publisher.publish(JointState(name=['a'], position=[float(index)]))
        for text in ('first', 'second', 'last'):
            target_publisher.publish(String(data=text))
        taken_states, taken_targets, taken_at = [], [], []

        def everything_taken() -> bool:
            now = node_seconds(node)
            taken_at.append(now)
            for data, receive_time in states.take(now):
                taken_states.append(deserialize_message(data, JointState).position[0])
                assert published_at - 1e-3 <= receive_time <= now
            taken_targets.extend(deserialize_message(data, String).data
                                 for data, _ in targets.take(now))
            return bool(taken_states and taken_states[-1] == 7.0 and taken_targets
                        and taken_targets[-1] == 'last')
        assert peer.spin_until(everything_taken, 20.0)
        assert taken_states == [float(index) for index in range(8)]
        assert taken_targets in (['last'], ['first', 'last'], ['second', 'last'],
                                 ['first', 'second', 'last'])
        assert states.take(node_seconds(node)) == []
    finally:
        polled.destroy()
        node.destroy_node()
