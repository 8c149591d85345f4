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
bench_paths' measures over DDS: the start latency of a path, a square on the physics arm.

ik_node and an arm as processes (:mod:`ros_ik.tools.node_processes`); the bench side
publishes paths and takes the node's commands serialized with their reception stamps
(:class:`ros_ik.node.polled_inputs.PolledInputs`, as ``bench_node.py`` does).
"""

import os
import tempfile
import time
from typing import List, Tuple

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
import numpy as np
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, gains_beside, srdf_beside)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_loader import load_urdf_file
from ros_ik.node.messages import pose_message
from ros_ik.node.polled_inputs import PolledInputs
from ros_ik.tools.node_processes import ProcessGroup, RosPeer
from sensor_msgs.msg import JointState

ARM = 'ur5'
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
TIMEOUT = 30.0


def _model() -> dict:
    """Return the UR5's model parameters for the processes."""
    spec = BUNDLED_ARMS[ARM]
    return {'robot_description_file': bundled_urdf_path(ARM), 'base_link': spec.base_link,
            'tip_link': spec.tip_link, 'joint_limits_file': bundled_joint_limits_path(ARM)}


def _home() -> Tuple[np.ndarray, np.ndarray]:
    """Return the UR5's home joints and its tool pose there (4x4, base frame)."""
    spec = BUNDLED_ARMS[ARM]
    home = np.array(spec.home)
    chain = load_urdf_file(bundled_urdf_path(ARM), spec.base_link, spec.tip_link)
    return home, ChainKinematics(chain).tip_pose(home)


def _joints_text(q: np.ndarray) -> str:
    """Return joints as a parameter value (a list of floats)."""
    return '[' + ', '.join(repr(float(v)) for v in q) + ']'


def zig_zag(T0: np.ndarray, back: bool) -> Path:
    """
    Return a 20-waypoint zig-zag path from ``T0`` along +x, or the same path reversed.

    The back path retraces the forth one exactly, so every path starts where the tool
    rests and the node follows it at once (no approaching joint motion).
    """
    message = Path()
    message.header.frame_id = BUNDLED_ARMS[ARM].base_link
    order = range(19, -1, -1) if back else range(20)
    for k in order:
        T = T0.copy()
        T[0, 3] += 0.005 * k
        T[1, 3] += 0.01 * (k % 2)
        message.poses.append(PoseStamped(pose=pose_message(T)))
    return message


def path_start_latencies(count: int) -> np.ndarray:
    """Return the path -> first moving command delays (s) of ``count`` paths (UR5, solve)."""
    home, T0 = _home()
    logs = tempfile.mkdtemp(prefix='bench_paths_')
    group = ProcessGroup()
    peer = RosPeer('bench_paths')
    inputs = PolledInputs(peer.node)
    try:
        group.start('sim_arm', {**_model(), 'initial_positions': _joints_text(home)},
                    os.path.join(logs, 'sim_arm.log'),
                    ['-r', 'joint_commands:=ros_ik/joint_commands'])
        group.start('ik_node', {**_model(), 'mode': 'solve'}, os.path.join(logs, 'ik.log'))
        commands = inputs.subscribe(JointState, '/ros_ik/joint_commands', RELIABLE)
        publisher = peer.node.create_publisher(Path, '/ros_ik/target_path',
                                               QoSProfile(depth=1,
                                                          reliability=ReliabilityPolicy.RELIABLE))
        arrivals: List[Tuple[float, bool]] = []

        def take() -> None:
            taken_at = time.time()
            for data, offset in commands.take(0.0):
                message = deserialize_message(data, JointState)
                arrivals.append((taken_at + offset, any(v != 0.0 for v in message.velocity)))
        peer.node.create_timer(0.001, take)
        assert peer.spin_until(lambda: publisher.get_subscription_count() > 0
                               and peer.node.count_publishers('/ros_ik/joint_commands') > 0,
                               TIMEOUT), 'ik_node did not come up'
        latencies = []
        for index in range(count):
            message = zig_zag(T0, back=index % 2 == 1)
            peer.spin_for(0.3)  # at rest
            sent = time.time()
            publisher.publish(message)
            peer.spin_until(lambda: any(t >= sent and moving for t, moving in arrivals), 5.0)
            moving = [t for t, is_moving in arrivals if t >= sent and is_moving]
            if moving:
                latencies.append(moving[0] - sent)
            peer.spin_until(lambda: arrivals[-1][0] > sent + 0.2 and not arrivals[-1][1],
                            TIMEOUT)
        return np.array(latencies)
    finally:
        inputs.destroy()
        peer.close()
        group.stop_all()


def physics_square() -> Tuple[float, str]:
    """Return the UR5's peak tool tracking error (m) on physics_arm drawing the square."""
    home, T0 = _home()
    logs = tempfile.mkdtemp(prefix='bench_paths_physics_')
    group = ProcessGroup()
    peer = RosPeer('bench_paths_physics')
    errors: List[float] = []
    status = {'message': ''}
    try:
        group.start('physics_arm', {**_model(), 'initial_positions': _joints_text(home),
                                    'gains_file': gains_beside(bundled_urdf_path(ARM)),
                                    'robot_description_semantic_file':
                                        srdf_beside(bundled_urdf_path(ARM))},
                    os.path.join(logs, 'physics_arm.log'),
                    ['-r', 'joint_commands:=ros_ik/joint_commands'])
        group.start('ik_node', {**_model(), 'mode': 'solve', 'max_linear_speed': 0.25},
                    os.path.join(logs, 'ik.log'))

        def diagnostics(message: DiagnosticArray) -> None:
            for item in message.status:
                values = {pair.key: pair.value for pair in item.values}
                if item.name == 'physics_arm: drives':
                    errors.append(float(values['tool_tracking_error']))
                elif item.name == 'ros_ik: ik':
                    status['message'] = item.message
        peer.node.create_subscription(DiagnosticArray, '/diagnostics', diagnostics, RELIABLE)
        publisher = peer.node.create_publisher(Path, '/ros_ik/target_path',
                                               QoSProfile(depth=1,
                                                          reliability=ReliabilityPolicy.RELIABLE))
        assert peer.spin_until(lambda: publisher.get_subscription_count() > 0 and errors,
                               TIMEOUT), 'physics_arm or ik_node did not come up'
        message = Path()
        message.header.frame_id = BUNDLED_ARMS[ARM].base_link
        for dx, dy in ((0, 0), (1, 0), (1, 1), (0, 1), (0, 0)):
            T = T0.copy()
            T[0, 3] += 0.1 * dx
            T[1, 3] += 0.1 * dy
            message.poses.append(PoseStamped(pose=pose_message(T)))
        first = len(errors)
        publisher.publish(message)
        peer.spin_until(lambda: status['message'] == 'path done', TIMEOUT)
        peer.spin_for(0.5)
        return max(errors[first:], default=float('nan')), status['message']
    finally:
        peer.close()
        group.stop_all()
