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
A strict physics arm driven by ik_node, and stalls of ik_node's process (SIGSTOP, SIGCONT).

``physics_arm`` (MuJoCo, strict: it faults on a command or setpoint beyond its velocity or
acceleration limits, or a tracking error over 0.05 rad) takes one command type, from
``ik_node`` (servo mode) directly or through ``position_stream_bridge`` (ik_node then sends
JointTrajectory horizons to the bridge, a process of its own). A trial sends a target and
stops ik_node's process for a while, once the arm moves or once it has reached the target;
it counts the arm's faults (its latched ``~/faults``) and whether the target was reached.
"""

import os
import signal
import time
from typing import List

from geometry_msgs.msg import PoseStamped
import numpy as np
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, gains_beside,
                                            load_bundled_chain, srdf_beside)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.tools.node_processes import ProcessGroup, RosPeer
from ros_ik_testing.pose_targets import PoseTargets
from sensor_msgs.msg import JointState
from std_msgs.msg import UInt32

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
STARTUP_TIMEOUT = 300.0  # s: a first start after a change compiles the kernels
REACH_TIMEOUT = 15.0  # s for a target to be reached
MOVING_SPEED = 0.3  # a joint over this part of its velocity limit: the arm moves


class StallRun(PoseTargets):
    """physics_arm and ik_node (and the bridge) for one command type; stalls of ik_node."""

    def __init__(self, arm: str, command_type: str, bridged: bool, logs: str,
                 processes: ProcessGroup, peer: RosPeer) -> None:
        """
        Start the processes (owned by ``processes``); wait for joint states and the node.

        ``command_type``: what the arm takes; ``bridged``: through the bridge (ik_node then
        sends JointTrajectory to it). ``logs``: the folder of the processes' logs.
        """
        spec = BUNDLED_ARMS[arm]
        model = {'robot_description_file': bundled_urdf_path(arm),
                 'joint_limits_file': bundled_joint_limits_path(arm),
                 'base_link': spec.base_link, 'tip_link': spec.tip_link}
        self.kinematics = ChainKinematics(load_bundled_chain(arm))
        self.base_link, self.home = spec.base_link, np.array(spec.home)
        topic = COMMAND_TOPICS[command_type]
        physics = {**model, 'initial_positions': '[' + ', '.join(
            repr(float(v)) for v in spec.home) + ']', 'strict': True}
        if os.path.isfile(gains_beside(bundled_urdf_path(arm))):
            physics['gains_file'] = gains_beside(bundled_urdf_path(arm))
        if os.path.isfile(srdf_beside(bundled_urdf_path(arm))):
            physics['robot_description_semantic_file'] = srdf_beside(bundled_urdf_path(arm))
        self.processes = processes
        self.processes.start('physics_arm', physics, os.path.join(logs, 'physics_arm.log'),
                             ['-r', f'{topic}:=/arm/{topic}'])
        node_type = 'joint_trajectory' if bridged else command_type
        node_topic = COMMAND_TOPICS[node_type]
        if bridged:
            self.processes.start('position_stream_bridge', {'command_type': command_type},
                                 os.path.join(logs, 'bridge.log'),
                                 ['-r', f'{node_topic}:=/ros_ik/{node_topic}',
                                  '-r', f'{topic}:=/arm/{topic}'])
        output = f'/ros_ik/{node_topic}' if bridged else f'/arm/{topic}'
        self.ik = self.processes.start(
            'ik_node', {**model, 'mode': 'servo', 'command_type': node_type},
            os.path.join(logs, 'ik_node.log'), ['-r', f'~/{node_topic}:={output}'])
        self.peer = peer
        self.states: List[JointState] = []
        self.faults = [0]
        node = self.peer.node
        node.create_subscription(JointState, 'joint_states', self.states.append, 10)
        node.create_subscription(UInt32, '/physics_arm/faults',
                                 lambda message: self.faults.append(message.data), LATCHED)
        self.targets = node.create_publisher(PoseStamped, '/ros_ik/target_pose', QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE))
        if not self.peer.spin_until(lambda: self.states and
                                    self.targets.get_subscription_count() > 0, STARTUP_TIMEOUT):
            raise RuntimeError(f'the processes did not come up; logs in {logs}')
        self.limits = self.kinematics.chain.velocity_limits
        offset = np.array([0.5, -0.3, 0.4, -0.3, 0.5, 0.4, -0.3])[:len(self.home)]
        # Two targets to move between: home's tool pose and one a few tenths of a rad away.
        self.poses = [self.kinematics.tip_pose(self.home),
                      self.kinematics.tip_pose(self.home + offset)]

    def moving(self) -> bool:
        """Return whether a joint moves at over ``MOVING_SPEED`` of its limit."""
        velocity = np.abs(np.array(self.states[-1].velocity)) / self.limits
        return bool(velocity.max() > MOVING_SPEED)

    def stall(self, seconds: float) -> None:
        """Stop ik_node's process for ``seconds`` s."""
        self.ik.process.send_signal(signal.SIGSTOP)
        try:
            time.sleep(seconds)
        finally:
            self.ik.process.send_signal(signal.SIGCONT)

    def trial(self, T_base_target: np.ndarray, seconds: float, while_moving: bool) -> tuple:
        """Send the target, stall (at rest: once reached); return (faults, reached)."""
        before = self.faults[-1]
        self.send(T_base_target)
        if while_moving:
            if self.peer.spin_until(self.moving, REACH_TIMEOUT):
                self.stall(seconds)
        reached = self.peer.spin_until(lambda: self.error(T_base_target) < 1e-3,
                                       REACH_TIMEOUT)
        if not while_moving:
            self.stall(seconds)
            self.peer.spin_for(0.3)
        self.peer.spin_for(0.05)
        return self.faults[-1] - before, reached
