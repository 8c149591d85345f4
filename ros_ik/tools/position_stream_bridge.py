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
A position stream that bridges stalls of the IK node: JointTrajectory in, positions out.

For an arm whose driver takes a stream of positions (``sensor_msgs/JointState`` or
``std_msgs/Float64MultiArray``, e.g. ros2_control's forward_command_controller) rather than
JointTrajectory. A position stream published by the IK node itself stops when its process
stalls (a loaded computer, a page fault, a debugger): the driver holds the last position,
the arm stops dead from speed, and a strict controller faults. This node runs beside it,
in a process of its own: the IK node sends its JointTrajectory horizons (``command_type:
joint_trajectory``: each holds the commands ahead of the clock and then the hardest stop)
to ``joint_trajectory``; every ``1 / rate`` s this node samples them as
joint_trajectory_controller with its default parameters does
(:mod:`ros_ik.node.jtc_emulation`: the newest accepted message replaces the older at the
next update, splines between its points, the last point held) and publishes the setpoint:
``joint_commands`` (JointState: positions and velocities, stamped with the time they are
for, joints as in the messages) or ``commands`` (Float64MultiArray: positions in the
messages' joint order), per ``command_type``. When the IK node stalls, the stream follows
the last horizon into its stop; the IK node resumes from that same horizon at the clock,
so the stream stays continuous in position, velocity and acceleration. Its own stalls
skip along the spline (every sample is on it at its time stamp).

Before the first accepted message it publishes nothing. A rejected message is logged (as
JTC logs it) and leaves the active one running.
"""

import sys
from typing import List, Optional

from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.node.jtc_emulation import JointTrajectoryControllerEmulation
from ros_ik.node.run import run_node
from ros_ik.node.throttled_log import KeyedThrottle
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

# Both directions reliable, a few messages deep: a lost horizon or command is a gap.
QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
OUTPUT_TYPES = {'joint_state': JointState, 'float64_multi_array': Float64MultiArray}
WARN_PERIOD = 2.0  # s between log lines of one kind


class PositionStreamBridge(Node):
    """Sample the IK node's JointTrajectory horizons at ``rate``; publish the positions."""

    def __init__(self, **kwargs) -> None:
        """Declare the parameters, subscribe the horizons, start the stream's timer."""
        super().__init__('position_stream_bridge', **kwargs)
        output = self.declare_parameter('command_type', 'joint_state', ParameterDescriptor(
            description='message of the stream: ' + ', '.join(OUTPUT_TYPES),
            read_only=True)).value
        if output not in OUTPUT_TYPES:
            raise ValueError(f'command_type must be one of {", ".join(OUTPUT_TYPES)}, '
                             f'not {output!r}')
        rate = self.declare_parameter('rate', 500.0, ParameterDescriptor(
            description="samples per second of the stream [Hz] (the driver's rate)",
            floating_point_range=[FloatingPointRange(from_value=1.0, to_value=10000.0)],
            read_only=True)).value
        self._output = output
        self._epoch_ns = self.get_clock().now().nanoseconds
        self._controller: Optional[JointTrajectoryControllerEmulation] = None
        self._warn = KeyedThrottle(self.get_logger().warning, WARN_PERIOD)
        self.create_timer(0.5, self._warn.flush)  # the newest held warning once it is due
        self._publisher = self.create_publisher(OUTPUT_TYPES[output], COMMAND_TOPICS[output],
                                                QOS)
        self.create_subscription(JointTrajectory, COMMAND_TOPICS['joint_trajectory'],
                                 self._on_trajectory, QOS)
        self.create_timer(1.0 / rate, self._publish_setpoint)
        self.get_logger().info(f'streaming {COMMAND_TOPICS[output]} ({output}) at {rate:g} Hz '
                               f'from {COMMAND_TOPICS["joint_trajectory"]}')

    def _now(self) -> float:
        """Return the time (s since the node started) on the clock of the stamps."""
        return (self.get_clock().now().nanoseconds - self._epoch_ns) * 1e-9

    def _on_trajectory(self, message: JointTrajectory) -> None:
        """Hand a horizon to the controller; the first one sets the joints and the start."""
        if self._controller is None:
            if not message.joint_names or not message.points:
                self._warn('first', 'a trajectory without joints or points; waiting for one '
                                    'to start from')
                return
            self._controller = JointTrajectoryControllerEmulation(
                list(message.joint_names), list(message.points[0].positions), self._epoch_ns)
        reason = self._controller.receive(message, self._now())
        if reason:
            self._warn('rejected', f'rejected trajectory: {reason}')

    def _publish_setpoint(self) -> None:
        """Run one controller update now; publish its setpoint."""
        if self._controller is None:
            return
        now_ns = self.get_clock().now().nanoseconds
        setpoint = self._controller.update((now_ns - self._epoch_ns) * 1e-9)
        positions: List[float] = [float(value) for value in setpoint.position]
        if self._output == 'float64_multi_array':
            self._publisher.publish(Float64MultiArray(data=positions))
            return
        message = JointState(name=self._controller.joint_names, position=positions,
                             velocity=[float(value) for value in setpoint.velocity])
        message.header.stamp.sec, message.header.stamp.nanosec = divmod(now_ns, 10 ** 9)
        self._publisher.publish(message)


def main(args: Optional[List[str]] = None) -> int:
    """Run the bridge; return 1 on a bad parameter."""
    return run_node(PositionStreamBridge, 'position_stream_bridge', (ValueError,), args)


if __name__ == '__main__':
    sys.exit(main())
