"""
A kinematic stand-in for ros2_control's mock hardware: commands in, joint_states out.

Reads the same URDF as the IK node (parameter ``robot_description`` or
``robot_description_file``, chain ``base_link`` -> ``tip_link``), accepts the three command
types the IK node can send (``joint_commands``: JointState, ``joint_trajectory``: the last
point of a JointTrajectory, ``commands``: Float64MultiArray in chain order) and, at
``rate`` Hz, moves every joint toward its commanded position by at most
``velocity_limit * dt`` (within the position limits), publishing ``joint_states`` with
positions and velocities. Topic names are relative: remap them to the controller topics
the IK node publishes.
"""

import sys
from typing import List, Optional

import numpy as np
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.node.chain_parameters import declare_and_load_chain
from ros_ik.node.messages import COMMAND_MESSAGES
from ros_ik.node.run import run_node
from ros_ik.node.throttled_log import KeyedThrottle
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
STATE_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)


class SimArm(Node):
    """Integrate commanded positions under velocity limits and publish joint_states."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters, load the chain and start the integration timer."""
        super().__init__('sim_arm', **kwargs)
        self.chain = declare_and_load_chain(self)
        self.declare_parameter('initial_positions', [0.0], ParameterDescriptor(
            description='initial joint positions in chain order (one value: all joints); '
                        'clipped into the limits', read_only=True))
        self.declare_parameter('rate', 100.0, ParameterDescriptor(
            description='integration and joint_states rate [Hz]', read_only=True,
            floating_point_range=[FloatingPointRange(from_value=1.0, to_value=2000.0)]))
        self._warn = KeyedThrottle(self.get_logger().warning, 2.0)
        initial = np.array(self.get_parameter('initial_positions').value, dtype=float)
        if initial.size == 1:
            initial = np.full(self.chain.n_joints, initial[0])
        if initial.size != self.chain.n_joints:
            raise ValueError(f'initial_positions has {initial.size} values, the chain has '
                             f'{self.chain.n_joints} joints')
        self.q = np.clip(initial, self.chain.lower, self.chain.upper)
        self.q_command = self.q.copy()
        self.velocity = np.zeros(self.chain.n_joints)
        self._index = {name: index for index, name in enumerate(self.chain.joint_names)}
        self._dt = 1.0 / self.get_parameter('rate').value
        self._publisher = self.create_publisher(JointState, 'joint_states', STATE_QOS)
        for command_type, callback in (('joint_state', self._on_joint_state),
                                       ('joint_trajectory', self._on_trajectory),
                                       ('float64_multi_array', self._on_array)):
            self.create_subscription(COMMAND_MESSAGES[command_type],
                                     COMMAND_TOPICS[command_type], callback, COMMAND_QOS)
        self.create_timer(self._dt, self._step)
        self.get_logger().info(f'simulating {", ".join(self.chain.joint_names)}')

    def _command_by_name(self, names: List[str], positions: List[float]) -> None:
        """Set commanded positions of the named chain joints (others are ignored)."""
        if len(names) != len(positions):
            self._warn('lengths', f'command has {len(names)} names but {len(positions)} '
                                  'positions; ignored')
            return
        values = np.array(positions, dtype=float)
        if not np.all(np.isfinite(values)):
            self._warn('finite', 'command has non-finite positions; ignored')
            return
        for name, value in zip(names, values):
            if name in self._index:
                self.q_command[self._index[name]] = value

    def _on_joint_state(self, message: JointState) -> None:
        """Accept a JointState command."""
        self._command_by_name(list(message.name), list(message.position))

    def _on_trajectory(self, message: JointTrajectory) -> None:
        """Accept the last point of a JointTrajectory."""
        if message.points:
            self._command_by_name(list(message.joint_names),
                                  list(message.points[-1].positions))

    def _on_array(self, message: Float64MultiArray) -> None:
        """Accept positions in chain order."""
        if len(message.data) != self.chain.n_joints:
            self._warn('array', f'commands has {len(message.data)} values, the chain '
                                f'has {self.chain.n_joints} joints; ignored')
            return
        self._command_by_name(list(self.chain.joint_names), list(message.data))

    def _step(self) -> None:
        """Move toward the command within velocity and position limits; publish."""
        target = np.clip(self.q_command, self.chain.lower, self.chain.upper)
        max_step = self.chain.velocity_limits * self._dt
        step = np.clip(target - self.q, -max_step, max_step)
        self.q = self.q + step
        self.velocity = step / self._dt
        message = JointState()
        message.header.stamp = self.get_clock().now().to_msg()
        message.name = list(self.chain.joint_names)
        message.position = [float(v) for v in self.q]
        message.velocity = [float(v) for v in self.velocity]
        self._publisher.publish(message)


def main(args: Optional[List[str]] = None) -> int:
    """Run the simulated arm; return 1 on a bad URDF or parameters."""
    return run_node(SimArm, 'sim_arm', (UrdfError, ValueError), args)


if __name__ == '__main__':
    sys.exit(main())
