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
IK query benchmark: batches, the UR5's branches and the ``~/solve_ik`` service.

1. **Batch** (every bundled arm, example-robot-data's UR5, Panda, Kinova and xArm7):
   ``--count`` random reachable poses (FK of configurations drawn uniformly within the
   limits, fixed seed), each solved for one solution from the middle of the joint ranges by
   :class:`ros_ik.kinematics.ik_query.IkQuery` (one ``solve_many`` call: its time over the
   poses, a mean) and by roboticstoolbox's C++ ``ik_LM`` per pose (same seed, its default
   restarts, the arm's task rows as its mask; median and mean). Both scored by Pinocchio's
   FK (position < 1e-5 m, rotation < 1e-4 rad on the task rows, within the limits);
   failures count at their full duration. A batch's poses are searched in one compiled
   call per slice, so a pose's own time in it is not observable: the median column times
   each pose as a compiled call of its own (``IkSolver.first_solutions`` of one pose, the
   batch's first search, a Python call included: an upper bound of its share of a batch
   for the poses that search solves, which are all but a few per thousand).
2. **Branches** (bundled UR5): ``--branch-count`` random poses, the distinct solutions
   (``max_solutions`` 64) against a 600-restart search of the same pose (distinct modulo
   2 pi): complete when as many are found.
3. **Service** (``--service``): ik_node (bundled UR5, ``update_rate`` 1000, servo, the
   kinematic sim_arm) as a process, servoing between two targets 10 cm apart (each held
   1.5 s): the round trip of one-pose requests (p50, p99), a
   1000-pose request's round trip, and the control loop's lateness from the command
   stamps (each cycle stamps its command with its own clock: a stamp more than a period
   after the previous one is a late cycle), during the 1000-pose requests and without, and
   during 1000-pose requests the node refuses on arrival (a seed of no chain joint): the
   messages, their conversion by rclpy in the client and in the node (with the GIL held)
   and DDS, without the search. First, as a floor, a bare 1 kHz sleep loop in this
   process before any node starts: the lateness this machine's scheduler alone gives.

Run: ``.venv/bin/python bench/bench_ik_query.py [--count 10000] [--service] [--write-docs]``.
"""

import argparse
from dataclasses import replace
import os
import statistics
import sys
import tempfile
import time
from typing import Dict, List, Tuple

BENCH_FOLDER = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(BENCH_FOLDER), os.path.join(os.path.dirname(BENCH_FOLDER), 'test'),
                BENCH_FOLDER]

from bench_ik import PinocchioCheck, robotics_toolbox_solver  # noqa: E402
from bench_report import run_documented  # noqa: E402
import numpy as np  # noqa: E402
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,  # noqa: E402
                                            bundled_urdf_path)
from ros_ik.kinematics.chain_kinematics import ChainKinematics  # noqa: E402
from ros_ik.kinematics.ik_query import IkQuery  # noqa: E402
from ros_ik.kinematics.ik_solver import IkOptions, IkSolver  # noqa: E402
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels  # noqa: E402
from ros_ik.kinematics.task_space import FULL_POSE, mask_of_rows  # noqa: E402
from ros_ik.kinematics.urdf_loader import load_urdf_file  # noqa: E402
from ros_ik_testing.example_arms import example_arm  # noqa: E402

EXHAUSTIVE_RESTARTS = 600
BATCH_SIZES = (100, 1000)  # poses per request of the service bench
QUIET_SECONDS = 5.0  # the service bench's window without requests
REQUESTS_PER_SIZE = 10
ALTERNATE_PERIOD = 1.5  # s between the service bench's two servo targets


def arms() -> Dict[str, Tuple[str, str, str, Tuple[bool, ...]]]:
    """Return name -> (URDF path, base link, tip link, task mask) of every benchmarked arm."""
    table = {name: (bundled_urdf_path(name), arm.base_link, arm.tip_link,
                    mask_of_rows(arm.task_rows, False)) for name, arm in BUNDLED_ARMS.items()}
    for name in ('ur5', 'panda', 'kinova', 'xarm7'):
        arm = example_arm(name)
        if arm is not None:
            table[f'erd {name}'] = (arm.urdf_path, arm.base_link, arm.tip_link, FULL_POSE)
    return table


def batch_row(name: str, urdf_path: str, base_link: str, tip_link: str,
              mask: Tuple[bool, ...], count: int) -> str:
    """Return the batch table's row of one arm (see the module docstring)."""
    chain = load_urdf_file(urdf_path, base_link, tip_link)
    kinematics = ChainKinematics(chain)
    lower, upper = chain.sampling_bounds()
    configurations = np.random.default_rng(7).uniform(lower, upper, (count, chain.n_joints))
    targets = [kinematics.tip_pose(q) for q in configurations]
    seed = chain.middle_configuration()
    check = PinocchioCheck(urdf_path, tip_link, chain, mask)
    query = IkQuery(IkSolver(kinematics))
    query.solve_many(targets[:10], seed, mask)  # first calls allocate and cache
    start = time.perf_counter()
    results = query.solve_many(targets, seed, mask)
    batch_mean = (time.perf_counter() - start) / count
    solved = sum(check.accepts(_first(result), T) for result, T in zip(results, targets))
    options = replace(query.solver.options, mask=mask)
    single_times = []
    for T in targets:
        start = time.perf_counter()
        query.solver.first_solutions(T[None], seed, options)
        single_times.append(time.perf_counter() - start)
    peer = robotics_toolbox_solver(urdf_path, base_link, tip_link, mask, check.root_from_base())
    peer_solved, peer_times = 0, []
    for T in targets:
        start = time.perf_counter()
        q = peer(T, seed)[0]
        peer_times.append(time.perf_counter() - start)
        peer_solved += check.accepts(q, T)
    ours, theirs = statistics.median(single_times), statistics.median(peer_times)
    peer_mean = statistics.mean(peer_times)
    return (f'| {name} | {count} | {100 * solved / count:.2f} % | {1e6 * batch_mean:.0f} | '
            f'{1e6 * ours:.0f} | {100 * peer_solved / count:.2f} % | {1e6 * theirs:.0f} | '
            f'{1e6 * peer_mean:.0f} | {ours / theirs:.2f} | {batch_mean / peer_mean:.2f} |')


def _first(result):
    """Return the first solution of a query result, None on failure."""
    return result.solutions[0] if result.success else None


def branch_table(count: int) -> List[str]:
    """Return the branch table's lines: the UR5's distinct solutions vs an exhaustive search."""
    kinematics = ChainKinematics(load_urdf_file(bundled_urdf_path('ur5'),
                                                BUNDLED_ARMS['ur5'].base_link,
                                                BUNDLED_ARMS['ur5'].tip_link))
    query = IkQuery(IkSolver(kinematics))
    lower, upper = kinematics.chain.sampling_bounds()
    rng = np.random.default_rng(11)
    complete, times, found_counts, reference_counts = 0, [], [], []
    for index in range(count):
        q_pose = rng.uniform(lower, upper)
        T = kinematics.tip_pose(q_pose)
        start = time.perf_counter()
        result = query.solve(T, np.zeros(6), max_solutions=64)
        times.append(time.perf_counter() - start)
        exhaustive = query.solver.solve(T, np.zeros(6), IkOptions(
            solution_choice='closest', max_attempts=EXHAUSTIVE_RESTARTS, time_budget=60.0,
            random_seed=10_000 + index))
        branches: List[np.ndarray] = []
        for q in exhaustive.solutions:
            if not any(query.same_solution(q, other) for other in branches):
                branches.append(q)
        found_counts.append(len(result.solutions))
        reference_counts.append(len(branches))
        complete += len(result.solutions) >= len(branches)
    histogram = np.bincount(reference_counts, minlength=9)
    return [f'| bundled ur5 | {count} | {100 * complete / count:.1f} % | '
            f'{1e3 * statistics.median(times):.1f} | {1e3 * max(times):.1f} | '
            + ', '.join(f'{k}: {histogram[k]}' for k in range(1, len(histogram))
                        if histogram[k]) + ' |']


def sleep_loop_periods(seconds: float, period: float = 1e-3) -> np.ndarray:
    """
    Return the periods (s) of a bare loop that sleeps until each ``period`` tick.

    No ROS, nothing else in the loop: the lateness this machine's scheduler alone gives a
    1 kHz loop (after a tick missed by over 2 ms the ticks restart from then, as the
    node's timer does).
    """
    stamps = [time.perf_counter()]
    tick = stamps[0]
    while stamps[-1] - stamps[0] < seconds:
        tick += period
        time.sleep(max(tick - time.perf_counter(), 0.0))
        stamps.append(time.perf_counter())
        if stamps[-1] - tick > 2e-3:
            tick = stamps[-1]
    return np.diff(stamps)


def service_lines(folder: str) -> List[str]:
    """Return the service table's lines (see the module docstring)."""
    from ros_ik.node.messages import pose_message
    from ros_ik.tools.node_processes import ProcessGroup, RosPeer
    from ros_ik_msgs.srv import SolveIk
    from geometry_msgs.msg import PoseStamped
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState

    arm = BUNDLED_ARMS['ur5']
    model = {'robot_description_file': bundled_urdf_path('ur5'), 'base_link': arm.base_link,
             'tip_link': arm.tip_link, 'joint_limits_file': bundled_joint_limits_path('ur5')}
    home = '[' + ', '.join(repr(float(v)) for v in arm.home) + ']'
    floor = sleep_loop_periods(QUIET_SECONDS)
    processes = ProcessGroup()
    peer = RosPeer('bench_ik_query')
    # The client on a context of its own with the node's executor (EventsExecutor).
    caller = RosPeer('bench_ik_query_client', node_executor=True)
    try:
        processes.start('sim_arm', {**model, 'initial_positions': home},
                        os.path.join(folder, 'sim.log'),
                        ['-r', 'joint_commands:=/ros_ik/joint_commands'])
        processes.start('ik_node', {**model, 'update_rate': 1000.0, 'mode': 'servo'},
                        os.path.join(folder, 'ik.log'))
        client = caller.node.create_client(SolveIk, '/ros_ik/solve_ik')
        assert client.wait_for_service(timeout_sec=60.0)
        kinematics = ChainKinematics(load_urdf_file(bundled_urdf_path('ur5'), arm.base_link,
                                                    arm.tip_link))
        lower, upper = kinematics.chain.sampling_bounds()
        rng = np.random.default_rng(3)
        poses = [PoseStamped(pose=pose_message(kinematics.tip_pose(rng.uniform(lower, upper))))
                 for _ in range(1000)]
        for pose in poses:
            pose.header.frame_id = arm.base_link
        # Two targets 10 cm apart, alternating every ALTERNATE_PERIOD while the caller
        # spins (during the requests too): the arm keeps moving.
        targets = caller.node.create_publisher(PoseStamped, '/ros_ik/target_pose', 10)
        T_home = kinematics.tip_pose(np.array(arm.home))
        alternates = [PoseStamped(pose=pose_message(T_home)) for _ in range(2)]
        alternates[1].pose.position.z += 0.1
        for message in alternates:
            message.header.frame_id = arm.base_link
        turn = [0]

        def alternate() -> None:
            turn[0] += 1
            targets.publish(alternates[turn[0] % 2])
        caller.node.create_timer(ALTERNATE_PERIOD, alternate)
        caller.spin_for(2 * ALTERNATE_PERIOD)

        def round_trip(request, solved: bool = True) -> float:
            start = time.perf_counter()
            future = client.call_async(request)
            assert caller.spin_until(future.done, 120.0)
            elapsed = time.perf_counter() - start
            assert future.result().success == solved, future.result().message
            return elapsed

        for pose in poses[:20]:  # warm-up
            round_trip(SolveIk.Request(poses=[pose]))
        singles = sorted(round_trip(SolveIk.Request(poses=[pose])) for pose in poses[:500])
        # The command stamps from here on (no 1 kHz subscription in this process before),
        # kept in their DDS history while the caller spins, taken after each window.
        stamps: List[float] = []
        peer.node.create_subscription(
            JointState, '/ros_ik/joint_commands',
            lambda m: stamps.append(m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec),
            QoSProfile(depth=10000, reliability=ReliabilityPolicy.RELIABLE))
        assert peer.spin_until(lambda: len(stamps) > 100, 60.0)
        quiet_from = len(stamps)
        caller.spin_for(QUIET_SECONDS)
        peer.spin_for(1.0)
        quiet = np.diff(stamps[quiet_from:])
        busy = {}
        batches = {}
        for size in BATCH_SIZES:
            batch_from = len(stamps)
            batches[size] = [round_trip(SolveIk.Request(poses=poses[:size], timeout=10.0))
                             for _ in range(REQUESTS_PER_SIZE)]
            peer.spin_for(1.0)
            busy[size] = np.diff(stamps[batch_from:])
        # The same 1000 poses with a seed of no chain joint: refused by the node once they
        # arrived (every message, conversion and transfer; no search).
        traffic_from = len(stamps)
        refused = SolveIk.Request(poses=poses, seed=JointState(name=['none'], position=[0.0]))
        for _ in range(REQUESTS_PER_SIZE):
            round_trip(refused, solved=False)
        peer.spin_for(1.0)
        traffic = np.diff(stamps[traffic_from:])
    finally:
        caller.close()
        peer.close()
        processes.stop_all()

    def lateness(gaps: np.ndarray) -> str:
        late = gaps - 1e-3
        return (f'{len(gaps)} cycles, max late {1e3 * late.max():.2f} ms, '
                f'p99.9 {1e3 * np.quantile(late, 0.999):.2f} ms, '
                f'{int(np.sum(late > 2e-3))} late by > 2 ms')
    return [f'| a bare 1 kHz sleep loop, {QUIET_SECONDS:g} s, before the nodes start (no ROS) '
            f'| {lateness(floor)} |',
            f'| one pose: round trip p50 | {1e3 * singles[len(singles) // 2]:.2f} ms |',
            f'| one pose: round trip p99 | {1e3 * singles[int(0.99 * len(singles))]:.2f} ms |',
            f'| 1 kHz loop, {QUIET_SECONDS:g} s without requests | {lateness(quiet)} |'] + [
        line for size in BATCH_SIZES for line in (
            f'| {size} poses: round trip ({len(batches[size])} requests) | median '
            f'{1e3 * statistics.median(batches[size]):.0f} ms, max '
            f'{1e3 * max(batches[size]):.0f} ms |',
            f'| 1 kHz loop, during the {size}-pose requests | {lateness(busy[size])} |')] + [
        f'| 1 kHz loop, during {len(poses)}-pose requests refused on arrival (the traffic '
        f'alone) | {lateness(traffic)} |']


def main() -> None:
    """Print the tables (markdown) for docs/benchmarks.md."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--count', type=int, default=10000, help='poses per arm (batch)')
    parser.add_argument('--branch-count', type=int, default=1000,
                        help='UR5 poses of the branch table')
    parser.add_argument('--arms', nargs='+', help='only these arms (batch table)')
    parser.add_argument('--service', action='store_true',
                        help='also the ~/solve_ik table (ik_node as a process)')
    arguments = parser.parse_args()
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    warm_up_kernels()
    print('| arm | poses | ros_ik solved | ros_ik batch mean us/pose | ros_ik median us/pose | '
          'ik_LM solved | ik_LM median us/pose | ik_LM mean | median ratio | mean ratio |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for name, (urdf_path, base_link, tip_link, mask) in arms().items():
        if arguments.arms and name not in arguments.arms:
            continue
        print(batch_row(name, urdf_path, base_link, tip_link, mask, arguments.count),
              flush=True)
    print('\n| arm | poses | all branches found | median ms/pose | max ms/pose | '
          f'branches by a {EXHAUSTIVE_RESTARTS}-restart search (poses) |')
    print('|---|---|---|---|---|---|')
    print('\n'.join(branch_table(arguments.branch_count)), flush=True)
    if arguments.service:
        print('\n| ~/solve_ik (bundled UR5, update_rate 1000) | measured |')
        print('|---|---|')
        print('\n'.join(service_lines(tempfile.mkdtemp())))


if __name__ == '__main__':
    run_documented('bench_ik_query', main)
