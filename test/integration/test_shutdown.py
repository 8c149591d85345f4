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
Clean shutdown: SIGINT or SIGTERM at a random moment, during start-up or motion, exits 0.

Each executable is stopped 20 times (alternating SIGINT and SIGTERM) at a random moment
0.2 to 2.5 s after its start (imports, kernel loading, spinning), while the arm moves
between two targets, every fourth time with a second SIGINT 50 ms later (``ros2 launch``
sends its own SIGINT after the user's Ctrl-C reached every process of the group); every
exit code must be 0 and no output may hold a traceback. The
moment is never before the process has installed its handlers (``SigCgt`` in
``/proc/<pid>/status``): the interpreter's own start-up and, for a colcon install's entry
script, the package metadata lookup come first, and on a busy machine they can take longer
than 0.2 s; no program can handle a signal before its handler exists.
"""

import importlib.util
import random
import signal
import subprocess

from geometry_msgs.msg import PoseStamped
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, load_bundled_chain)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.node.messages import pose_message
from ros_ik.tools.node_processes import RosPeer

RUNS = 20


def catches_stop_signals(pid: int) -> bool:
    """Return whether process ``pid`` has handlers for SIGINT and SIGTERM (Linux /proc)."""
    try:
        with open(f'/proc/{pid}/status', encoding='ascii') as status:
            for line in status:
                if line.startswith('SigCgt:'):
                    caught = int(line.split()[1], 16)
                    return all(caught >> (number - 1) & 1
                               for number in (signal.SIGINT, signal.SIGTERM))
    except OSError:
        pass
    return False


ARM = BUNDLED_ARMS['ur5']
MODEL = {'robot_description_file': bundled_urdf_path('ur5'),
         'joint_limits_file': bundled_joint_limits_path('ur5')}
HOME = '[' + ', '.join(repr(v) for v in ARM.home) + ']'
STARTS = {  # name -> (parameters, extra arguments)
    'ik_node': (MODEL, []),
    'sim_arm': ({**MODEL, 'initial_positions': HOME, 'strict': True},
                ['-r', 'joint_commands:=/ros_ik/joint_commands']),
    'target_marker': (MODEL, ['-r', 'target_pose:=/ros_ik/target_pose']),
    'physics_arm': ({**MODEL, 'initial_positions': HOME, 'strict': True},
                    ['-r', 'joint_commands:=/ros_ik/joint_commands']),
    'ros_ik_web': ({**MODEL, 'port': 0}, []),  # 0: any free port
    # ik_node sends JointState here: the bridge waits for horizons, spinning.
    'position_stream_bridge': ({}, []),
}


@pytest.mark.parametrize('name', sorted(STARTS))
def test_sigint_and_sigterm_at_any_moment_exit_zero(ros_domain_id, processes, tmp_path, name):
    """Stop the executable 20 times at random moments while the arm moves: exit 0."""
    if name == 'target_marker' and importlib.util.find_spec('interactive_markers') is None:
        pytest.skip('interactive_markers (ships with ROS 2 installs) is not installed')
    for other in ('ik_node', 'sim_arm'):
        if other != name:
            parameters, arguments = STARTS[other]
            processes.start(other, parameters, str(tmp_path / f'{other}.log'), arguments)
    peer = RosPeer()
    rng = random.Random(ros_domain_id)
    try:
        kinematics = ChainKinematics(load_bundled_chain('ur5'))
        targets = []
        for offset in (0.4, -0.4):
            message = PoseStamped(pose=pose_message(kinematics.tip_pose(
                np.array(ARM.home) + offset)))
            message.header.frame_id = ARM.base_link
            targets.append(message)
        publisher = peer.node.create_publisher(PoseStamped, '/ros_ik/target_pose', QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL))
        peer.node.create_timer(1.0, lambda: publisher.publish(targets[rng.randrange(2)]))
        for run in range(RUNS):
            parameters, arguments = STARTS[name]
            process = processes.start(name, parameters, str(tmp_path / f'{name}_{run}.log'),
                                      arguments)
            peer.spin_until(lambda: process.process.poll() is not None, rng.uniform(0.2, 2.5))
            assert peer.spin_until(lambda: process.process.poll() is not None
                                   or catches_stop_signals(process.process.pid), 30.0)
            stop_signal = signal.SIGINT if run % 2 == 0 else signal.SIGTERM
            process.process.send_signal(stop_signal)
            if run % 4 == 0:  # a second SIGINT while it exits, as launch sends after Ctrl-C
                peer.spin_until(lambda: process.process.poll() is not None, 0.05)
                if process.process.poll() is None:
                    process.process.send_signal(signal.SIGINT)
            try:
                code = process.wait(timeout=15.0)
            except subprocess.TimeoutExpired:
                # faulthandler (rclpy's EventsExecutor enables it) dumps every thread's stack.
                process.process.send_signal(signal.SIGABRT)
                process.stop()
                pytest.fail(f'run {run}, {stop_signal.name}: no exit within 15 s; its '
                            f'threads:\n{process.output()[-8000:]}')
            process.stop()
            output = process.output()
            assert code == 0, f'run {run}, {stop_signal.name}: exit {code}\n{output}'
            assert 'Traceback' not in output, f'run {run}, {stop_signal.name}:\n{output}'
    finally:
        peer.close()
