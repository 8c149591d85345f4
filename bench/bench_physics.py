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
Real-time factor of the physics-backed arm at 1 kHz stepping, with and without ik_node.

For the bundled Panda and UR5: physics_arm (MuJoCo step 1 ms, 500 Hz loop and joint_states,
the shipped gains) runs for ``--seconds`` s alone, then under ik_node at update_rate 1 kHz
(servo mode) that is sent a new pose target every 2 s. The table gives the real-time
factor (simulated / wall-clock seconds per 0.1 s diagnostics window: mean and lowest),
each process's CPU (share of one core, from /proc) and the run's peak tracking error at
the tool, drive effort / limit and contact events. In process: the cost of one MuJoCo step
with the drive update (``ArmSimulation.advance``), in microseconds.

Run: ``.venv/bin/python bench/bench_physics.py [--seconds 20]`` (after ``make install``).
"""

import argparse
import os
import random
import sys
import tempfile
import time

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped
import numpy as np
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, gains_beside, srdf_beside)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_loader import load_urdf_file, parse_robot
from ros_ik.node.messages import pose_message
from ros_ik.physics.arm_simulation import ArmSimulation
from ros_ik.physics.mujoco_arm import build_arm_model, joint_drives, PhysicsOptions
from ros_ik.physics.servo_gains import derived_gains, gains_with_file, parse_gains
from ros_ik.tools.node_processes import ProcessGroup, RosPeer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_node import cpu_seconds  # noqa: E402, I100 (the benchmark folder's helper)

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
TARGET_PERIOD = 2.0  # s between pose targets


def step_cost(name: str, steps: int = 20000) -> float:
    """Return the microseconds of one ``advance`` step of the arm at home (in process)."""
    from ros_ik.collision.collision_setup import build_collision_model
    arm = BUNDLED_ARMS[name]
    path = bundled_urdf_path(name)
    urdf = open(path, encoding='utf-8').read()
    chain = load_urdf_file(path, arm.base_link, arm.tip_link)
    collision, _ = build_collision_model(urdf, ChainKinematics(chain),
                                         open(srdf_beside(path), encoding='utf-8').read(), [],
                                         lambda package: None)
    robot = parse_robot(urdf)
    drives = joint_drives(robot, chain)
    model = build_arm_model(robot, collision, drives, PhysicsOptions())
    gains, _ = gains_with_file(derived_gains(np.ones(chain.n_joints)), chain.joint_names,
                               parse_gains(open(gains_beside(path)).read(), ''), '')
    home = np.array(arm.home)
    simulation = ArmSimulation(model, gains, drives.effort, home)
    start = time.perf_counter()
    for _ in range(steps // 2):
        simulation.advance(home, np.zeros_like(home), 2)
    return 1e6 * (time.perf_counter() - start) / steps


def run(name: str, with_node: bool, seconds: float, folder: str) -> str:
    """Run physics_arm (and ik_node) for ``seconds``; return the table row."""
    arm = BUNDLED_ARMS[name]
    path = bundled_urdf_path(name)
    model = {'robot_description_file': path, 'base_link': arm.base_link,
             'tip_link': arm.tip_link, 'joint_limits_file': bundled_joint_limits_path(name)}
    home = '[' + ', '.join(repr(float(v)) for v in arm.home) + ']'
    group = ProcessGroup()
    peer = RosPeer('bench_physics')
    windows, drives, contacts = [], {}, {}

    def on_diagnostics(message: DiagnosticArray) -> None:
        for status in message.status:
            values = {pair.key: pair.value for pair in status.values}
            if status.name == 'physics_arm: drives':
                windows.append(float(values['real_time_factor']))
                drives.update(values)
            elif status.name == 'physics_arm: contacts':
                contacts.update(values)
    try:
        physics = group.start('physics_arm', {
            **model, 'initial_positions': home, 'gains_file': gains_beside(path),
            'robot_description_semantic_file': srdf_beside(path)},
            os.path.join(folder, f'physics_{name}_{with_node}.log'),
            ['-r', 'joint_commands:=/ros_ik/joint_commands'])
        processes = [physics]
        if with_node:
            processes.append(group.start('ik_node', {
                **model, 'update_rate': 1000.0, 'mode': 'servo', 'velocity_scale': 0.5,
                'robot_description_semantic_file': srdf_beside(path)},
                os.path.join(folder, f'ik_{name}.log')))
        peer.node.create_subscription(DiagnosticArray, '/diagnostics', on_diagnostics, 10)
        targets = peer.node.create_publisher(PoseStamped, '/ros_ik/target_pose', LATCHED)
        if not peer.spin_until(lambda: windows and (
                not with_node or targets.get_subscription_count() > 0), 60.0):
            return f'| {name} | {"yes" if with_node else "no"} | did not start | | | | |'
        kinematics = ChainKinematics(load_urdf_file(path, arm.base_link, arm.tip_link))
        rng = np.random.default_rng(0)
        peer.spin_for(1.0)  # past the start-up
        windows.clear()
        cpu_start = [cpu_seconds(process.process.pid) for process in processes]
        wall_start = time.monotonic()
        while time.monotonic() - wall_start < seconds:
            q = np.array(arm.home) + rng.uniform(-0.4, 0.4, kinematics.n_joints)
            message = PoseStamped(pose=pose_message(kinematics.tip_pose(q)))
            message.header.frame_id = arm.base_link
            targets.publish(message)
            peer.spin_for(TARGET_PERIOD)
        wall = time.monotonic() - wall_start
        cpu = [100.0 * (cpu_seconds(process.process.pid) - before) / wall
               for process, before in zip(processes, cpu_start)]
    finally:
        peer.close()
        group.stop_all()
    node_cpu = f'{cpu[1]:.0f} %' if with_node else '-'
    return (f'| {name} | {"1 kHz servo" if with_node else "none"} | {np.mean(windows):.3f} | '
            f'{np.min(windows):.3f} | {cpu[0]:.0f} % | {node_cpu} | '
            f'{1e3 * float(drives["run_tool_tracking_error"]):.2f} | '
            f'{float(drives["run_effort_fraction"]):.3f} | {contacts["contact_events"]} |')


def main() -> None:
    """Print the in-process step cost and the real-time table."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--seconds', type=float, default=20.0,
                        help='measured seconds per row (default %(default)s)')
    args = parser.parse_args()
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', str(random.SystemRandom().randint(1, 100)))
    print('| arm | MuJoCo step + drive update (in process) |')
    print('|---|---|')
    for name in ('panda', 'ur5'):
        print(f'| {name} | {step_cost(name):.1f} us |', flush=True)
    print()
    folder = tempfile.mkdtemp(prefix='bench_physics_')
    print(f'physics_arm at 1 kHz (step 1 ms, loop 500 Hz), {args.seconds:g} s per row; logs '
          f'in {folder}')
    print('| arm | ik_node | real-time factor mean | lowest (0.1 s) | physics_arm CPU | '
          'ik_node CPU | peak tool error mm | peak effort / limit | contacts |')
    print('|---|---|---|---|---|---|---|---|---|')
    for name in ('panda', 'ur5'):
        for with_node in (False, True):
            print(run(name, with_node, args.seconds, folder), flush=True)


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_physics', main)
