"""
Node benchmark: target-to-command latency and sustained command rate of ik_node.

Starts ``ik_node`` (servo mode, Panda-class 7-DOF arm, JointState commands) in its own
process for each ``update_rate``, feeds constant joint states at 200 Hz and alternates
two targets on either side of the arm. For each rate it prints:

* achieved command rate (Hz), from the commands' header stamps (the node's clock);
* period jitter ``|period - 1/rate|`` p50 / p99 (ms), from those stamps;
* node CPU % over the window (utime + stime from /proc);
* latency p50 / p99 (ms): from publishing a target to receiving the first command that
  moves toward it (includes waiting for the next timer tick, up to one period).

Run: ``.venv/bin/python bench/bench_node.py [--rates 100 500 1000] [--seconds 5]``.
"""

import argparse
import os
import random
import sys
import tempfile
import time
from typing import List

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPOSITORY)
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ['ROS_DOMAIN_ID'] = str(random.SystemRandom().randint(150, 200))

from geometry_msgs.msg import PoseStamped  # noqa: E402
import numpy as np  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path  # noqa: E402
from ros_ik.kinematics.chain_kinematics import ChainKinematics  # noqa: E402
from ros_ik.kinematics.urdf_loader import load_urdf_file  # noqa: E402
from ros_ik.node.messages import pose_message  # noqa: E402
from ros_ik.tools.node_processes import NodeProcess, RosPeer  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

ARM = 'panda'
OFFSET = 0.3  # rad on joint 1: the two targets lie on either side of the home pose


def cpu_seconds(pid: int) -> float:
    """Return user + system CPU time (s) of process ``pid`` from /proc."""
    with open(f'/proc/{pid}/stat', encoding='ascii') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def measure(rate: float, seconds: float, log_path: str) -> List[str]:
    """Run the node at ``rate`` Hz and return the formatted measurements."""
    arm = BUNDLED_ARMS[ARM]
    chain = load_urdf_file(bundled_urdf_path(ARM), arm.base_link, arm.tip_link)
    kinematics = ChainKinematics(chain)
    home = np.array(arm.home)
    targets = []
    for sign in (1.0, -1.0):
        goal = home.copy()
        goal[0] += sign * OFFSET
        message = PoseStamped()
        message.header.frame_id = arm.base_link
        message.pose = pose_message(kinematics.tip_pose(goal))
        targets.append((sign, message))
    process = NodeProcess('ik_node', {'robot_description_file': bundled_urdf_path(ARM),
                                      'base_link': arm.base_link, 'tip_link': arm.tip_link,
                                      'update_rate': float(rate)}, log_path)
    peer = RosPeer('bench_node')
    stamps: List[float] = []
    arrivals: List[tuple] = []

    def on_command(message: JointState) -> None:
        stamps.append(message.header.stamp.sec + message.header.stamp.nanosec * 1e-9)
        arrivals.append((time.monotonic(), message.velocity[0]))

    try:
        node = peer.node
        reliable = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        node.create_subscription(JointState, '/ros_ik/joint_commands', on_command, reliable)
        joints = node.create_publisher(JointState, 'joint_states', 10)
        target_publisher = node.create_publisher(PoseStamped, '/ros_ik/target_pose',
                                                 QoSProfile(depth=1,
                                                            reliability=ReliabilityPolicy
                                                            .RELIABLE))
        state = JointState(name=list(chain.joint_names), position=[float(v) for v in home])
        node.create_timer(0.005, lambda: joints.publish(state))
        if not peer.spin_until(lambda: target_publisher.get_subscription_count() > 0, 20.0):
            return [f'{rate:>8.0f}  node did not start']
        peer.spin_for(1.0)
        latencies = []
        for index in range(20):
            sign, message = targets[index % 2]
            sent = time.monotonic()
            target_publisher.publish(message)
            peer.spin_until(lambda: arrivals and arrivals[-1][0] >= sent
                            and np.sign(arrivals[-1][1]) == sign, 2.0)
            moving = [arrival for arrival, velocity in arrivals
                      if arrival >= sent and np.sign(velocity) == sign]
            if moving:
                latencies.append(moving[0] - sent)
            peer.spin_for(0.05)
        del stamps[:]
        cpu_start, wall_start = cpu_seconds(process.process.pid), time.monotonic()
        peer.spin_for(seconds)
        cpu = (cpu_seconds(process.process.pid) - cpu_start) / (time.monotonic() - wall_start)
    finally:
        peer.close()
        process.stop()
    periods = np.diff(np.array(stamps))
    jitter = np.abs(periods - 1.0 / rate) * 1e3
    achieved = len(periods) / (stamps[-1] - stamps[0]) if len(periods) else 0.0
    latency = np.array(latencies) * 1e3
    return [f'{rate:>8.0f}{achieved:>10.1f}{np.percentile(jitter, 50):>10.3f}'
            f'{np.percentile(jitter, 99):>10.3f}{100.0 * cpu:>8.1f}'
            f'{np.percentile(latency, 50):>10.2f}{np.percentile(latency, 99):>10.2f}'
            f'{len(latency):>6}']


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--rates', type=float, nargs='+', default=[100.0, 500.0, 1000.0])
    parser.add_argument('--seconds', type=float, default=5.0, help='window per rate [s]')
    args = parser.parse_args()
    print(f'ik_node, {ARM} arm (7 DOF), servo mode, JointState commands')
    print(f'{"rate Hz":>8}{"achieved":>10}{"jit p50":>10}{"jit p99":>10}{"CPU %":>8}'
          f'{"lat p50":>10}{"lat p99":>10}{"n lat":>6}   (jitter, latency in ms)')
    with tempfile.TemporaryDirectory() as folder:
        for rate in args.rates:
            for row in measure(rate, args.seconds, os.path.join(folder, f'{rate}.log')):
                print(row, flush=True)


if __name__ == '__main__':
    main()
