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
Node benchmark: motion limits and reach over random-target sessions; latency and rate.

Sessions (``--session-seconds``, default 60 s per bundled arm and mode): ``sim_arm`` in
strict mode (it faults on a command beyond its velocity or acceleration limits) and
``ik_node`` as real processes; random reachable targets (FK of random joints within the
limits, 5 % inside each bound; servo: within ``--radius`` rad of the current joints), each
followed until reached (1 mm, 0.01 rad) or 10 s. Per session: the peak commanded velocity,
acceleration and jerk over the joint's limit (divided differences over the command
stamps; velocity over ``velocity_scale`` x limit), the strict arm's faults and the reach
rate. A second table reports servo reach rates on the Panda by target distance (0.5, 1,
2 rad).

Driver rates (``--state-rates``, ``--rates``): ``ik_node`` (servo mode, Panda-class 7-DOF
arm, JointState commands, its SRDF) for each joint_states rate and ``update_rate``, a
perfect arm in the bench process (joint_states published at that rate, where the last
command put it), two targets alternating on either side of the arm. Per row, over a
window with the arm at rest at a reached target and one with the arm moving (the two
targets alternating every ``MOVING_TARGET_PERIOD`` s, before the arm settles):

* commands per second: of those the bench received in the window, by their stamps (a
  backlog in the bench's own process at either end of the window does not count);
* node CPU (utime + stime from /proc, share of one core);
* latency p50 / p99 / max (ms): from publishing a target, with the arm at rest, to
  receiving the first command that moves toward it (a node that waits for its timer adds
  up to a period; one that answers a target at rest on arrival does not), over
  ``--latency-targets`` targets (20 by default: p99 is then nearly the max; 100 or more
  for a p99 of its own, about 2 s per target); after two warm-up targets (the first
  motions after start-up run code paths for the first time). Received: the
  middleware's reception stamp of the command (Fast DDS stamps a sample as its reader
  gets it, system clock), what a controller that takes commands in its own loop sees.
  The bench takes the commands itself, as :mod:`ros_ik.node.polled_inputs` takes
  joint_states, before each joint_states message it publishes: a Python callback per
  command would add whatever the bench's executor was doing before it runs (0.25 ms at
  the median, 0.3 at p99 on a 2-core machine).

A last row floods the node with 1000 targets per second (its rate and CPU in the moving
columns; joint_states at 1 kHz,
update_rate 100). ``--baseline DIR`` runs every row with the node of an earlier source
tree too (``git worktree add DIR <commit>``; its node runs as ``python -m ros_ik.node.ik_node``
from DIR and compiles its kernels on its first start), for a before/after table from one
run on one machine: the two nodes take turns row by row, ``--repeats`` times, so that a
machine whose speed drifts during the run (a shared VM's does, by 20-30 %) weighs on both.
``--floor`` adds a third node to the turns of each driver-rate row, ``floor (no IK)``
(:mod:`latency_floor_node`): ik_node's topics, QoS, executor, polled joint_states and
command bytes, answering a target at once from its callback and without IK. Its latency is
what DDS, the executor's wake-ups and one publish cost on this machine; ik_node's less the
floor's is what its own work adds. Its moving columns: a command stream at the same rate
whose joint 1 moves for 0.15 s after each target (positions stay at home). Not in the
flood row (it would answer every target).

Run: ``.venv/bin/python bench/bench_node.py [--session-seconds 60] [--rates 100 500 1000]
[--state-rates 100 500 1000] [--seconds 5] [--baseline DIR] [--floor] [--repeats N]
[--collision-checking disabled]`` (``--session-seconds 0`` or
``--rates`` with no value skip a part).
"""

import argparse
from dataclasses import dataclass
import os
import random
import sys
import tempfile
import time
from typing import List, Optional, Tuple

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPOSITORY)
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', str(random.SystemRandom().randint(1, 100)))

from geometry_msgs.msg import PoseStamped  # noqa: E402
import numpy as np  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from rclpy.serialization import deserialize_message  # noqa: E402
from ros_ik.control.motion_limit_sources import (LimitDefaults,  # noqa: E402
                                                 resolve_motion_limits)
from ros_ik.control.parameters import Settings  # noqa: E402
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS,  # noqa: E402
                                            bundled_joint_limits_path, bundled_urdf_path,
                                            srdf_beside)
from ros_ik.kinematics.chain_kinematics import ChainKinematics  # noqa: E402
from ros_ik.kinematics.task_space import axes_text  # noqa: E402
from ros_ik.kinematics.transforms import pose_error  # noqa: E402
from ros_ik.kinematics.urdf_loader import load_urdf_file  # noqa: E402
from ros_ik.node.messages import pose_message  # noqa: E402
from ros_ik.node.polled_inputs import PolledInputs  # noqa: E402
from ros_ik.node.stop_signals import (install as install_stop_signals,  # noqa: E402
                                      stop_requested)
from ros_ik.tools.node_processes import NodeProcess, RosPeer  # noqa: E402
from ros_ik.trajectory.stream_check import stream_peaks  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import UInt32  # noqa: E402

ARM = 'panda'
OFFSET = 0.3  # rad on joint 1: the two targets lie on either side of the home pose
VELOCITY_SCALE = 0.5  # the node's default
TARGET_TIMEOUT = 10.0  # s per target
STARTUP_TIMEOUT = 300.0  # s: a baseline tree compiles its numba kernels at its first start
# Targets sent before the latency is measured: the first motions after start-up run code
# paths for the first time (numba dispatch, lazy imports), up to ~150 ms once.
WARM_UP_TARGETS = 2
FLOOD_RATE = 1000.0  # targets per s in the flood row
# s between the alternating targets of the moving window: shorter than a servo motion
# between them with its slow final approach, so the arm never comes to rest
MOVING_TARGET_PERIOD = 1.0
INSIDE = 0.05  # random goals stay this fraction of each joint range inside its bounds


class Session:
    """One arm and mode: strict sim_arm + ik_node, random targets, the command stream."""

    def __init__(self, arm_name: str, mode: str, folder: str) -> None:
        """Start the two processes and the bench's peer node."""
        arm = BUNDLED_ARMS[arm_name]
        self.chain = load_urdf_file(bundled_urdf_path(arm_name), arm.base_link, arm.tip_link)
        self.kinematics = ChainKinematics(self.chain)
        self.limits = resolve_motion_limits(self.chain, bundled_joint_limits_path(arm_name),
                                            LimitDefaults.of(Settings()), {}).limits
        self.base_link = arm.base_link
        model = {'robot_description_file': bundled_urdf_path(arm_name),
                 'joint_limits_file': bundled_joint_limits_path(arm_name),
                 'base_link': arm.base_link, 'tip_link': arm.tip_link}
        model['task_axes'] = f'"{axes_text(arm.task_rows)}"'
        home = '[' + ', '.join(repr(v) for v in arm.home) + ']'
        self.processes = [
            NodeProcess('sim_arm', {**model, 'initial_positions': home, 'strict': True},
                        os.path.join(folder, f'sim_{arm_name}_{mode}.log'),
                        ['-r', 'joint_commands:=/ros_ik/joint_commands']),
            NodeProcess('ik_node', {**model, 'mode': mode, 'velocity_scale': VELOCITY_SCALE},
                        os.path.join(folder, f'ik_{arm_name}_{mode}.log'))]
        self.rows = list(arm.task_rows)
        self.peer = RosPeer('bench_session', stop_requested)
        self.epoch = int(time.time())
        self.stamps: List[float] = []
        self.commands: List[np.ndarray] = []
        self.q = None
        self.faults = 0
        node = self.peer.node
        reliable = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        node.create_subscription(JointState, '/ros_ik/joint_commands', self._on_command,
                                 reliable)
        node.create_subscription(JointState, 'joint_states', self._on_state, reliable)
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(UInt32, '/sim_arm/faults', self._on_faults, latched)
        self.targets = node.create_publisher(PoseStamped, '/ros_ik/target_pose', QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE))

    def _on_command(self, message: JointState) -> None:
        stamp = message.header.stamp
        self.stamps.append((stamp.sec - self.epoch) + stamp.nanosec * 1e-9)
        self.commands.append(np.array(message.position))

    def _on_state(self, message: JointState) -> None:
        self.q = np.array(message.position)

    def _on_faults(self, message: UInt32) -> None:
        self.faults = message.data

    def error(self, T_base_target: np.ndarray) -> float:
        """Return the larger of the position (m) and rotation (rad) error on the task rows."""
        e_p, e_o = pose_error(T_base_target, self.kinematics.tip_pose(self.q))
        error = np.concatenate([e_p, e_o])[self.rows]
        return float(max(np.linalg.norm(error[:3]), np.linalg.norm(error[3:]) if len(error) > 3
                         else 0.0))

    def reach(self, q_goal: np.ndarray) -> bool:
        """Send the pose of ``q_goal``; return whether the arm reached it in time."""
        T_base_target = self.kinematics.tip_pose(q_goal)
        message = PoseStamped(pose=pose_message(T_base_target))
        message.header.frame_id = self.base_link
        self.targets.publish(message)
        return self.peer.spin_until(lambda: self.error(T_base_target) < 1e-3, TARGET_TIMEOUT)

    def run(self, seconds: float, radius: float, rng: np.random.Generator) -> tuple:
        """Send random targets for ``seconds``; return (sent, reached)."""
        if not self.peer.spin_until(lambda: self.q is not None
                                    and self.targets.get_subscription_count() > 0, 30.0):
            raise RuntimeError('sim_arm or ik_node did not start')
        lower, upper = self.chain.lower, self.chain.upper
        span = np.minimum(upper - lower, 2 * np.pi)
        low = np.maximum(lower, -np.pi) + INSIDE * span
        high = np.minimum(upper, np.pi) - INSIDE * span
        end, sent, reached = time.monotonic() + seconds, 0, 0
        while time.monotonic() < end:
            goal = rng.uniform(low, high)
            if radius:
                goal = np.clip(self.q + rng.uniform(-radius, radius, len(self.q)), low, high)
            sent += 1
            reached += self.reach(goal)
        return sent, reached

    def peaks(self) -> np.ndarray:
        """Return the peak v, a, j over their limits (v over velocity_scale x limit)."""
        limits = self.limits
        peaks = stream_peaks(np.array(self.stamps), np.array(self.commands), limits.lower,
                             limits.upper)
        return peaks.ratios(VELOCITY_SCALE * limits.velocity, limits.acceleration,
                            limits.jerk)

    def close(self) -> None:
        """Stop everything."""
        self.peer.close()
        for process in self.processes:
            process.stop()


def run_session(arm_name: str, mode: str, seconds: float, radius: float,
                folder: str) -> tuple:
    """Return (sent, reached, peak ratios (3,), faults) of one session."""
    session = Session(arm_name, mode, folder)
    try:
        sent, reached = session.run(seconds, radius, np.random.default_rng(7))
        session.peer.spin_for(0.5)
        return sent, reached, session.peaks(), session.faults
    finally:
        session.close()


def print_sessions(seconds: float, folder: str, arm_names: List[str]) -> None:
    """Print the limit and reach table of each arm and mode, then servo by radius (Panda)."""
    print(f'random-target sessions, {seconds:.0f} s each, strict sim_arm; peak v/a/j: '
          'largest commanded value / limit over the session (from command stamps)')
    print(f'{"arm":<14}{"mode":<7}{"targets":>8}{"reached":>9}{"peak v":>8}{"peak a":>8}'
          f'{"peak j":>8}{"faults":>7}')
    for arm_name in arm_names:
        for mode in ('solve', 'servo'):
            sent, reached, ratios, faults = run_session(arm_name, mode, seconds, 0.0, folder)
            print(f'{arm_name:<14}{mode:<7}{sent:>8}{100.0 * reached / max(sent, 1):>8.1f}%'
                  f'{ratios[0]:>8.4f}{ratios[1]:>8.4f}{ratios[2]:>8.4f}{faults:>7}',
                  flush=True)
    if 'panda' not in arm_names:
        return
    print(f'\nservo on the panda, targets within a radius of the current joints '
          f'({seconds:.0f} s each)')
    print(f'{"radius rad":>10}{"targets":>8}{"reached":>9}{"peak a":>8}{"faults":>7}')
    for radius in (0.5, 1.0, 2.0):
        sent, reached, ratios, faults = run_session('panda', 'servo', seconds, radius, folder)
        print(f'{radius:>10.1f}{sent:>8}{100.0 * reached / max(sent, 1):>8.1f}%'
              f'{ratios[1]:>8.4f}{faults:>7}', flush=True)


@dataclass(frozen=True)
class NodeVersion:
    """The node of a row: its label, and what runs instead of the installed ``ik_node``."""

    label: str
    program: Optional[List[str]] = None  # None: the installed ik_node
    environment: Optional[dict] = None  # added to the bench's for ``program``


THIS_TREE = NodeVersion('this tree')
# ik_node's plumbing without IK (bench/latency_floor_node.py): the latency floor
FLOOR = NodeVersion('floor (no IK)', [sys.executable, '-P',
                                      os.path.join(REPOSITORY, 'bench',
                                                   'latency_floor_node.py')])


def baseline_version(tree: str) -> NodeVersion:
    """Return the node of an earlier source tree (``python -m ros_ik.node.ik_node`` there)."""
    return NodeVersion('before', [sys.executable, '-P', '-m', 'ros_ik.node.ik_node'],
                       {'PYTHONPATH': tree})


def cpu_seconds(pid: int) -> float:
    """Return user + system CPU time (s) of process ``pid`` from /proc."""
    with open(f'/proc/{pid}/stat', encoding='ascii') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


class NodeUnderLoad:
    """ik_node (servo, the Panda, JointState commands) fed by a driver-rate peer."""

    def __init__(self, update_rate: float, state_rate: float, log_path: str,
                 version: NodeVersion, collision_checking: str) -> None:
        """Start the node (``version``'s) and the peer."""
        arm = BUNDLED_ARMS[ARM]
        chain = load_urdf_file(bundled_urdf_path(ARM), arm.base_link, arm.tip_link)
        kinematics = ChainKinematics(chain)
        home = np.array(arm.home)
        self.targets = []
        for sign in (1.0, -1.0):
            goal = home.copy()
            goal[0] += sign * OFFSET
            message = PoseStamped()
            message.header.frame_id = arm.base_link
            message.pose = pose_message(kinematics.tip_pose(goal))
            self.targets.append((sign, message))
        self.process = NodeProcess(
            'ik_node', {'robot_description_file': bundled_urdf_path(ARM),
                        'joint_limits_file': bundled_joint_limits_path(ARM),
                        'robot_description_semantic_file': srdf_beside(bundled_urdf_path(ARM)),
                        'base_link': arm.base_link, 'tip_link': arm.tip_link,
                        'mode': 'servo', 'update_rate': float(update_rate),
                        'collision_checking': collision_checking}, log_path,
            program=version.program, environment=version.environment)
        self.peer = RosPeer('bench_node', stop_requested, node_executor=True)
        self.arrivals: List[tuple] = []
        self.state = JointState(name=list(chain.joint_names),
                                position=[float(v) for v in home])
        node = self.peer.node
        reliable = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        self._inputs = PolledInputs(node)
        self._commands = self._inputs.subscribe(JointState, '/ros_ik/joint_commands', reliable)
        joints = node.create_publisher(JointState, 'joint_states', 10)
        self.target_publisher = node.create_publisher(
            PoseStamped, '/ros_ik/target_pose',
            QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE))

        def publish_joint_states() -> None:
            self._take_commands()
            joints.publish(self.state)
        node.create_timer(1.0 / state_rate, publish_joint_states)

    def _take_commands(self) -> None:
        """
        Record the commands received since the last take; the arm is where commanded.

        Kept per command: its reception stamp (system clock, s; where the middleware has
        none, the time of the take), the first joint's velocity and the stamp (s). Taken
        with ``now`` 0, each receive time is the stamp's offset (s, <= 0) from the wall
        clock that the take reads at its end, here just after it.
        """
        taken = self._commands.take(0.0)
        taken_at = time.time()
        for data, offset in taken:
            message = deserialize_message(data, JointState)
            stamp = message.header.stamp
            self.arrivals.append((taken_at + offset, message.velocity[0],
                                  stamp.sec + 1e-9 * stamp.nanosec))
            self.state.position = list(message.position)

    def started(self) -> bool:
        """Wait for the node's target subscription (a baseline may compile its kernels)."""
        return self.peer.spin_until(
            lambda: self.target_publisher.get_subscription_count() > 0, STARTUP_TIMEOUT)

    def latencies(self, count: int) -> np.ndarray:
        """Return the target -> first moving command delays (s) of ``count`` targets."""
        peer, arrivals = self.peer, self.arrivals
        latencies = []
        for index in range(count):
            sign, message = self.targets[index % 2]
            sent = time.time()
            self.target_publisher.publish(message)
            peer.spin_until(lambda: arrivals and arrivals[-1][0] >= sent
                            and np.sign(arrivals[-1][1]) == sign, 2.0)
            moving = [arrival for arrival, velocity, _ in arrivals
                      if arrival >= sent and np.sign(velocity) == sign]
            if moving:
                latencies.append(moving[0] - sent)
            # the next target starts from rest: the first moving command is the response
            peer.spin_until(lambda: arrivals[-1][1] == 0.0 and arrivals[-1][0] > sent + 0.1,
                            5.0)
        return np.array(latencies)

    def load(self, seconds: float, target_rate: float = 0.0) -> Tuple[float, float]:
        """
        Return (commands per s, node CPU share) over ``seconds``.

        ``target_rate``: the two targets alternate at that rate (per s) from 1 s before the
        window (0: none, the arm at rest where the last target left it). The rate is that
        of the commands received in the window by their stamps (the node's clock), so that
        a backlog of the bench's own at either end of the window does not count.
        """
        if target_rate:
            index = [0]

            def alternate() -> None:
                index[0] += 1
                self.target_publisher.publish(self.targets[index[0] % 2][1])
            self.peer.node.create_timer(1.0 / target_rate, alternate)
        self.peer.spin_for(1.0)
        received = len(self.arrivals)
        cpu_start, wall_start = cpu_seconds(self.process.process.pid), time.monotonic()
        self.peer.spin_for(seconds)
        wall = time.monotonic() - wall_start
        stamps = [stamp for _, _, stamp in self.arrivals[received:]]
        span = stamps[-1] - stamps[0] if len(stamps) > 1 else 0.0
        return ((len(stamps) - 1) / span if span > 0.0 else 0.0,
                (cpu_seconds(self.process.process.pid) - cpu_start) / wall)

    def close(self) -> None:
        """Stop the peer and the node."""
        self._inputs.destroy()
        self.peer.close()
        self.process.stop()


def measure(update_rate: float, state_rate: float, seconds: float, log_path: str,
            version: NodeVersion, collision_checking: str, latency_targets: int,
            flood_rate: float = 0.0) -> str:
    """
    Return one row: rate and CPU at rest and moving, latency p50 / p99 / max (ms).

    A flood row (``flood_rate`` targets per s, the two targets alternating) has the flood's
    rate and CPU in the moving columns.
    """
    load = NodeUnderLoad(update_rate, state_rate, log_path, version, collision_checking)
    try:
        if not load.started():
            return f'| {state_rate:.0f} | {update_rate:.0f} | node did not start | | | | |'
        load.latencies(WARM_UP_TARGETS)
        if flood_rate:
            received, cpu = load.load(seconds, flood_rate)
            return (f'| {state_rate:.0f} + {flood_rate:.0f} targets/s | {update_rate:.0f} | '
                    f'- | - | {received:.1f} | {100.0 * cpu:.0f} % | - |')
        latency = load.latencies(latency_targets) * 1e3
        received, cpu = load.load(seconds)
        moving_received, moving_cpu = load.load(seconds, 1.0 / MOVING_TARGET_PERIOD)
    finally:
        load.close()
    return (f'| {state_rate:.0f} | {update_rate:.0f} | {received:.1f} | {100.0 * cpu:.0f} % | '
            f'{moving_received:.1f} | {100.0 * moving_cpu:.0f} % | '
            f'{np.percentile(latency, 50):.2f} / {np.percentile(latency, 99):.2f} / '
            f'{latency.max():.2f} |')


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--session-seconds', type=float, default=60.0,
                        help='length of each random-target session [s]; 0 skips them')
    parser.add_argument('--arms', nargs='+', default=list(BUNDLED_ARMS),
                        choices=sorted(BUNDLED_ARMS), help='arms of the sessions')
    parser.add_argument('--rates', type=float, nargs='*', default=[100.0, 500.0, 1000.0],
                        help='update_rate values of the driver-rate table')
    parser.add_argument('--state-rates', type=float, nargs='*',
                        default=[100.0, 500.0, 1000.0], help='joint_states rates [Hz]')
    parser.add_argument('--seconds', type=float, default=5.0, help='window per row [s]')
    parser.add_argument('--collision-checking', default='enabled',
                        choices=['enabled', 'disabled'], help="the node's collision_checking")
    parser.add_argument('--baseline', default='',
                        help='an earlier ros_ik source tree (e.g. a git worktree) whose node '
                             "runs each row just before this tree's, for a before/after table")
    parser.add_argument('--latency-targets', type=int, default=20,
                        help='targets per row whose latency is measured (100 or more for '
                             'a p99 that is not the max)')
    parser.add_argument('--floor', action='store_true',
                        help='run each driver-rate row with the latency floor node too '
                             '(bench/latency_floor_node.py: the plumbing without IK)')
    parser.add_argument('--repeats', type=int, default=1,
                        help='measurements of each row per node, the nodes taking turns')
    args = parser.parse_args()
    if args.repeats < 1 or args.latency_targets < 1:
        parser.error('--repeats and --latency-targets must be at least 1')
    with tempfile.TemporaryDirectory() as folder:
        if args.session_seconds > 0:
            print_sessions(args.session_seconds, folder, args.arms)
    if not args.rates:
        return
    versions = ([baseline_version(os.path.abspath(args.baseline)), NodeVersion('after')]
                if args.baseline else [THIS_TREE]) + ([FLOOR] if args.floor else [])
    print(f'\nik_node, {ARM} arm (7 DOF), servo mode, JointState commands, collision_checking '
          f'{args.collision_checking}, a perfect arm in the bench process; each row measured '
          f'{args.repeats} time(s) per node, the nodes taking turns')
    print('| node | joint_states Hz | update_rate | at rest: commands per s | '
          'node CPU | moving: commands per s | node CPU | '
          f'target -> first moving command p50 / p99 / max ms ({args.latency_targets} '
          'targets) |')
    print('|---|---|---|---|---|---|---|---|')
    rows = [(rate, state_rate, 0.0) for state_rate in args.state_rates
            for rate in args.rates] + [(100.0, 1000.0, FLOOD_RATE)]
    with tempfile.TemporaryDirectory() as folder:
        for index, (rate, state_rate, flood_rate) in enumerate(rows):
            for repeat in range(args.repeats):
                for number, version in enumerate(versions):
                    if flood_rate and version is FLOOR:
                        continue  # it answers every target: not the flood ik_node meets
                    log = os.path.join(folder, f'node{number}_{index}_{repeat}.log')
                    row = measure(rate, state_rate, args.seconds, log, version,
                                  args.collision_checking, args.latency_targets, flood_rate)
                    print(f'| {version.label} {row}', flush=True)


if __name__ == '__main__':
    # Ctrl-C or SIGTERM: the peer's next spin raises KeyboardInterrupt, the row's or
    # session's cleanup stops its processes, then a clean exit.
    install_stop_signals()
    try:
        from bench_report import run_documented
        run_documented('bench_node', main)
    except KeyboardInterrupt:
        print('\nbench interrupted; its processes stopped')
