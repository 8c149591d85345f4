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
Closed-loop demo: the simulated arm and the IK node as real processes over DDS (loopback).

Sends a scripted sequence of targets (reachable poses, poses in the ``world`` and a
``camera`` frame through TF, a stretch to a singular pose, an unreachable target, a
position-only goal, jogs, a table with a target under it) to the IK
node (servo mode: damped Cartesian steps, where the singularity handling shows) driving a
strict simulated arm through its emulated joint_trajectory_controller (JointTrajectory
commands, as a real arm is best driven: their horizons carry the arm through a stall of the
IK node's process on a loaded computer; it faults, like a real controller, on a setpoint
beyond its velocity or acceleration limits), prints progress and a table per target (with
the peak velocity and acceleration of the controller's setpoint over the limits), and
writes a PNG of
manipulability, damping, joint speeds and accelerations over time, with the singular
stretch replayed offline by an undamped pseudo-inverse for contrast. Exit code 0 when every
reachable target was reached, the unreachable one reported as such, the jog onto the table
stopped, the target under it refused and the arm never faulted.

With ``--physics`` the arm is :mod:`ros_ik.sim.physics_arm` (MuJoCo: inertia, gravity,
torque-limited drives, the table as a solid) instead of the kinematic ``sim_arm``: the
table and plot add the tracking error at the tool, the drives' effort / limit and the
contacts (a contact also fails the demo); ik_node then uses half the acceleration limits
(``acceleration_scale`` 0.5), which the drives can give against gravity.

With ``--view`` the demo also starts the browser view (``ros_ik_web``), prints its address,
and after the scripted targets keeps every process running, the arm following the page's
drag gizmo and jog buttons, until Ctrl-C.
"""

import argparse
import os
import random
import signal
import sys
import tempfile
import threading
from typing import Callable, List, Optional

import numpy as np
from ros_ik.collision.allowed_pairs import SrdfError
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_setup import build_collision_model
from ros_ik.collision.shapes import GeometryError
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.control.parameters import Settings
from ros_ik.demo.driver import DemoDriver, Outcome
from ros_ik.demo.plot import VELOCITY_SCALE, write_plot
from ros_ik.demo.reachability import reachability_table, wait_for_node_frames
from ros_ik.demo.results import (demo_succeeded, format_table, outcome_result, path_summary,
                                 physics_summary)
from ros_ik.demo.segments import frame_poses, plan_segments, static_transforms
from ros_ik.kinematics.bundled_arms import gains_beside
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.node.mesh_packages import package_directories
from ros_ik.tools.arm_selection import add_arm_arguments, load_selected_arm, SelectedArm
from ros_ik.tools.node_processes import NodeProcess, RosPeer
from ros_ik.tools.static_transform_publisher import static_transform_arguments
from sensor_msgs.msg import JointState


# The arm is driven as the README tells users to drive a real one: JointTrajectory horizons
# to its (emulated) joint_trajectory_controller, which bridge stalls of the IK node's process.
COMMAND_TYPE = 'joint_trajectory'
# The strict arm's allowance over a limit: JTC's quintic between the horizon's points (2 ms
# apart) overshoots the jerk-limited motion's acceleration by up to 4 % (Panda 1.037x, UR5
# 1.000x, sampled at 5 kHz over random targets: docs/ros2_control.md).
JTC_TOLERANCE = 0.05
# ik_node's acceleration_scale on the MuJoCo arm: its drives have the URDF's effort limits,
# and a stretched arm cannot get its full acceleration limits against gravity (the Panda's
# joint 2 held horizontal: 63 N m of gravity plus 3.83 kg m^2 x 7.5 rad/s^2 is 92 N m, over
# its 87 N m). The kinematic sim_arm has no dynamics: the full limits there.
PHYSICS_ACCELERATION_SCALE = 0.5
# The servo stops collision_stop_distance (0.02 m by default) from a collision: the stretch
# pose keeps 5 mm more from every one (on the SO-101 the nearest near-singular pose put the
# gripper 4 cm into the base; the servo got stuck short of it, at the stop distance; the
# UR5's forearm and wrist 2 are never more than 0.03 m apart).
STRETCH_CLEARANCE = Settings().collision_stop_distance + 0.005
INTERRUPTED = threading.Event()  # set by SIGINT or SIGTERM


def _interrupt(number: int, frame) -> None:
    """Signal handler: remember the stop request (the demo's peer acts on it)."""
    INTERRUPTED.set()


def arm_process(arm: SelectedArm, links: dict, logs: str, physics: bool) -> NodeProcess:
    """Return the simulated arm's process: strict, at home, fed the IK node's commands."""
    home = '[' + ', '.join(repr(float(v)) for v in arm.home) + ']'
    sim_input = COMMAND_TOPICS[COMMAND_TYPE]
    remaps = ['-r', f'{sim_input}:=ros_ik/{sim_input}']
    parameters = {**links, 'initial_positions': home, 'strict': True,
                  'strict_tolerance': JTC_TOLERANCE}
    if not physics:
        return NodeProcess('sim_arm', parameters, os.path.join(logs, 'sim_arm.log'), remaps)
    gains = gains_beside(arm.choice.urdf_path)
    if os.path.isfile(gains):
        parameters['gains_file'] = gains
    if arm.choice.srdf_file:
        parameters['robot_description_semantic_file'] = arm.choice.srdf_file
    return NodeProcess('physics_arm', parameters, os.path.join(logs, 'physics_arm.log'),
                       remaps + ['-r', 'collision_scene:=ros_ik/collision_scene'])


def clear_of_collisions(arm: SelectedArm, kinematics: ChainKinematics
                        ) -> Callable[[np.ndarray], bool]:
    """
    Return whether the arm at ``q`` keeps ``STRETCH_CLEARANCE`` m from every collision.

    Its URDF geometry and SRDF as the IK node checks them, no scene; an arm whose geometry
    cannot be loaded here counts as clear everywhere (the node says why at its start).
    """
    srdf = ''
    if arm.choice.srdf_file:
        with open(arm.choice.srdf_file, encoding='utf-8') as srdf_file:
            srdf = srdf_file.read()
    try:
        model, _ = build_collision_model(arm.choice.urdf_text(), kinematics, srdf, [],
                                         package_directories(''))
    except (GeometryError, SrdfError) as error:
        print(f'the stretch pose is chosen without collision checks: {error}')
        return lambda q: True
    checker = CollisionChecker(model, 0.0, Settings().collision_check_resolution)
    return lambda q: checker.nearest(q, within=STRETCH_CLEARANCE) is None


def run_demo(arm: SelectedArm, output_folder: str, timeout: float, laps: int,
             physics: bool = False, view: Optional[tuple] = None) -> int:
    """
    Start the processes, run the targets, print the table, write the plot.

    ``view``: (host, port) of the browser view to start and keep serving at the end.
    """
    kinematics = ChainKinematics(arm.chain)
    segments = plan_segments(kinematics, arm.home, arm.task_rows,
                             clear=clear_of_collisions(arm, kinematics)) * laps
    links = {'robot_description_file': arm.choice.urdf_path, 'base_link': arm.chain.base_link,
             'tip_link': arm.chain.tip_link}
    if arm.choice.joint_limits_file:
        links['joint_limits_file'] = arm.choice.joint_limits_file
    semantic = ({'robot_description_semantic_file': arm.choice.srdf_file}
                if arm.choice.srdf_file else {})
    task_axes = arm.choice.task_axes
    os.makedirs(output_folder, exist_ok=True)
    logs = tempfile.mkdtemp(prefix='ros_ik_demo_')
    processes = [
        NodeProcess('static_transform_publisher', {}, os.path.join(logs, f'tf_{child}.log'),
                    arguments=static_transform_arguments(parent, child, xyz, rpy))
        for parent, child, xyz, rpy in static_transforms(arm.chain.base_link)] + [
        arm_process(arm, links, logs, physics),
    ] + ([NodeProcess('ros_ik_web', {**links, 'host': view[0], 'port': view[1]},
                      os.path.join(logs, 'ros_ik_web.log'))] if view else []) + [
        NodeProcess('ik_node', {**links, **semantic, 'task_axes': f'"{task_axes}"',
                                'mode': 'servo', 'command_type': COMMAND_TYPE,
                                'velocity_scale': VELOCITY_SCALE,
                                'acceleration_scale': PHYSICS_ACCELERATION_SCALE if physics
                                else 1.0, 'diagnostics_period': 0.05},
                    os.path.join(logs, 'ik_node.log')),
    ]
    peer = RosPeer('ros_ik_demo', INTERRUPTED)
    try:
        arm_node = 'physics_arm' if physics else 'sim_arm'
        driver = DemoDriver(arm, peer, arm_node)
        print(f'starting {arm_node} and ik_node for {arm.label} (logs in {logs}) ...',
              flush=True)
        if view:
            shown = 'localhost' if view[0] in ('0.0.0.0', '127.0.0.1') else view[0]
            print(f'web view: http://{shown}:{view[1]} (served on {view[0]})', flush=True)
        if not driver.wait_until_ready(30.0):
            print('the simulated arm or the IK node did not come up; see the logs',
                  file=sys.stderr)
            return 1
        seed = JointState(name=list(arm.chain.joint_names),
                          position=[float(value) for value in driver.latest_q])
        if not wait_for_node_frames(peer, sorted(frame_poses(arm.chain.base_link)), seed,
                                    30.0):
            print("the IK node did not get the demo's TF frames in 30 s; see the logs",
                  file=sys.stderr)
            return 1
        print(reachability_table(peer, segments[:len(segments) // laps],
                                 arm.chain.base_link, driver.latest_q) + '\n', flush=True)
        outcomes = []
        stretch_start, jog = None, None
        for index, segment in enumerate(segments, start=1):
            print(f'[{index}/{len(segments)}] {segment.label} ', end='', flush=True)
            if segment.label.startswith('stretch') and stretch_start is None:
                stretch_start = driver.latest_q.copy()
            if segment.jog_velocity is not None and jog is None:
                jog = (driver.latest_q.copy(), segment)
            outcome = driver.run_segment(segment, timeout)
            outcomes.append(outcome)
            print(' ' + outcome_result(outcome)
                  + (f' ("{outcome.report}")' if outcome.refused else ''))
        if view:
            success = report(arm, driver, outcomes, output_folder, physics, stretch_start, jog)
            print(f'\nthe script is done; the arm follows the page (port {view[1]}): drag '
                  'the gizmo, jog, switch the mode. Ctrl-C to stop.', flush=True)
            try:
                peer.spin_until(INTERRUPTED.is_set, float('inf'))
            except KeyboardInterrupt:
                pass
            return 0 if success else 1
    finally:
        peer.close()
        for process in processes:
            process.stop()
    success = report(arm, driver, outcomes, output_folder, physics, stretch_start, jog)
    return 0 if success else 1


def report(arm: SelectedArm, driver: DemoDriver, outcomes: List[Outcome], output_folder: str,
           physics: bool, stretch_start: np.ndarray, jog: Optional[tuple]) -> bool:
    """Print the table and totals, write the plot; return whether the demo succeeded."""
    print()
    print(format_table(outcomes, physics))
    print('\nsimulated arm faults (commands beyond its velocity or acceleration limits'
          + (', contact force or tracking error beyond its thresholds' if physics else '')
          + f'): {driver.faults}')
    if physics:
        print(physics_summary(outcomes))
    if driver.paths.recording is not None:
        print(path_summary(driver.paths.recording))
    suffix = '_physics' if physics else ''
    plot_path = os.path.abspath(os.path.join(output_folder,
                                             f'ros_ik_demo_{arm.label}{suffix}.png'))
    write_plot(plot_path, arm, driver.recording, outcomes, stretch_start, jog,
               driver.paths.recording)
    print(f'\nplot: {plot_path}')
    contacts = sum(outcome.contacts for outcome in outcomes)
    success = demo_succeeded(outcomes) and driver.faults == 0 and contacts == 0
    print('demo ' + ('succeeded' if success else 'FAILED: a target did not behave as expected, '
                     'the arm faulted or touched something'))
    return success


def main(argv: Optional[List[str]] = None) -> int:
    """Parse the options and run the demo in a DDS domain of its own, on loopback."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arm_arguments(parser)
    parser.add_argument('--output', default='demo_output', help='folder of the PNG plot')
    parser.add_argument('--timeout', type=float, default=15.0,
                        help='seconds allowed per target (default %(default)s)')
    parser.add_argument('--long', action='store_true',
                        help='run the target sequence three times')
    parser.add_argument('--physics', action='store_true',
                        help='drive the MuJoCo arm (physics_arm) instead of the kinematic '
                             'sim_arm')
    parser.add_argument('--view', action='store_true',
                        help='serve the browser view (ros_ik_web) and keep the arm following '
                             'it after the script, until Ctrl-C')
    parser.add_argument('--host', default='127.0.0.1',
                        help='--view: interface of the page (0.0.0.0: reachable from other '
                             'machines; default %(default)s)')
    parser.add_argument('--port', type=int, default=8080,
                        help='--view: TCP port of the page (default %(default)s)')
    parser.add_argument('--headless', action='store_true',
                        help='accepted for CI scripts: the demo never opens a window')
    args = parser.parse_args(argv)
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', str(random.SystemRandom().randint(1, 100)))
    try:
        arm = load_selected_arm(args)
    except (UrdfError, ValueError) as error:
        print(f'error: {error}', file=sys.stderr)
        return 1
    # Ctrl-C or SIGTERM: the peer's next spin raises KeyboardInterrupt, run_demo's cleanup
    # stops the two processes, then a clean exit. The handler itself raises nothing: an
    # exception raised inside a finaliser would be printed and lost.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _interrupt)
    try:
        return run_demo(arm, args.output, args.timeout, 3 if args.long else 1, args.physics,
                        (args.host, args.port) if args.view else None)
    except KeyboardInterrupt:
        print('\ndemo interrupted; simulated arm and IK node stopped')
        return 0


if __name__ == '__main__':
    sys.exit(main())
