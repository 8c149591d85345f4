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
Input topics the control cycle reads itself, instead of one executor callback per message.

A driver publishes joint_states at 500 Hz-1 kHz and a script may flood targets; the
control loop uses the newest of each once per cycle. An executor runs a Python callback
for every message (about 100 us each in rclpy, 10 % of a core at 1 kHz), so these
subscriptions belong to an inner node that no executor spins: DDS keeps what arrives in
each subscription's history (its QoS depth), and the cycle takes it with
``Subscription.handle.take_message`` (as ``rclpy.wait_for_message`` does), serialized.

The inner node is hidden (``_<node>_inputs``, a leading underscore, in the node's
namespace) and takes no command-line arguments: every topic name is resolved by the node
itself first (its namespace, ``~`` as its name, its remappings), so it subscribes exactly
what the node's own subscription would have.

A message's receive time is the middleware's reception stamp (system clock, ns), turned
into the node's clock as ``now - (wall clock now - received)``; a middleware without one
gives ``now``.
"""

import time
from typing import List, Tuple, Type

from rclpy.node import Node
from rclpy.qos import QoSProfile


def _never_called(_: bytes) -> None:
    """Stand in for a callback: no executor spins the inner node."""


def _receive_time(received_ns: int, now: float, wall_ns: int) -> float:
    """Return the reception stamp ``received_ns`` (system clock) on the node's clock (s)."""
    if not received_ns:
        return now
    return now - max(wall_ns - received_ns, 0) * 1e-9


class PolledTopic:
    """One subscription whose messages the caller takes, serialized, when it wants them."""

    def __init__(self, subscription, depth: int) -> None:
        """Wrap ``subscription`` (raw) with a history of ``depth`` messages."""
        self._subscription = subscription
        self._depth = depth

    def take(self, now: float) -> List[Tuple[bytes, float]]:
        """
        Return every message waiting (serialized), oldest first, with its receive time.

        ``now``: the node's clock (s); receive times are on that clock. At most the
        history depth (what DDS keeps), so a publisher faster than the take cannot hold
        the caller here.
        """
        subscription = self._subscription
        handle, message_type = subscription.handle, subscription.msg_type
        taken = []
        with handle:
            for _ in range(self._depth):
                message_and_info = handle.take_message(message_type, True)
                if message_and_info is None:
                    break
                taken.append(message_and_info)
        wall_ns = time.time_ns()
        return [(data, _receive_time(info.get('received_timestamp', 0), now, wall_ns))
                for data, info in taken]


class PolledInputs:
    """The hidden inner node that holds a node's polled subscriptions."""

    def __init__(self, node: Node) -> None:
        """Create the inner node beside ``node`` (same context and namespace)."""
        self._node = node
        self._reader = Node(f'_{node.get_name()}_inputs', namespace=node.get_namespace(),
                            context=node.context, use_global_arguments=False,
                            enable_rosout=False, start_parameter_services=False)

    def subscribe(self, message_type: Type, topic: str, qos: QoSProfile) -> PolledTopic:
        """Subscribe ``topic`` (as ``node`` resolves it) with ``qos``; return it to poll."""
        name = self._node.resolve_topic_name(topic)
        subscription = self._reader.create_subscription(message_type, name, _never_called,
                                                        qos, raw=True)
        return PolledTopic(subscription, qos.depth)

    def destroy(self) -> None:
        """Destroy the inner node and its subscriptions."""
        self._reader.destroy_node()
