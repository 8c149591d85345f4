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
What the browser view costs the IK node, how fast the page follows, drag to first command.

The bundled UR5: sim_arm (1 kHz integration and joint_states) and ik_node (servo, update
rate 1 kHz) as processes, a new pose target every 2 s. Rows: ik_node's CPU (share of one
core, /proc) without the web view, and with ``ros_ik_web`` serving a page open in headless
Chromium (Debian's, driven by Playwright). With the page: the redraws of the arm sent to it
per second while the arm moves (``ros_ik_web: view`` on /diagnostics; each is one batch of
body poses over the page's websocket), and ``ros_ik_web``'s own CPU. Then, from rest at
home, ``--drags`` drags of the gizmo's z arrow by the mouse (alternately up and down): the
delay from the mouse's first move to the first moving command of ik_node the bench
receives (wall clock, loopback), p50 / p99 / max.

Run: ``.venv/bin/python bench/bench_web.py [--seconds 20] [--drags 20]`` after
``make install``; needs ``chromium`` (``apt-get install chromium``).
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
from rclpy.serialization import deserialize_message
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path, load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.node.messages import pose_message
from ros_ik.node.polled_inputs import PolledInputs
from ros_ik.tools.node_processes import ProcessGroup, RosPeer
from ros_ik.web.page import arm_reach, GIZMO_SCALE, project_to_page
from sensor_msgs.msg import JointState

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [BENCH, os.path.join(os.path.dirname(BENCH), 'test')]  # bench_node, ros_ik_testing
from bench_node import cpu_seconds  # noqa: E402, I100 (the benchmark folder's helper)
from ros_ik_testing.headless_browser import (CHROMIUM_FLAGS, chromium_path,  # noqa: E402
                                             free_port, GIZMO_ARROW_COLOURS, nearest_pixel,
                                             page_image)

UR5 = BUNDLED_ARMS['ur5']
WIDTH, HEIGHT = 1000, 700
PAINTED_FRAMES = """() => new Promise(resolve => {
  let frames = 0; const start = performance.now();
  const tick = () => { frames += 1;
    if (performance.now() - start < 2000) requestAnimationFrame(tick);
    else resolve(frames * 1000 / (performance.now() - start)); };
  requestAnimationFrame(tick); })"""
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
RELIABLE = QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE)


class Loop:
    """sim_arm and ik_node (UR5, 1 kHz), optionally ros_ik_web; commands with arrival times."""

    def __init__(self, folder: str, web_port: int = 0) -> None:
        """Start the processes (the web view when ``web_port``); wait for the node."""
        path = bundled_urdf_path('ur5')
        model = {'robot_description_file': path, 'base_link': UR5.base_link,
                 'tip_link': UR5.tip_link}
        home = '[' + ', '.join(repr(float(v)) for v in UR5.home) + ']'
        self.group = ProcessGroup()
        self.peer = RosPeer('bench_web')
        self.arrivals = []  # (wall time, largest |velocity|)
        self.ik = self.group.start('ik_node', {**model, 'update_rate': 1000.0, 'mode': 'servo',
                                               'velocity_scale': 0.5},
                                   os.path.join(folder, f'ik_{web_port}.log'))
        self.group.start('sim_arm', {**model, 'initial_positions': home, 'rate': 1000.0,
                                     'state_rate': 1000.0},
                         os.path.join(folder, f'sim_{web_port}.log'),
                         ['-r', 'joint_commands:=/ros_ik/joint_commands'])
        self.web = (self.group.start('ros_ik_web', {**model, 'port': web_port},
                                     os.path.join(folder, 'web.log')) if web_port else None)
        node = self.peer.node
        # Polled with the middleware's reception stamps: a callback's time would include
        # the bench's own backlog while Playwright holds its thread.
        self._inputs = PolledInputs(node)
        self._commands = self._inputs.subscribe(JointState, '/ros_ik/joint_commands',
                                                RELIABLE)
        self._page_targets = self._inputs.subscribe(PoseStamped, '/ros_ik/target_pose',
                                                    RELIABLE)
        self.page_targets = []  # (reception wall time, pose) of the page's targets
        node.create_timer(0.02, self.poll)
        self.targets = node.create_publisher(PoseStamped, '/ros_ik/target_pose', LATCHED)
        self.kinematics = ChainKinematics(load_bundled_chain('ur5'))
        if not self.peer.spin_until(lambda: self.targets.get_subscription_count() > 0
                                    and (self.web is None or f':{web_port}'
                                         in self.web.output()), 60.0):
            raise RuntimeError(f'the processes did not come up; logs in {folder}')

    def poll(self) -> None:
        """Take the commands and page targets received, with their reception times."""
        for topic, keep in ((self._commands, self._keep_command),
                            (self._page_targets, self._keep_target)):
            taken = topic.take(0.0)
            taken_at = time.time()
            for data, offset in taken:
                keep(taken_at + offset, data)

    def _keep_command(self, received: float, data: bytes) -> None:
        message = deserialize_message(data, JointState)
        self.arrivals.append((received, float(np.max(np.abs(message.velocity)))))

    def _keep_target(self, received: float, data: bytes) -> None:
        message = deserialize_message(data, PoseStamped)
        if message.header.stamp.sec:  # the page stamps its targets, the bench does not
            self.page_targets.append((received, pose_of(message)))

    def send_random_target(self, rng) -> None:
        """Publish a pose target a random joint offset (within 0.4 rad) from home."""
        q = np.array(UR5.home) + rng.uniform(-0.4, 0.4, self.kinematics.n_joints)
        message = PoseStamped(pose=pose_message(self.kinematics.tip_pose(q)))
        message.header.frame_id = UR5.base_link
        self.targets.publish(message)

    def cpu(self, seconds: float, rng, processes) -> list:
        """Return the CPU share (%) of ``processes`` over ``seconds`` of moving targets."""
        start = [cpu_seconds(process.process.pid) for process in processes]
        wall = time.monotonic()
        while time.monotonic() - wall < seconds:
            self.send_random_target(rng)
            self.peer.spin_for(2.0)
        elapsed = time.monotonic() - wall
        return [100.0 * (cpu_seconds(process.process.pid) - before) / elapsed
                for process, before in zip(processes, start)]

    def wait_at_rest(self, timeout: float = 10.0) -> bool:
        """Wait until every command of the last 0.3 s is at rest (velocity 0)."""
        def resting() -> bool:
            recent = [v for t, v in self.arrivals if t > time.time() - 0.3]
            return bool(recent) and max(recent) == 0.0
        return self.peer.spin_until(resting, timeout)

    def close(self) -> None:
        """Stop everything."""
        self.peer.close()
        self.group.stop_all()


def arrow_pixel(page, loop: Loop):
    """Return the screen pixel of the gizmo's z arrow and its screen direction (or None)."""
    gizmo = loop.gizmo_pose
    length = GIZMO_SCALE * arm_reach(loop.kinematics)
    centre, tip = project_to_page(np.array([gizmo[:3, 3], gizmo[:3, 3] + 0.6 * length
                                            * gizmo[:3, 2]]), loop.kinematics, WIDTH, HEIGHT)
    handle = nearest_pixel(page_image(page), GIZMO_ARROW_COLOURS[2], tip, 40.0)
    return handle, (tip - centre) / np.linalg.norm(tip - centre)


def drag_latencies(loop: Loop, page, drags: int) -> tuple:
    """
    Return two delays (s) per drag of the gizmo, from the middleware's reception stamps.

    First mouse move -> the page's first changed target received (the gizmo's first update
    of a drag may repeat where it sat: that one moves nothing); that target -> the first
    moving command received.
    """
    latencies, page_delays = [], []
    home = loop.kinematics.tip_pose(np.array(UR5.home))
    message = PoseStamped(pose=pose_message(home))
    message.header.frame_id = UR5.base_link
    loop.targets.publish(message)  # where the gizmo was placed: the tool at home
    for index in range(drags):
        loop.wait_at_rest()
        loop.gizmo_pose = loop.page_targets[-1][1] if loop.page_targets else home
        handle, direction = arrow_pixel(page, loop)
        if handle is None:
            continue
        sign = 1.0 if index % 2 == 0 else -1.0
        page.mouse.move(float(handle[0]), float(handle[1]))
        page.mouse.down()
        sent = time.time()
        for step in range(1, 11):  # 4 px every 30 ms, as a hand drags
            u, v = handle + sign * direction * 4.0 * step
            page.mouse.move(float(u), float(v))
            loop.peer.spin_for(0.03)
        page.mouse.up()
        loop.peer.spin_until(lambda: any(t >= sent and v > 0.0 for t, v in loop.arrivals),
                             5.0)
        targets = [t for t, T in loop.page_targets
                   if t >= sent and not np.allclose(T, loop.gizmo_pose, atol=1e-9)]
        moving = [t for t, v in loop.arrivals if targets and t >= targets[0] and v > 0.0]
        if moving:
            page_delays.append(targets[0] - sent)
            latencies.append(moving[0] - targets[0])
        loop.peer.spin_for(0.5)
    return np.array(page_delays), np.array(latencies)


def pose_of(message: PoseStamped) -> np.ndarray:
    """Return a PoseStamped's pose as a 4x4 matrix."""
    from ros_ik.kinematics.transforms import pose_matrix
    p, q = message.pose.position, message.pose.orientation
    return pose_matrix((p.x, p.y, p.z), (q.x, q.y, q.z, q.w))


def main() -> None:
    """Print the CPU table and the drag latency."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--seconds', type=float, default=20.0, help='seconds per CPU row')
    parser.add_argument('--drags', type=int, default=20, help='drags timed')
    args = parser.parse_args()
    chromium = chromium_path()
    if chromium is None:
        sys.exit('bench_web needs Chromium (apt-get install chromium)')
    from playwright.sync_api import sync_playwright
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', str(random.SystemRandom().randint(1, 100)))
    folder = tempfile.mkdtemp(prefix='bench_web_')
    rng = np.random.default_rng(0)
    print(f'UR5, ik_node servo at 1 kHz, sim_arm 1 kHz, a pose target every 2 s, '
          f'{args.seconds:g} s per row; logs in {folder}')
    print('| web view | ik_node CPU | ros_ik_web CPU | arm redraws / s to the page |')
    print('|---|---|---|---|')
    loop = Loop(folder)
    try:
        loop.peer.spin_for(1.0)
        node_cpu, = loop.cpu(args.seconds, rng, [loop.ik])
    finally:
        loop.close()
    print(f'| none | {node_cpu:.0f} % | - | - |', flush=True)
    port = free_port()
    loop = Loop(folder, port)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={'width': WIDTH, 'height': HEIGHT})
            redraws = []
            loop.peer.node.create_subscription(DiagnosticArray, '/diagnostics', lambda m: [
                redraws.append(float({v.key: v.value for v in status.values}[
                    'redraws_per_second'])) for status in m.status
                if status.name == 'ros_ik_web: view'], 10)
            page.goto(f'http://127.0.0.1:{port}')
            page.wait_for_selector('canvas', timeout=30000)
            loop.peer.spin_for(3.0)
            first = len(redraws)
            node_cpu, web_cpu = loop.cpu(args.seconds, rng, [loop.ik, loop.web])
            rates = np.array(redraws[first:])
            print(f'| page open (headless Chromium) | {node_cpu:.0f} % | {web_cpu:.0f} % | '
                  f'{rates.mean():.1f} mean, {rates.min():.1f} lowest (per s) |', flush=True)
            painted = page.evaluate(PAINTED_FRAMES)
            print(f'\nthe page painted {painted:.1f} frames per second (requestAnimationFrame '
                  'over 2 s; headless Chromium renders WebGL in software here)')
            page_delays, latencies = drag_latencies(loop, page, args.drags)
            browser.close()
    finally:
        loop.close()
    print()
    if len(latencies) == 0:
        print('no drag moved the gizmo')
        return
    print(f'{len(latencies)} of {args.drags} drags moved the gizmo (ms)')
    print('| delay | p50 | p99 | max |')
    print('|---|---|---|---|')
    for label, values in (('first mouse move -> page target received', page_delays),
                          ('page target -> first moving command received', latencies),
                          ('first mouse move -> first moving command', page_delays
                           + latencies)):
        values = 1e3 * values
        print(f'| {label} | {np.percentile(values, 50):.1f} | '
              f'{np.percentile(values, 99):.1f} | {values.max():.1f} |')


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_web', main)
