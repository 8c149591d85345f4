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
Collision checks over DDS: ik_node and the strict sim_arm with example-robot-data's UR5.

The arm (meshes, SRDF) stands on a floor (``collision_scene_file``); every command heard is
checked independently with Pinocchio + coal on the meshes. Skipped without
example-robot-data.
"""

from dataclasses import replace

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped, TwistStamped
from loop_messages import ik_status, pose_target
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_setup import build_collision_model
from ros_ik.collision.scene import parse_scene
from ros_ik.collision.shapes import search_path_packages
from ros_ik.kinematics.bundled_arms import bundled_joint_limits_path
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.ik_solver import IkSolver
from ros_ik.kinematics.transforms import pose_error, rpy_to_matrix
from ros_ik.kinematics.urdf_loader import load_urdf_file
from ros_ik.tools.node_processes import NodeProcess, ProcessGroup, RosPeer
from ros_ik_testing.example_arms import example_arm, mesh_search_folder, UR5_FLOOR_CROSSING
from ros_ik_testing.reference_collisions import FLOOR_OBJECT
from ros_ik_testing.reference_collisions import ReferenceCollisions
from ros_ik_testing.stall_faults import stall_fault_reason
from sensor_msgs.msg import JointState
from std_msgs.msg import String, UInt32

pytestmark = pytest.mark.skipif(mesh_search_folder() is None,
                                reason='example-robot-data is not installed')
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def scene_yaml(*objects: str) -> str:
    """Return a scene YAML text with one flow-style mapping per object."""
    return 'objects:\n' + ''.join(f'  - {item}\n' for item in objects)


FLOOR = scene_yaml(FLOOR_OBJECT)
START = np.array([0.0, -1.57, 1.57, -1.57, -1.57, 0.0])
FREE_GOAL = np.array([0.4, -1.3, 1.3, -1.6, -1.57, 0.3])


class CollisionLoop:
    """sim_arm (strict) and ik_node on the example UR5 with a floor; what the test sees."""

    def __init__(self, peer: RosPeer, processes: ProcessGroup, folder,
                 scene_text: str = FLOOR, ik: dict = None, start: np.ndarray = START) -> None:
        """Start both processes (owned by ``processes`` from their start)."""
        self.arm = example_arm('ur5')
        self.chain = load_urdf_file(self.arm.urdf_path, self.arm.base_link, self.arm.tip_link)
        self.kinematics = ChainKinematics(self.chain)
        scene_file = folder / 'scene.yaml'
        scene_file.write_text(scene_text)
        model = {'robot_description_file': self.arm.urdf_path,
                 'base_link': self.arm.base_link, 'tip_link': self.arm.tip_link,
                 'joint_limits_file': bundled_joint_limits_path('ur5')}  # same joint names
        start = '[' + ', '.join(repr(float(v)) for v in start) + ']'
        self.processes = []
        self.commands, self.status, self.faults = [], None, []
        self.peer = peer
        self.processes.append(processes.start(
            'sim_arm', {**model, 'initial_positions': start, 'strict': True},
            str(folder / 'sim.log'), ['-r', 'joint_commands:=/ros_ik/joint_commands']))
        self.processes.append(processes.start('ik_node', {
            **model, 'robot_description_semantic_file': self.arm.srdf_path,
            'mesh_search_path': mesh_search_folder(),
            'collision_scene_file': str(scene_file), 'diagnostics_period': 0.1,
            'solve_time_budget': 0.02, **(ik or {})}, str(folder / 'ik.log')))
        node = peer.node
        node.create_subscription(JointState, '/ros_ik/joint_commands',
                                 lambda m: self.commands.append(np.array(m.position)),
                                 RELIABLE)
        node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                 RELIABLE)
        node.create_subscription(UInt32, '/sim_arm/faults',
                                 lambda m: self.faults.append(m.data), LATCHED)
        self.targets = node.create_publisher(PoseStamped, '/ros_ik/target_pose', LATCHED)
        self.scenes = node.create_publisher(String, '/ros_ik/collision_scene', LATCHED)
        self.twists = node.create_publisher(TwistStamped, '/ros_ik/delta_twist_cmds', 10)
        assert peer.spin_until(lambda: self.status is not None and self.faults
                               and self.targets.get_subscription_count() > 0, 60.0), \
            self.processes[-1].output()[-3000:]

    def assert_no_fault(self) -> None:
        """Check the strict arm never faulted; skip, saying so, if each fault followed a stall."""
        reason = stall_fault_reason(self.processes[1].output(), self.processes[0].output())
        if reason:
            pytest.skip(reason)
        assert self.faults[-1] == 0, self.processes[0].output()

    def _on_diagnostics(self, message: DiagnosticArray) -> None:
        self.status = ik_status(message, self.status)

    def send(self, T_base_target: np.ndarray) -> None:
        """Publish a pose target in the base frame."""
        self.targets.publish(pose_target(T_base_target, self.chain.base_link))

    def values(self) -> dict:
        """Return the last diagnostics values."""
        return {item.key: item.value for item in self.status.values}

    def reached(self, T_base_target: np.ndarray) -> bool:
        """Return whether the last command puts the tool at the target."""
        if not self.commands:
            return False
        e_p, e_o = pose_error(T_base_target, self.kinematics.tip_pose(self.commands[-1]))
        return np.linalg.norm(e_p) < 1e-3 and np.linalg.norm(e_o) < 1e-2

    def close(self) -> None:
        """Stop every process started."""
        for process in self.processes:
            process.stop()


def below_floor_target(kinematics: ChainKinematics) -> np.ndarray:
    """Return a tool pose 15 cm below the floor, pointing down, within reach."""
    T = np.eye(4)
    T[:3, :3] = rpy_to_matrix(np.pi, 0.0, 0.0)
    T[:3, 3] = [0.45, 0.15, -0.15]
    return T


def test_targets_below_the_floor_are_refused_and_free_ones_reached_without_contact(
        peer, processes, tmp_path):
    """Check the refusal names the pair, a free target is reached, no command collides."""
    loop = CollisionLoop(peer, processes, tmp_path)
    try:
        loop.send(below_floor_target(loop.kinematics))
        assert peer.spin_until(lambda: loop.status.message.startswith('target refused'), 60.0), \
            (loop.status.message, loop.processes[1].output()[-3000:])
        assert loop.status.message.startswith('target refused: the motion would bring ')
        assert 'floor' in loop.status.message
        T_goal = loop.kinematics.tip_pose(FREE_GOAL)
        loop.send(T_goal)
        assert peer.spin_until(lambda: loop.reached(T_goal), 60.0), loop.status.message
        assert 'min_distance' in loop.values() and 'closest_pair' in loop.values()
        reference = ReferenceCollisions(loop.arm.urdf_path, loop.arm.srdf_path,
                                        mesh_search_folder(), loop.chain.joint_names)
        colliding = [q for q in loop.commands[::5] + loop.commands[-1:]
                     if reference.colliding(q)]
        assert colliding == []
        loop.assert_no_fault()
    finally:
        loop.close()


LOW_START, FLOOR_CROSSING_GOAL = (np.array(q) for q in UR5_FLOOR_CROSSING)


def off_segment(q: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Return the distance (rad) from ``q`` to the joint-space segment from ``a`` to ``b``."""
    s = np.clip((q - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    return float(np.linalg.norm(q - (a + s * (b - a))))


def test_a_target_whose_straight_path_crosses_the_floor_is_reached_another_way_or_refused(
        peer, processes, tmp_path):
    """
    Check the node does not take the nearest solution's motion through the floor.

    Both ends are free and the nearest solution from the start is the goal configuration
    (checked here first with ros_ik's solver and the reference): the node must reach the
    pose by another solution or a detour (its commands leave the straight line), or refuse
    it naming a pair; no command collides.
    """
    loop = CollisionLoop(peer, processes, tmp_path, start=LOW_START)
    try:
        reference = ReferenceCollisions(loop.arm.urdf_path, loop.arm.srdf_path,
                                        mesh_search_folder(), loop.chain.joint_names)
        T_goal = loop.kinematics.tip_pose(FLOOR_CROSSING_GOAL)
        options = replace(IkSolver(loop.kinematics).options, solution_choice='closest',
                          time_budget=0.05)
        nearest = IkSolver(loop.kinematics).solve(T_goal, LOW_START, options).q
        assert np.abs(nearest - FLOOR_CROSSING_GOAL).max() < 0.01
        assert reference.colliding(LOW_START) == reference.colliding(nearest) == []
        crossing = [reference.colliding(LOW_START + s * (nearest - LOW_START))
                    for s in np.linspace(0.0, 1.0, 80)]
        assert any('floor' in pair for pairs in crossing for pair in pairs)
        loop.send(T_goal)
        assert peer.spin_until(lambda: loop.reached(T_goal) or loop.status.message.startswith(
            'target refused'), 60.0), loop.status.message
        if loop.reached(T_goal):  # by another solution or a detour: off the straight line
            assert max(off_segment(q, LOW_START, nearest) for q in loop.commands) > 0.1
        else:
            assert ' into ' in loop.status.message
        assert [q for q in loop.commands if reference.colliding(q)] == []
        loop.assert_no_fault()
    finally:
        loop.close()


def test_a_scene_object_added_at_run_time_blocks_the_next_target(peer, processes, tmp_path):
    """Check a box published on ~/collision_scene around the goal refuses it, by name."""
    loop = CollisionLoop(peer, processes, tmp_path)
    try:
        T_goal = loop.kinematics.tip_pose(FREE_GOAL)
        x, y, z = T_goal[:3, 3]
        loop.scenes.publish(String(data=scene_yaml(
            FLOOR_OBJECT, f'{{name: crate, type: box, size: [0.3, 0.3, 0.3], '
                          f'pose: {{xyz: [{x}, {y}, {z}]}}}}')))
        assert peer.spin_until(lambda: 'new scene' in loop.processes[1].output(), 30.0), \
            loop.processes[1].output()[-2000:]
        loop.send(T_goal)
        assert peer.spin_until(lambda: loop.status.message.startswith('target refused'), 60.0), \
            loop.status.message
        assert 'crate' in loop.status.message
    finally:
        loop.close()


def test_a_bad_scene_file_stops_the_node_naming_the_field(ros_domain_id, tmp_path):
    """Check a scene object without its size is one FATAL line and exit code 1."""
    arm = example_arm('ur5')
    scene = tmp_path / 'scene.yaml'
    scene.write_text('objects: [{name: table, type: box}]\n')
    process = NodeProcess('ik_node', {
        'robot_description_file': arm.urdf_path, 'base_link': arm.base_link,
        'tip_link': arm.tip_link, 'mesh_search_path': mesh_search_folder(),
        'collision_scene_file': str(scene)}, str(tmp_path / 'ik.log'))
    try:
        assert process.wait(60.0) == 1
        assert 'object 1 ("table"): a box needs field "size"' in process.output()
        assert 'FATAL' in process.output()
    finally:
        process.stop()


def test_a_jog_into_a_box_stops_at_the_stop_distance(peer, processes, tmp_path):
    """Check a tool jogged down onto a box stops near collision_stop_distance, never in it."""
    stop_distance = 0.03
    tool = ChainKinematics(load_urdf_file(example_arm('ur5').urdf_path, 'base_link',
                                          'tool0')).tip_pose(START)[:3, 3]
    x, y, top = tool[0], tool[1], tool[2] - 0.15
    scene = scene_yaml(FLOOR_OBJECT, f'{{name: box, type: box, size: [0.4, 0.4, 0.1], '
                                     f'pose: {{xyz: [{x}, {y}, {top - 0.05}]}}}}')
    loop = CollisionLoop(peer, processes, tmp_path, scene,
                         {'collision_stop_distance': stop_distance})
    try:
        twist = TwistStamped()
        twist.header.frame_id = 'base_link'
        twist.twist.linear.z = -0.08
        heights = []
        deadline_cycles = 400  # 8 s at 50 Hz: 0.64 m of commanded travel, 0.15 m available
        for _ in range(deadline_cycles):
            loop.twists.publish(twist)
            peer.spin_for(0.02)
            if loop.commands:
                heights.append(loop.kinematics.tip_pose(loop.commands[-1])[2, 3])
        assert len(heights) > 50
        assert heights[0] - min(heights) > 0.05  # it did go down toward the box
        assert abs(heights[-1] - heights[-20]) < 1e-3  # at rest, not pushing on
        arm = example_arm('ur5')
        text = open(arm.urdf_path, encoding='utf-8').read()
        model, _ = build_collision_model(text, loop.kinematics,
                                         open(arm.srdf_path, encoding='utf-8').read(),
                                         parse_scene(scene),
                                         search_path_packages([mesh_search_folder()]))
        box_clearance = min(contact.distance for contact in CollisionChecker(
            model, 0.0, 0.01).contacts(loop.commands[-1], 1.0) if 'box' in contact.owners)
        assert stop_distance - 0.01 < box_clearance < stop_distance + 0.02
        reference = ReferenceCollisions(loop.arm.urdf_path, loop.arm.srdf_path,
                                        mesh_search_folder(), loop.chain.joint_names)
        assert [q for q in loop.commands[::5] + loop.commands[-1:]
                if reference.colliding(q)] == []
        loop.assert_no_fault()
    finally:
        loop.close()
