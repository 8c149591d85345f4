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
The physics-backed arm (MuJoCo) as a real process: closed loop with ik_node, contacts.

The closed loop drives the bundled UR5 with its shipped gains on physics (strict: a
command beyond the limits, a contact force or a tracking error beyond the thresholds
faults it) and checks what a physical arm reports: targets reached within the node's
tolerance, no contact, the tracking error at the tool bounded, efforts in joint_states.
"""

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped
from loop_messages import pose_target
import numpy as np
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, gains_beside,
                                            load_bundled_chain, srdf_beside)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import pose_error
from sensor_msgs.msg import JointState
from std_msgs.msg import String, UInt32

RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
UR5 = BUNDLED_ARMS['ur5']
UR5_PATH = bundled_urdf_path('ur5')
UR5_MODEL = {'robot_description_file': UR5_PATH, 'base_link': UR5.base_link,
             'tip_link': UR5.tip_link, 'joint_limits_file': bundled_joint_limits_path('ur5')}
HOME = '[' + ', '.join(repr(float(v)) for v in UR5.home) + ']'
POSITION_TOLERANCE, ORIENTATION_TOLERANCE = 1e-3, 1e-2  # the node's defaults (m, rad)
TOOL_ERROR_BOUND = 0.02  # m: the goal for the tracking error at the tool


class PhysicsWatch:
    """What the test side hears of physics_arm: joint states, its diagnostics, its faults."""

    def __init__(self, peer) -> None:
        """Subscribe to joint_states, /diagnostics and the latched fault count."""
        self.states, self.faults = [], []
        self.drives, self.contacts = None, None
        self.pair_forces = {}  # 'link / object': peak normal force (N) reported
        node = peer.node
        node.create_subscription(JointState, 'joint_states', self.states.append, RELIABLE)
        node.create_subscription(UInt32, '/physics_arm/faults', self.faults.append, LATCHED)
        node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                 RELIABLE)

    def _on_diagnostics(self, message: DiagnosticArray) -> None:
        for status in message.status:
            values = {pair.key: pair.value for pair in status.values}
            if status.name == 'physics_arm: drives':
                self.drives = values
            elif status.name == 'physics_arm: contacts':
                self.contacts = values
                for key, value in values.items():
                    if ' / ' in key:
                        self.pair_forces[key] = max(float(value),
                                                    self.pair_forces.get(key, 0.0))

    @property
    def q(self) -> np.ndarray:
        """Return the newest joint positions."""
        return np.array(self.states[-1].position)


def test_closed_loop_on_physics_reaches_targets_without_contact(peer, processes, tmp_path):
    """Check three pose targets: reached, 0 contacts, 0 faults, tool error < 2 cm."""
    physics = processes.start(
        'physics_arm', {**UR5_MODEL, 'initial_positions': HOME, 'strict': True,
                        'gains_file': gains_beside(UR5_PATH),
                        'robot_description_semantic_file': srdf_beside(UR5_PATH)},
        str(tmp_path / 'physics.log'), ['-r', 'joint_commands:=/ros_ik/joint_commands'])
    ik = processes.start('ik_node', {**UR5_MODEL, 'velocity_scale': 0.5,
                                     'robot_description_semantic_file': srdf_beside(UR5_PATH)},
                         str(tmp_path / 'ik.log'))
    watch = PhysicsWatch(peer)
    targets = peer.node.create_publisher(PoseStamped, '/ros_ik/target_pose', LATCHED)
    assert peer.spin_until(lambda: watch.states and watch.drives is not None
                           and targets.get_subscription_count() > 0, 60.0)
    kinematics = ChainKinematics(load_bundled_chain('ur5'))
    home = np.array(UR5.home)
    for offset in ([0.3, 0.2, -0.2, 0.3, 0.2, -0.2], [-0.4, -0.1, 0.3, -0.2, 0.3, 0.4],
                   [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]):
        T_target = kinematics.tip_pose(home + np.array(offset))
        targets.publish(pose_target(T_target, UR5.base_link))

        def reached() -> bool:
            e_p, e_o = pose_error(T_target, kinematics.tip_pose(watch.q))
            return (np.linalg.norm(e_p) <= POSITION_TOLERANCE
                    and np.linalg.norm(e_o) <= ORIENTATION_TOLERANCE)
        assert peer.spin_until(reached, 30.0), f'target {offset} not reached'
    peer.spin_for(0.3)  # one more diagnostics period covers the last motion
    assert len(watch.states[-1].effort) == kinematics.n_joints
    assert watch.faults and watch.faults[-1].data == 0
    assert watch.contacts['contact_events'] == '0'
    assert 0.0 < float(watch.drives['run_tool_tracking_error']) < TOOL_ERROR_BOUND
    assert float(watch.drives['run_effort_fraction']) < 1.0, (
        physics.output()[-3000:], ik.output()[-3000:])


def test_scene_object_in_the_path_is_touched_and_reported(peer, processes, tmp_path):
    """Check a box from the collision_scene topic: commands into it give a contact."""
    chain = load_bundled_chain('ur5')
    kinematics = ChainKinematics(chain)
    home = np.array(UR5.home)
    swing = home + np.array([0.6, 0.0, 0.0, 0.0, 0.0, 0.0])  # shoulder pan: 0.6 rad
    x, y, z = kinematics.tip_pose(home + np.array([0.3, 0, 0, 0, 0, 0]))[:3, 3]
    processes.start('physics_arm', {**UR5_MODEL, 'initial_positions': HOME,
                                    'gains_file': gains_beside(UR5_PATH),
                                    'robot_description_semantic_file': srdf_beside(UR5_PATH)},
                    str(tmp_path / 'physics.log'))
    watch = PhysicsWatch(peer)
    scene = peer.node.create_publisher(String, 'collision_scene', LATCHED)
    scene.publish(String(data='objects:\n  - {name: block, type: box, size: [0.15, 0.15, '
                              f'0.15], pose: {{xyz: [{x}, {y}, {z}]}}}}\n'))
    commands = peer.node.create_publisher(JointState, 'joint_commands', RELIABLE)
    assert peer.spin_until(lambda: watch.contacts is not None
                           and commands.get_subscription_count() > 0, 60.0)
    command = JointState(name=list(chain.joint_names))
    for fraction in np.linspace(0.0, 1.0, 150):  # 0.6 rad in 3 s, a command every 20 ms
        command.position = [float(v) for v in home + fraction * (swing - home)]
        commands.publish(command)
        peer.spin_for(0.02)
    assert peer.spin_until(lambda: watch.contacts['contact_events'] != '0', 10.0)
    touching_block = {pair: force for pair, force in watch.pair_forces.items()
                      if 'block' in pair}
    assert touching_block and max(touching_block.values()) > 0.0, watch.pair_forces


def test_bad_gains_file_stops_start_up_with_the_reason(processes, tmp_path, ros_domain_id):
    """Check a gains file naming a joint the chain lacks: exit 1, the joint named."""
    gains = tmp_path / 'gains.yaml'
    gains.write_text('gains:\n  no_such_joint: {p: 10.0, d: 1.0}\n')
    process = processes.start('physics_arm', {**UR5_MODEL, 'gains_file': str(gains)},
                              str(tmp_path / 'physics.log'))
    assert process.wait(60.0) == 1
    assert 'cannot start' in process.output() and 'no_such_joint' in process.output()
