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

The stream starts where the arm is: it publishes nothing until a horizon whose setpoint at
the bridge's clock lies within ``start_tolerance`` of the arm's measured positions
(``joint_states``); a horizon that would start elsewhere (one heard mid-motion, the earlier
ones lost before this node and the IK node had discovered each other) is dropped with a
warning, since a driver takes a stream's first position as it comes and the arm would
jump. The IK node, seeing the arm not follow, stops and starts again from the measured
positions, and that horizon starts the stream. The same holds later: a horizon that does
not continue the stream (its setpoint now farther than ``start_tolerance`` from the
stream's: the IK node restarted from the measured positions after the arm stopped away from
its commands, e.g. on a fault) starts the stream again if it starts at the arm, and is
dropped otherwise; JTC's spline from the stream's setpoint to it would sweep the distance
within milliseconds. A rejected message is logged (as JTC logs it) and leaves the active
one running.
"""

import sys
from typing import Dict, List, Optional

import numpy as np
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.node.jtc_emulation import ActiveTrajectory, JointTrajectoryControllerEmulation
from ros_ik.node.run import run_node
from ros_ik.node.throttled_log import KeyedThrottle
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

# Both directions reliable, a few messages deep: a lost horizon or command is a gap.
QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
# As the IK node reads them: best effort takes either kind of publisher; only the newest counts.
JOINT_STATE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
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
        self._start_tolerance = self.declare_parameter(
            'start_tolerance', 0.01, ParameterDescriptor(
                description="the first horizon's setpoint now, and that of one that does "
                            "not continue the stream (a restart), may differ from the arm's "
                            'measured position by at most this, else the stream waits for '
                            'one that starts at the arm [rad or m]',
                floating_point_range=[FloatingPointRange(from_value=0.0, to_value=1.0)],
                read_only=True)).value
        self._output = output
        self._measured: Dict[str, float] = {}
        self._epoch_ns = self.get_clock().now().nanoseconds
        self._controller: Optional[JointTrajectoryControllerEmulation] = None
        self._warn = KeyedThrottle(self.get_logger().warning, WARN_PERIOD)
        self.create_timer(0.5, self._warn.flush)  # the newest held warning once it is due
        self._publisher = self.create_publisher(OUTPUT_TYPES[output], COMMAND_TOPICS[output],
                                                QOS)
        self.create_subscription(JointTrajectory, COMMAND_TOPICS['joint_trajectory'],
                                 self._on_trajectory, QOS)
        # To start the stream at the arm, and to start it again there (a restart).
        self.create_subscription(JointState, 'joint_states', self._on_joint_state,
                                 JOINT_STATE_QOS)
        self.create_timer(1.0 / rate, self._publish_setpoint)
        self.get_logger().info(f'streaming {COMMAND_TOPICS[output]} ({output}) at {rate:g} Hz '
                               f'from {COMMAND_TOPICS["joint_trajectory"]}')

    def _now(self) -> float:
        """Return the time (s since the node started) on the clock of the stamps."""
        return (self.get_clock().now().nanoseconds - self._epoch_ns) * 1e-9

    def _on_joint_state(self, message: JointState) -> None:
        """Keep the arm's newest measured position of each named joint (rad or m)."""
        if len(message.position) == len(message.name):
            self._measured.update(zip(message.name, message.position))

    def _on_trajectory(self, message: JointTrajectory) -> None:
        """
        Hand a horizon to the controller; the first one, and a restart, must start at the arm.

        A restart is a horizon that does not continue the stream (the IK node started again
        from the measured joints after the arm stopped away from its commands): it starts
        the stream again, at the arm, as the first one does, instead of being splined into
        from the stream's setpoint elsewhere (a sweep of milliseconds to the arm). Each
        horizon is validated once (a Python JTC's validation of a few hundred points was a
        quarter of this node's time, and a starved bridge is a gap in the stream).
        """
        if self._controller is not None:
            now = self._now()
            reason, trajectory = self._controller.validated(message, now)
            if reason:
                self._warn('rejected', f'rejected trajectory: {reason}')
                return
            if not self._restarts(trajectory, now):
                self._controller.accept(trajectory)
                return
        controller = self._started_controller(message)
        if controller is not None:
            self._controller = controller

    def _restarts(self, trajectory: ActiveTrajectory, now: float) -> bool:
        """
        Return whether the validated ``trajectory`` would not continue the stream at ``now``.

        True when its own setpoint now (the trajectory alone: held at its first point until
        then) is farther than ``start_tolerance`` from the stream's setpoint now.
        """
        controller = self._controller
        alone = JointTrajectoryControllerEmulation(controller.joint_names,
                                                   trajectory.positions[0], self._epoch_ns)
        alone.accept(trajectory)
        offset = np.abs(alone.update(now).position - controller.update(now).position)
        return float(offset.max()) > self._start_tolerance

    def _started_controller(self, message: JointTrajectory
                            ) -> Optional[JointTrajectoryControllerEmulation]:
        """
        Return a controller holding the arm's measured position and running ``message``.

        None (with a warning) while the measured position of a joint is missing, when JTC
        would reject the message, or when its setpoint now is farther than
        ``start_tolerance`` from the measured position ``q_m``: ``max |q_sp(now) - q_m|``.
        """
        names = list(message.joint_names)
        missing = [name for name in names if name not in self._measured]
        if not names or missing:
            self._warn('first', 'no measured position (joint_states) of '
                                f'{", ".join(missing) or "any joint (a horizon without joints)"} '
                                'yet: not starting the stream')
            return None
        measured = np.array([self._measured[name] for name in names])
        controller = JointTrajectoryControllerEmulation(names, measured, self._epoch_ns)
        now = self._now()
        reason = controller.receive(message, now)
        if reason:
            self._warn('rejected', f'rejected trajectory: {reason}')
            return None
        offset = np.abs(controller.update(now).position - measured)
        joint = int(np.argmax(offset))
        if offset[joint] > self._start_tolerance:
            self._warn('first', f'a horizon would start the stream {offset[joint]:.4g} from '
                                f'the arm on {names[joint]} (start_tolerance '
                                f'{self._start_tolerance:g}): dropped, waiting for one that '
                                'starts at the arm')
            return None
        self.get_logger().info("the stream starts at the arm's measured position")
        return controller

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
