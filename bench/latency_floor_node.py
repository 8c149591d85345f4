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
The latency floor of ``bench_node.py``: a node with ik_node's plumbing and no IK.

It stands in for ``ik_node`` in the driver-rate rows (``bench_node.py --floor``) to show
what the machine and the middleware cost by themselves: the node ``ros_ik`` with the same
topics, QoS, executor (:func:`ros_ik.node.run.create_executor`), joint_states polled once
per cycle (taken, not read) and commands as ik_node's pre-serialized JointState bytes, at
``update_rate`` (Hz). A target is answered at once, from its callback, with a command
whose joint-1 velocity (rad/s) points to the target's side, the sign of its y (m, base
frame): the bench's two targets turn joint 1 by +-0.3 rad from the Panda's home pose,
whose tool lies in the base's x-z plane. The commands keep that velocity for
``MOVING_SECONDS``, then come to rest; positions stay at the home pose.

What the bench measures with it is the time from publishing a target to receiving a
command that a node spends in DDS, the executor, its wake-ups and one publish: ik_node's
latency less this floor is the cost of its input checks, control cycle and collision
checks.

Run by ``bench_node.py`` as ``python -P bench/latency_floor_node.py --ros-args -p
update_rate:=1000.0``.
"""

import sys
import time
from typing import List, Optional

from geometry_msgs.msg import PoseStamped
import numpy as np
from rclpy.node import Node
from ros_ik.control.cycle_types import Command
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, load_bundled_chain
from ros_ik.node.ik_node import COMMAND_QOS, JOINT_STATE_QOS
from ros_ik.node.input_topics import TARGET_QOS
from ros_ik.node.polled_inputs import PolledInputs
from ros_ik.node.run import run_node, timer_callback
from ros_ik.node.serialized_commands import command_serializer
from ros_ik.node.serialized_inputs import pose_target_fields
from sensor_msgs.msg import JointState

ARM = 'panda'
MOVING_SECONDS = 0.15  # s of moving commands after a target; the bench waits 0.1 s for rest
SPEED = 0.01  # rad/s on joint 1 in a moving command


class LatencyFloorNode(Node):
    """Answers a target at once; streams commands at ``update_rate`` (see the docstring)."""

    def __init__(self) -> None:
        """Create ik_node's topics (same names and QoS) and the command timer."""
        super().__init__('ros_ik')
        update_rate = self.declare_parameter('update_rate', 100.0).value
        self._epoch_ns = self.get_clock().now().nanoseconds
        joint_names = load_bundled_chain(ARM).joint_names  # in the order ik_node commands
        self._serialize = command_serializer('joint_state', joint_names, self._epoch_ns)
        self._home = np.array(BUNDLED_ARMS[ARM].home, dtype=float)
        self._moving_until, self._side = 0.0, 0.0
        self._polled = PolledInputs(self)
        self._joint_states = self._polled.subscribe(JointState, 'joint_states',
                                                    JOINT_STATE_QOS)
        self._publisher = self.create_publisher(JointState, '~/joint_commands', COMMAND_QOS)
        self.create_subscription(PoseStamped, '~/target_pose', self._on_target, TARGET_QOS,
                                 raw=True)
        self.create_timer(1.0 / update_rate, timer_callback(self._on_timer))

    def _command(self, side: float) -> bytes:
        """Return a command at the home pose, joint 1 at ``side * SPEED`` (rad/s)."""
        velocity = np.zeros(len(self._home))
        velocity[0] = side * SPEED
        now = (self.get_clock().now().nanoseconds - self._epoch_ns) * 1e-9
        return self._serialize(Command(self._home, velocity, np.zeros_like(velocity), 0.0,
                                       now, None))

    def _on_target(self, data: bytes) -> None:
        """Answer a target at once with a command toward its side."""
        _, position, _, _ = pose_target_fields(data)
        self._side = 1.0 if position[1] > 0.0 else -1.0
        self._moving_until = time.monotonic() + MOVING_SECONDS
        self._publisher.publish(self._command(self._side))

    def _on_timer(self) -> None:
        """Take the joint states waiting; publish the command of this period."""
        self._joint_states.take(0.0)
        moving = time.monotonic() < self._moving_until
        self._publisher.publish(self._command(self._side if moving else 0.0))

    def destroy_node(self) -> None:
        """Destroy the polled subscriptions' inner node, then this one."""
        self._polled.destroy()
        super().destroy_node()


def main(args: Optional[List[str]] = None) -> int:
    """Spin the node until SIGINT or SIGTERM; return the exit code."""
    return run_node(LatencyFloorNode, 'ros_ik', (), args)


if __name__ == '__main__':
    sys.exit(main())
