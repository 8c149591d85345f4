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
TF benchmark: targets in world, camera and moving frames against the base frame.

1. Reach (in process, the controller with the TF buffer the node uses): for every bundled
   arm, ``--targets`` random reachable targets (FK of random joints 5 % inside the
   limits), each sent in the base frame, in ``world`` (the base mounted 0.5 m up, turned
   90 deg) and in a ``camera`` frame; solve mode, from the same start. Per arm and frame:
   targets reached (1 mm, 0.01 rad within 10 s of 100 Hz cycles) and the median / max
   final position and rotation error.
2. Cost of the transform on a target's way to its first command (in process, the UR5,
   servo mode: the 1 kHz latency path; a solve's first cycle is a 5 ms IK search whose
   spread hides tens of us): ``set_target`` and the cycle that commands toward it, timed
   per target (perf_counter), median and p90 over ``--targets`` targets sent from rest, per
   frame; the difference of the medians to the base frame is what the transform adds.
3. Over DDS (``--seconds``; 0 skips it), ik_node in servo mode on the Panda at update_rate
   1 kHz with joint_states at 1 kHz from a perfect arm in the bench (``bench_node``'s
   driver): the target moves along world x as ``0.05 sin(2 pi t / 2 s)`` m, either sent in
   the base frame 100 times per second, or sent once on a frame ``conveyor`` that moves so
   on /tf at 100 Hz (``world -> base`` on /tf_static). Node CPU (share of one core, from
   /proc) and the command stream's peaks over the limits from the command stamps
   (velocity over ``velocity_scale`` x limit): 0 commands outside the limits means every
   ratio <= 1; differences across a stall of the node (reported, counted) left out.
   Then target -> first moving command latency (ms, p50 / p99) of the two
   alternating targets of ``bench_node`` sent in the base frame and in ``world``.

Run: ``.venv/bin/python bench/bench_tf.py [--targets 100] [--seconds 10] [--repeats 2]``.
"""

import argparse
import math
import os
import sys
import tempfile
import time
from typing import Dict, List, Tuple

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
import bench_node  # noqa: E402  (the repository path, DDS isolation, the driver)

from geometry_msgs.msg import PoseStamped, TransformStamped  # noqa: E402
import numpy as np  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from rclpy.serialization import deserialize_message  # noqa: E402
from ros_ik.control.arm import ControlledArm  # noqa: E402
from ros_ik.control.command_stream import MAX_STEP_PERIODS  # noqa: E402
from ros_ik.control.controller import IkController  # noqa: E402
from ros_ik.control.frame_source import BufferFrames  # noqa: E402
from ros_ik.control.motion_limit_sources import (LimitDefaults,  # noqa: E402
                                                 resolve_motion_limits)
from ros_ik.control.parameters import Settings  # noqa: E402
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS,  # noqa: E402
                                            bundled_joint_limits_path, bundled_urdf_path,
                                            load_bundled_chain)
from ros_ik.kinematics.task_space import axes_text  # noqa: E402
from ros_ik.kinematics.transform_buffer import TransformBuffer  # noqa: E402
from ros_ik.kinematics.transforms import (matrix_to_quaternion, pose_error,  # noqa: E402
                                          pose_matrix, rpy_to_matrix, transform)
from ros_ik.node.messages import pose_message  # noqa: E402
from ros_ik.trajectory.stream_check import divided_differences  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

MOUNT = ((0.0, 0.0, 0.5), (0.0, 0.0, math.pi / 2))  # world -> base: xyz m, rpy rad
CAMERA = ((0.8, 0.1, 1.6), (math.pi, 0.0, math.pi / 2))  # world -> camera
PERIOD = 0.01  # s: the in-process loop's cycle
REACH_SECONDS = 10.0
AMPLITUDE, CYCLE = 0.05, 2.0  # m, s: the moving target's motion along world x
TF_RATE = 100.0  # Hz of /tf (and of the base-frame target stream)
STREAM_PERIOD = 0.001  # s: the node's update_rate in the DDS rows
STATIC_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)


def T_of(xyz_rpy) -> np.ndarray:
    """Return the 4x4 of (xyz m, rpy rad)."""
    return transform(rpy_to_matrix(*xyz_rpy[1]), np.array(xyz_rpy[0]))


def quaternion_of(T: np.ndarray) -> Tuple[float, ...]:
    """Return the quaternion (xyzw) of a 4x4."""
    return tuple(matrix_to_quaternion(T[:3, :3]))


def mounted_controller(arm_name: str, mode: str = 'solve') -> Tuple[IkController, dict]:
    """Return a controller of a bundled arm with world and camera in its TF, and the clock."""
    arm = BUNDLED_ARMS[arm_name]
    axes = axes_text(arm.task_rows)
    controlled = ControlledArm.from_urdf(open(bundled_urdf_path(arm_name)).read(),
                                         arm.base_link, arm.tip_link, axes)
    settings = Settings.from_values({'base_link': arm.base_link, 'tip_link': arm.tip_link,
                                     'task_axes': axes, 'mode': mode,
                                     'joint_limits_file': bundled_joint_limits_path(arm_name)})
    buffer = TransformBuffer()
    for child, mount in ((arm.base_link, MOUNT), ('camera', CAMERA)):
        T = T_of(mount)
        buffer.set_transform('world', child, 0.0, T[:3, 3], quaternion_of(T), True)
    clock = {'now': 0.0}
    frames = BufferFrames(buffer, arm.base_link, lambda: clock['now'], lambda: 1.0)
    limits = resolve_motion_limits(controlled.chain, settings.joint_limits_file,
                                   LimitDefaults.of(settings), {}).limits
    return IkController(controlled, settings, limits, frames=frames), clock


def frame_poses(base_link: str) -> Dict[str, np.ndarray]:
    """Return T_base_frame of the base, world and camera."""
    T_base_world = np.linalg.inv(T_of(MOUNT))
    return {base_link: np.eye(4), 'world': T_base_world,
            'camera': T_base_world @ T_of(CAMERA)}


def random_goals(arm_name: str, count: int, seed: int) -> np.ndarray:
    """Return ``count`` random joint vectors 5 % inside the limits (seeded)."""
    controller, _ = mounted_controller(arm_name)
    lower, upper = controller.arm.chain.sampling_bounds()
    margin = 0.05 * (upper - lower)
    return np.random.default_rng(seed).uniform(lower + margin, upper - margin,
                                               size=(count, len(lower)))


def reach(arm_name: str, frame: str,
          goals: np.ndarray) -> Tuple[int, List[float], List[float]]:
    """Send each goal's pose in ``frame`` from home; return (reached, pos. and rot. errors)."""
    home = np.array(BUNDLED_ARMS[arm_name].home)
    reached, position_errors, rotation_errors = 0, [], []
    for q_goal in goals:
        controller, clock = mounted_controller(arm_name)
        chain, kinematics = controller.arm.chain, controller.arm.kinematics
        T_base_target = kinematics.tip_pose(q_goal)
        T_frame_target = np.linalg.inv(frame_poses(chain.base_link)[frame]) @ T_base_target
        controller.set_target(frame, T_frame_target[:3, 3], quaternion_of(T_frame_target),
                              'pose')
        q, now, rows = home.copy(), 0.0, controller.arm.task_rows
        while now < REACH_SECONDS:
            clock['now'] = now
            controller.update_joint_state(chain.joint_names, q, now)
            result = controller.cycle(now)
            if result.command is not None:
                q = result.command.q
            now += PERIOD
        e_p, e_o = pose_error(T_base_target, kinematics.tip_pose(q))
        error = np.concatenate([e_p, e_o])[list(rows)]
        position = float(np.linalg.norm(error[:3]))
        rotation = float(np.linalg.norm(error[3:]))
        reached += position <= 1e-3 and rotation <= 1e-2
        position_errors.append(position)
        rotation_errors.append(rotation)
    return reached, position_errors, rotation_errors


def print_reach(count: int) -> None:
    """Print table 1."""
    print(f'1. reach: {count} random targets per arm and frame, solve mode, from home')
    print('| arm | frame | reached | pos err median / max (m) | rot err median / max (rad) |')
    print('|---|---|---|---|---|')
    for arm_name in sorted(BUNDLED_ARMS):
        goals = random_goals(arm_name, count, 7)
        for frame in (BUNDLED_ARMS[arm_name].base_link, 'world', 'camera'):
            reached, position, rotation = reach(arm_name, frame, goals)
            print(f'| {arm_name} | {frame} | {reached} / {count} | '
                  f'{np.median(position):.1e} / {max(position):.1e} | '
                  f'{np.median(rotation):.1e} / {max(rotation):.1e} |', flush=True)


FRAMES = ('base_link', 'world', 'camera')


def first_command_costs(goals: np.ndarray) -> Dict[str, np.ndarray]:
    """
    Return per frame the set_target + first-cycle times (s) of targets sent from rest.

    One controller; each goal is sent in the three frames in turn (interleaved, so a
    machine whose speed drifts weighs on all of them alike), each time from rest at home.
    """
    controller, clock = mounted_controller('ur5', 'servo')
    chain, kinematics = controller.arm.chain, controller.arm.kinematics
    poses = frame_poses(chain.base_link)
    home = np.array(BUNDLED_ARMS['ur5'].home)
    T_home = kinematics.tip_pose(home)
    state = {'q': home.copy(), 'now': 0.0}

    def to_rest() -> None:
        for _ in range(1000):  # 10 s at most
            clock['now'] = now = state['now']
            controller.update_joint_state(chain.joint_names, state['q'], now)
            command = controller.cycle(now).command
            state['q'] = command.q if command is not None else state['q']
            state['now'] += PERIOD
            if command is not None and np.all(command.velocity == 0.0):
                return
    costs: Dict[str, List[float]] = {frame: [] for frame in FRAMES}
    for q_goal in goals:
        for frame in FRAMES:
            controller.set_target('', T_home[:3, 3], quaternion_of(T_home), 'pose')
            to_rest()  # every timed target starts from rest at home
            T = np.linalg.inv(poses[frame]) @ kinematics.tip_pose(q_goal)
            clock['now'] = now = state['now']
            controller.update_joint_state(chain.joint_names, state['q'], now)
            start = time.perf_counter()
            controller.set_target(frame, T[:3, 3], quaternion_of(T), 'pose', now)
            command = controller.cycle(now, measure=False).command
            costs[frame].append(time.perf_counter() - start)
            state['q'], state['now'] = command.q, now + PERIOD
    # the first targets run code paths for the first time
    return {frame: np.array(values[2:]) for frame, values in costs.items()}


def print_first_command(count: int, repeats: int) -> None:
    """Print table 2."""
    goals = random_goals('ur5', count, 11)
    print(f"\n2. a target's set_target + first cycle (us), UR5 servo mode from rest, "
          f'{count} targets, the frames interleaved, {repeats} turns')
    print('| turn | frame | median | p90 | median - base |')
    print('|---|---|---|---|---|')
    for turn in range(repeats):
        costs = first_command_costs(goals)
        base = np.median(costs['base_link']) * 1e6
        for frame in FRAMES:
            values = costs[frame] * 1e6
            print(f'| {turn + 1} | {frame} | {np.median(values):.0f} | '
                  f'{np.percentile(values, 90):.0f} | {np.median(values) - base:+.0f} |',
                  flush=True)


class RecordingLoad(bench_node.NodeUnderLoad):
    """bench_node's driver (ik_node, servo, Panda, 1 kHz), every command's stamp and joints."""

    def __init__(self, log_path: str) -> None:
        """Start ik_node at update_rate 1 kHz and the 1 kHz joint_states driver."""
        self.stamps: List[float] = []
        self.positions: List[List[float]] = []
        super().__init__(1000.0, 1000.0, log_path, bench_node.THIS_TREE, 'enabled')

    def _take_commands(self) -> None:
        """Take the commands as bench_node does, and keep their stamps and positions."""
        taken = self._commands.take(0.0)
        taken_at = time.time()
        for data, offset in taken:
            message = deserialize_message(data, JointState)
            stamp = message.header.stamp.sec + 1e-9 * message.header.stamp.nanosec
            self.arrivals.append((taken_at + offset, message.velocity[0], stamp))
            # seconds since an epoch: a double of seconds since 1970 keeps only ~0.24 us,
            # which a third divided difference over 1 ms amplifies past any jerk limit
            self.epoch = getattr(self, 'epoch', message.header.stamp.sec)
            self.stamps.append((message.header.stamp.sec - self.epoch)
                               + 1e-9 * message.header.stamp.nanosec)
            self.positions.append(list(message.position))
            self.state.position = list(message.position)


def transform_message(node, parent: str, child: str, T: np.ndarray) -> TransformStamped:
    """Return ``T_parent_child`` as a TransformStamped stamped now."""
    message = TransformStamped()
    message.header.stamp = node.get_clock().now().to_msg()
    message.header.frame_id, message.child_frame_id = parent, child
    t, r = message.transform.translation, message.transform.rotation
    t.x, t.y, t.z = (float(v) for v in T[:3, 3])
    r.x, r.y, r.z, r.w = (float(v) for v in quaternion_of(T))
    return message


def pose_of_message(message: PoseStamped) -> np.ndarray:
    """Return the 4x4 of a PoseStamped's pose."""
    p, o = message.pose.position, message.pose.orientation
    return pose_matrix((p.x, p.y, p.z), (o.x, o.y, o.z, o.w))


def mount(load: RecordingLoad) -> np.ndarray:
    """Publish world -> base on /tf_static (transient-local); return T_world_base."""
    T_world_base = T_of(MOUNT)
    publisher = load.peer.node.create_publisher(TFMessage, '/tf_static', STATIC_QOS)
    publisher.publish(TFMessage(transforms=[transform_message(
        load.peer.node, 'world', BUNDLED_ARMS[bench_node.ARM].base_link, T_world_base)]))
    return T_world_base


def commands_outside(stamps: np.ndarray,
                     positions: np.ndarray) -> Tuple[np.ndarray, int, int]:
    """
    Return the stream's peak v / a / j over the limits, the commands beyond one, the stalls.

    Velocity over ``velocity_scale`` (the default) x limit; a command exceeds when a joint's
    divided difference into it (of any order) is beyond its limit, or it is out of bounds.
    A gap longer than ``MAX_STEP_PERIODS`` periods is a stall of the node's process, which
    it reports and after which a position stream continues from the last command held (no
    command can bridge it): differences across a stall are not the stream's and are left
    out; the stalls are counted.
    """
    limits = resolve_motion_limits(load_bundled_chain(bench_node.ARM),
                                   bundled_joint_limits_path(bench_node.ARM),
                                   LimitDefaults.of(Settings()), {}).limits
    velocity = limits.velocity * Settings().velocity_scale
    stalled = np.diff(stamps) > MAX_STEP_PERIODS * STREAM_PERIOD
    peaks = np.zeros(3)
    outside = np.zeros(len(stamps), dtype=bool)
    for order, limit in ((1, velocity), (2, limits.acceleration), (3, limits.jerk)):
        rates = np.abs(divided_differences(stamps, positions, order))
        across = np.array([stalled[i:i + order].any() for i in range(len(rates))], dtype=bool)
        ratios = (rates / limit).max(axis=1)
        ratios[across] = 0.0
        peaks[order - 1] = ratios.max(initial=0.0)
        outside[order:] |= ratios > 1.0 + 1e-6
    outside |= np.any((positions < limits.lower) | (positions > limits.upper), axis=1)
    return peaks, int(outside.sum()), int(stalled.sum())


def conveyor_x(elapsed: float) -> float:
    """Return the moving frame's x in world (m) ``elapsed`` s after the start."""
    return AMPLITUDE * math.sin(2.0 * math.pi * elapsed / CYCLE)


def moving_row(way: str, seconds: float, folder: str) -> str:
    """
    Return a row of table 3: the target moving in world, sent in the base frame or on TF.

    ``way`` 'base': the bench sends the target's base-frame pose at 100 Hz; 'tf': it sends
    the target once in ``conveyor`` and moves ``world -> conveyor`` on /tf at 100 Hz.
    """
    load = RecordingLoad(os.path.join(folder, f'moving_{way}.log'))
    try:
        if not load.started():
            return f'| {way} | node did not start | | | | |'
        node, base_link = load.peer.node, BUNDLED_ARMS[bench_node.ARM].base_link
        T_world_base = mount(load)
        T_world_target = T_world_base @ pose_of_message(load.targets[0][1])
        tf = node.create_publisher(TFMessage, '/tf', QoSProfile(
            depth=100, reliability=ReliabilityPolicy.RELIABLE))
        start = time.monotonic()

        def tick() -> None:
            T_world_conveyor = pose_matrix((conveyor_x(time.monotonic() - start), 0.0, 0.0),
                                           (0.0, 0.0, 0.0, 1.0))
            if way == 'tf':
                tf.publish(TFMessage(transforms=[transform_message(
                    node, 'world', 'conveyor', T_world_conveyor)]))
                return
            message = PoseStamped(pose=pose_message(
                np.linalg.inv(T_world_base) @ T_world_conveyor @ T_world_target))
            message.header.frame_id = base_link
            load.target_publisher.publish(message)
        tick()
        if way == 'tf':
            message = PoseStamped(pose=pose_message(T_world_target))
            message.header.frame_id = 'conveyor'
            load.target_publisher.publish(message)
        node.create_timer(1.0 / TF_RATE, tick)
        load.peer.spin_for(2.0)  # the arm reaches the moving target
        first = len(load.stamps)
        _, cpu = load.load(seconds)
        stamps = np.array(load.stamps[first:])
        positions = np.array(load.positions[first:])
    finally:
        load.close()
    ratios, outside, stalls = commands_outside(stamps, positions)
    moved = float(np.ptp(positions[:, 0])) if len(positions) else 0.0
    return (f'| {way} | {100.0 * cpu:.1f} % | {len(stamps)} | {moved:.3f} | '
            f'{ratios[0]:.3f} / {ratios[1]:.3f} / {ratios[2]:.3f} | {outside} | {stalls} |')


def latency_row(frame: str, count: int, folder: str) -> str:
    """Return a latency row: bench_node's alternating targets sent in ``frame``."""
    load = RecordingLoad(os.path.join(folder, f'latency_{frame}.log'))
    try:
        if not load.started():
            return f'| {frame} | node did not start |'
        T_base_frame = np.linalg.inv(mount(load)) if frame == 'world' else np.eye(4)
        for index, (sign, message) in enumerate(load.targets):
            framed = PoseStamped(pose=pose_message(np.linalg.inv(T_base_frame)
                                                   @ pose_of_message(message)))
            framed.header.frame_id = frame
            load.targets[index] = (sign, framed)
        load.latencies(bench_node.WARM_UP_TARGETS)
        latency = load.latencies(count) * 1e3
    finally:
        load.close()
    return (f'| {frame} | {np.percentile(latency, 50):.2f} / {np.percentile(latency, 99):.2f} '
            f'/ {latency.max():.2f} |')


def print_dds(seconds: float, latency_targets: int, repeats: int, folder: str) -> None:
    """Print table 3 and the latency rows, the two ways taking turns."""
    print(f'\n3. ik_node servo, Panda, update_rate and joint_states 1 kHz: a target moving '
          f'{AMPLITUDE} m sin(2 pi t / {CYCLE:g} s) along world x, {seconds:g} s windows')
    print('| target sent | node CPU | commands | joint 1 range rad | peak v / a / j over '
          'limits | commands outside limits | stalls (node reported) |')
    print('|---|---|---|---|---|---|---|')
    for turn in range(repeats):  # the order alternates: a drifting machine weighs on both
        for way in (('base', 'tf') if turn % 2 == 0 else ('tf', 'base')):
            print(moving_row(way, seconds, folder), flush=True)
    print(f'\ntarget -> first moving command (ms, p50 / p99 / max), {latency_targets} '
          'targets from rest')
    print('| frame | latency |')
    print('|---|---|')
    base_link = BUNDLED_ARMS[bench_node.ARM].base_link
    for turn in range(repeats):
        for frame in ((base_link, 'world') if turn % 2 == 0 else ('world', base_link)):
            print(latency_row(frame, latency_targets, folder), flush=True)


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--targets', type=int, default=100, help='targets per arm and frame')
    parser.add_argument('--seconds', type=float, default=10.0,
                        help='window of the DDS rows [s]; 0 skips them')
    parser.add_argument('--latency-targets', type=int, default=50)
    parser.add_argument('--repeats', type=int, default=2)
    parser.add_argument('--skip-reach', action='store_true', help='skip table 1')
    args = parser.parse_args()
    bench_node.install_stop_signals()
    if not args.skip_reach:
        print_reach(args.targets)
    print_first_command(args.targets, args.repeats)
    if args.seconds > 0.0:
        print_dds(args.seconds, args.latency_targets, args.repeats,
                  tempfile.mkdtemp(prefix='bench_tf_'))


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_tf', main)
