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
strict simulated arm (it faults, like a real controller, on a command beyond its velocity
or acceleration limits), prints progress and a table per target (with the peak commanded
velocity and acceleration over the limits, from the command stamps), and writes a PNG of
manipulability, damping, joint speeds and accelerations over time, with the singular
stretch replayed offline by an undamped pseudo-inverse for contrast. Exit code 0 when every
reachable target was reached, the unreachable one reported as such, the jog onto the table
stopped, the target under it refused and the arm never faulted.

With ``--physics`` the arm is :mod:`ros_ik.tools.physics_arm` (MuJoCo: inertia, gravity,
torque-limited drives, the table as a solid) instead of the kinematic ``sim_arm``: the
table and plot add the tracking error at the tool, the drives' effort / limit and the
contacts (a contact also fails the demo).

With ``--view`` the demo also starts the browser view (``ros_ik_web``), prints its address,
and after the scripted targets keeps every process running, the arm following the page's
drag gizmo and jog buttons, until Ctrl-C.
"""

import argparse
from dataclasses import dataclass, field, replace
import os
import random
import signal
import sys
import tempfile
import threading
import time
from typing import List, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PointStamped, PoseStamped, TwistStamped
import numpy as np
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.collision.scene import parse_scene
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.kinematics.bundled_arms import gains_beside
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.servo_step import ServoOptions
from ros_ik.kinematics.task_space import mask_of_rows
from ros_ik.kinematics.transforms import pose_error
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.node.messages import pose_message
from ros_ik.tools.arm_selection import add_arm_arguments, load_selected_arm, SelectedArm
from ros_ik.tools.demo_plan import (frame_poses, plan_segments, replay_jog, replay_servo,
                                    Segment, singular_replay_target, static_transforms,
                                    undamped_options)
from ros_ik.tools.node_processes import NodeProcess, RosPeer
from ros_ik.tools.static_transform_publisher import static_transform_arguments
from ros_ik.trajectory.stream_check import divided_differences
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64, String, UInt32
from visualization_msgs.msg import MarkerArray

POSITION_TOLERANCE = 1e-3  # m, the node's default "reached"
ORIENTATION_TOLERANCE = 1e-2  # rad
VELOCITY_SCALE = 0.5
SCENE_TIMEOUT = 5.0  # s for the IK node to draw a new collision scene
RELIABLE = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


@dataclass
class Recording:
    """
    Samples of the run: time (s), commanded speed and acceleration / limit, measures.

    Speed and acceleration are the largest joint's, from the command stamps; the measures
    (manipulability, damping) are the node's.
    """

    time: List[float] = field(default_factory=list)
    speed_fraction: List[float] = field(default_factory=list)
    acceleration_fraction: List[float] = field(default_factory=list)
    manipulability: List[float] = field(default_factory=list)
    damping: List[float] = field(default_factory=list)
    segment_starts: List[float] = field(default_factory=list)
    drive_time: List[float] = field(default_factory=list)  # physics: diagnostics times
    tool_error: List[float] = field(default_factory=list)  # m, peak of each report
    effort_fraction: List[np.ndarray] = field(default_factory=list)  # per joint, peaks


@dataclass
class Outcome:
    """What happened for one segment."""

    segment: Segment
    reached: bool
    reported_unreachable: bool
    position_error: float
    orientation_error: float
    time_to_reach: Optional[float]
    peak_speed_fraction: float
    peak_acceleration_fraction: float
    lowest_manipulability: float
    highest_damping: float
    refused: bool = False  # reported as refused (its motion would collide)
    report: str = ''  # the node's status message at the segment's end
    peak_tool_error: float = 0.0  # physics: m between reference and arm at the tool
    peak_effort_fraction: float = 0.0  # physics: largest drive effort / limit
    contacts: int = 0  # physics: contact events during the segment


class DemoDriver:
    """The demo's rclpy side: publishes targets, records joint states and diagnostics."""

    def __init__(self, arm: SelectedArm, peer: RosPeer, arm_node: str = 'sim_arm') -> None:
        """Subscribe to the simulated arm (node ``arm_node``) and the IK node's outputs."""
        self.arm = arm
        self.kinematics = ChainKinematics(arm.chain)
        self.peer = peer
        self.recording = Recording()
        self.latest_q: Optional[np.ndarray] = None
        self.latest_manipulability = np.nan
        self.latest_damping = 0.0
        self.latest_command_fraction = 0.0
        self.latest_acceleration_fraction = 0.0
        self.commands: List[tuple] = []  # (stamp s, positions) of the last three commands
        self.faults = 0
        self.status: Optional[DiagnosticStatus] = None
        self.contact_events = 0  # physics: contact events so far
        self.start = time.monotonic()
        self.epoch = int(time.time())  # stamps relative to it keep nanoseconds in a double
        node = peer.node
        node.create_subscription(JointState, 'joint_states', self._on_joint_state, RELIABLE)
        node.create_subscription(JointState, 'ros_ik/' + COMMAND_TOPICS['joint_state'],
                                 self._on_command, RELIABLE)
        node.create_subscription(Float64, 'ros_ik/manipulability', self._on_manipulability,
                                 RELIABLE)
        node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                 RELIABLE)
        node.create_subscription(UInt32, f'{arm_node}/faults', self._on_faults, LATCHED)
        target_qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
        self.pose_publisher = node.create_publisher(PoseStamped, 'ros_ik/target_pose',
                                                    target_qos)
        self.point_publisher = node.create_publisher(PointStamped, 'ros_ik/target_point',
                                                     target_qos)
        self.twist_publisher = node.create_publisher(TwistStamped, 'ros_ik/delta_twist_cmds',
                                                     target_qos)
        self.scene_publisher = node.create_publisher(String, 'ros_ik/collision_scene', LATCHED)
        self.scene_objects: List[str] = []
        self.T_base_frame = frame_poses(arm.chain.base_link)
        node.create_subscription(MarkerArray, 'ros_ik/markers', self._on_markers, RELIABLE)

    def _on_command(self, message: JointState) -> None:
        """Keep the largest commanded speed and acceleration (from the stamps) / limit."""
        stamp = (message.header.stamp.sec - self.epoch) + message.header.stamp.nanosec * 1e-9
        self.commands = (self.commands + [(stamp, np.array(message.position))])[-3:]
        limits = self.arm.limits
        self.latest_command_fraction = max(self.latest_command_fraction or 0.0, float(
            np.max(np.abs(np.array(message.velocity)) / limits.velocity)))
        if len(self.commands) == 3:
            times = np.array([entry[0] for entry in self.commands])
            acceleration = divided_differences(
                times, np.array([entry[1] for entry in self.commands]), 2)[-1]
            self.latest_acceleration_fraction = max(self.latest_acceleration_fraction or 0.0,
                                                    float(np.max(np.abs(acceleration)
                                                                 / limits.acceleration)))

    def _on_markers(self, message: MarkerArray) -> None:
        """Keep the names of the scene objects the IK node draws."""
        self.scene_objects = [marker.text for marker in message.markers
                              if marker.ns == 'ros_ik_scene']

    def _on_faults(self, message: UInt32) -> None:
        self.faults = message.data

    def _on_joint_state(self, message: JointState) -> None:
        self.latest_q = np.array(message.position)
        recording = self.recording
        # No command since the last sample: the last values hold.
        fraction = self.latest_command_fraction
        if fraction is None:
            fraction = recording.speed_fraction[-1] if recording.speed_fraction else 0.0
        acceleration_fraction = self.latest_acceleration_fraction
        if acceleration_fraction is None:
            acceleration_fraction = (recording.acceleration_fraction[-1]
                                     if recording.acceleration_fraction else 0.0)
        self.latest_command_fraction = self.latest_acceleration_fraction = None
        recording.time.append(time.monotonic() - self.start)
        recording.speed_fraction.append(fraction)
        recording.acceleration_fraction.append(acceleration_fraction)
        recording.manipulability.append(self.latest_manipulability)
        recording.damping.append(self.latest_damping)

    def _on_manipulability(self, message: Float64) -> None:
        self.latest_manipulability = message.data

    def _on_diagnostics(self, message: DiagnosticArray) -> None:
        for status in message.status:
            values = {pair.key: pair.value for pair in status.values}
            if status.name == 'ros_ik: ik':
                self.status = status
                if values.get('damping', '-') != '-':
                    self.latest_damping = float(values['damping'])
            elif status.name == 'physics_arm: drives':
                recording = self.recording
                recording.drive_time.append(time.monotonic() - self.start)
                recording.tool_error.append(float(values['tool_tracking_error']))
                recording.effort_fraction.append(np.array([
                    float(values[f'{name}/effort_fraction'])
                    for name in self.arm.chain.joint_names]))
            elif status.name == 'physics_arm: contacts':
                self.contact_events = int(values['contact_events'])

    def wait_until_ready(self, timeout: float) -> bool:
        """Wait for joint states and for the IK node's target subscription."""
        return self.peer.spin_until(lambda: self.latest_q is not None
                                    and self.pose_publisher.get_subscription_count() > 0
                                    and self.point_publisher.get_subscription_count() > 0
                                    and self.twist_publisher.get_subscription_count() > 0,
                                    timeout)

    def errors(self, segment: Segment) -> tuple:
        """Return the measured position (m) and orientation (rad) error on the task axes."""
        e_p, e_o = pose_error(segment.T_base_target, self.kinematics.tip_pose(self.latest_q))
        rows = self.arm.task_rows
        position = np.linalg.norm([e_p[row] for row in rows if row < 3])
        orientation = 0.0 if segment.position_only else np.linalg.norm(
            [e_o[row - 3] for row in rows if row >= 3])
        return float(position), float(orientation)

    def run_segment(self, segment: Segment, timeout: float) -> Outcome:
        """Send one target (or jog) and follow the arm until reached, reported or timed out."""
        if segment.scene:
            self.scene_publisher.publish(String(data=segment.scene))
            names = sorted(item.name for item in parse_scene(segment.scene))
            self.peer.spin_until(lambda: sorted(self.scene_objects) == names, SCENE_TIMEOUT)
        start = time.monotonic()
        first_sample = len(self.recording.time)
        self.segment_drive_sample = len(self.recording.drive_time)
        self.segment_contacts = self.contact_events
        self.recording.segment_starts.append(start - self.start)
        if segment.jog_velocity is not None:
            covered, moving, deviation = self._jog(segment)
            done = not covered if segment.stops else covered and moving
            return self._outcome(segment, first_sample, segment.jog_seconds if done else None,
                                 False, deviation, 0.0)
        frame = segment.frame or self.arm.chain.base_link
        T_frame_target = (np.linalg.inv(self.T_base_frame[frame]) @ segment.T_base_target
                          if segment.frame else segment.T_base_target)
        if segment.position_only:
            message = PointStamped()
            message.header.frame_id = frame
            x, y, z = T_frame_target[:3, 3]
            message.point.x, message.point.y, message.point.z = float(x), float(y), float(z)
            self.point_publisher.publish(message)
        else:
            message = PoseStamped(pose=pose_message(T_frame_target))
            message.header.frame_id = frame
            self.pose_publisher.publish(message)
        time_to_reach = None
        reported = False
        next_dot = start + 1.0
        while time.monotonic() - start < timeout:
            self.peer.spin_for(0.02)
            position_error, orientation_error = self.errors(segment)
            if (position_error <= POSITION_TOLERANCE
                    and orientation_error <= ORIENTATION_TOLERANCE):
                time_to_reach = time.monotonic() - start
                break
            reported = bool(self.status is not None and self.status.level ==
                            DiagnosticStatus.ERROR and ('reach' in self.status.message
                                                        or 'refused' in self.status.message))
            settled = self.recording.speed_fraction[-1] < 1e-3
            if reported and settled and time.monotonic() - start > 1.0:
                break
            if time.monotonic() >= next_dot:
                print('.', end='', flush=True)
                next_dot += 1.0
        position_error, orientation_error = self.errors(segment)
        outcome = self._outcome(segment, first_sample, time_to_reach, reported, position_error,
                                orientation_error)
        return replace(outcome, refused=reported and 'refused' in self.status.message,
                       report=self.status.message if self.status is not None else '')

    def _jog(self, segment: Segment) -> tuple:
        """
        Stream the segment's twist at 50 Hz; return (covered, moving, largest deviation m).

        ``covered``: the tool covered at least 80 % of the commanded distance; ``moving``:
        its progress never stalled for 0.25 s.
        """
        message = TwistStamped()
        message.header.frame_id = self.arm.chain.base_link
        velocity = segment.jog_velocity
        message.twist.linear.x, message.twist.linear.y, message.twist.linear.z = (
            float(v) for v in velocity)
        direction = velocity / np.linalg.norm(velocity)
        tip_start = self.kinematics.tip_pose(self.latest_q)[:3, 3]
        along, deviation = [], [0.0]
        end = time.monotonic() + segment.jog_seconds
        while time.monotonic() < end:
            self.twist_publisher.publish(message)
            self.peer.spin_for(0.02)
            offset = self.kinematics.tip_pose(self.latest_q)[:3, 3] - tip_start
            along.append(float(offset @ direction))
            deviation.append(float(np.linalg.norm(offset - along[-1] * direction)))
        self.peer.spin_for(0.5)  # jog_timeout: the arm comes to rest
        covered = along[-1] >= 0.8 * np.linalg.norm(velocity) * segment.jog_seconds
        moving = all(b > a for a, b in zip(along[25::12], along[37::12]))
        return covered, moving, max(deviation)

    def _outcome(self, segment: Segment, first_sample: int, time_to_reach: Optional[float],
                 reported: bool, position_error: float, orientation_error: float) -> Outcome:
        """Return the segment's outcome with the recorded peaks since ``first_sample``."""
        recording = self.recording
        window = slice(first_sample, len(recording.time))
        drives = slice(self.segment_drive_sample, len(recording.drive_time))
        return Outcome(segment=segment, reached=time_to_reach is not None,
                       reported_unreachable=reported, position_error=position_error,
                       orientation_error=orientation_error, time_to_reach=time_to_reach,
                       peak_speed_fraction=max(recording.speed_fraction[window], default=0.0),
                       peak_acceleration_fraction=max(recording.acceleration_fraction[window],
                                                      default=0.0),
                       lowest_manipulability=float(np.nanmin(
                           recording.manipulability[window] or [np.nan])),
                       highest_damping=max(recording.damping[window], default=0.0),
                       peak_tool_error=max(recording.tool_error[drives], default=0.0),
                       peak_effort_fraction=float(np.max(
                           recording.effort_fraction[drives], initial=0.0)),
                       contacts=self.contact_events - self.segment_contacts)


def format_table(outcomes: List[Outcome], physics: bool = False) -> str:
    """Return the per-target table (``physics``: with the physics arm's columns)."""
    lines = ['peak v, peak a: largest commanded joint speed and acceleration (from the '
             'command stamps) / joint limit; min w: lowest manipulability; max lam: highest '
             'damping (m/rad)' + ('; track mm: peak tracking error at the tool; effort: '
                                  'peak drive effort / limit; contacts: contact events'
                                  if physics else ''),
             f'{"target":<28}{"frame":>8}{"expect":>8}{"result":>14}{"pos err m":>11}'
             f'{"rot err":>9}{"t reach s":>10}{"peak v":>8}{"peak a":>8}{"min w":>10}'
             f'{"max lam":>9}' + (f'{"track mm":>10}{"effort":>8}{"contacts":>9}'
                                  if physics else '')]
    for outcome in outcomes:
        result = outcome_result(outcome)
        reach_time = f'{outcome.time_to_reach:.2f}' if outcome.time_to_reach else '-'
        lines.append(f'{outcome.segment.label:<28}{outcome.segment.frame or "base":>8}'
                     f'{expectation(outcome.segment):>8}{result:>14}'
                     f'{outcome.position_error:>11.2e}{outcome.orientation_error:>9.1e}'
                     f'{reach_time:>10}{outcome.peak_speed_fraction:>8.3f}'
                     f'{outcome.peak_acceleration_fraction:>8.3f}'
                     f'{outcome.lowest_manipulability:>10.4f}{outcome.highest_damping:>9.4f}'
                     + (f'{1e3 * outcome.peak_tool_error:>10.2f}'
                        f'{outcome.peak_effort_fraction:>8.3f}{outcome.contacts:>9d}'
                        if physics else ''))
    return '\n'.join(lines)


# The result each expectation asks for.
EXPECTED_RESULTS = {'reach': 'reached', 'stop': 'stopped', 'refuse': 'refused',
                    'fail': 'unreachable'}


def expectation(segment: Segment) -> str:
    """Return what a segment should do: reach, stop (at an obstacle), be refused or fail."""
    if segment.stops:
        return 'stop'
    if segment.refused:
        return 'refuse'
    return 'reach' if segment.reachable else 'fail'


def outcome_result(outcome: Outcome) -> str:
    """Return what a segment did: reached, stopped, refused, unreachable or NOT reached."""
    if outcome.reached:
        return 'stopped' if outcome.segment.stops else 'reached'
    if outcome.refused:
        return 'refused'
    return 'unreachable' if outcome.reported_unreachable else 'NOT reached'


def demo_succeeded(outcomes: List[Outcome]) -> bool:
    """Return whether every segment did what it should (reached, stopped, refused, failed)."""
    return all(outcome_result(outcome) == EXPECTED_RESULTS[expectation(outcome.segment)]
               for outcome in outcomes)


def write_plot(path: str, arm: SelectedArm, recording: Recording, outcomes: List[Outcome],
               stretch_start: np.ndarray, jog: Optional[tuple]) -> None:
    """
    Plot the run and offline damped / undamped replays toward a singular pose.

    ``jog``: (joints at the jog's start, the jog segment), replayed the same way.
    """
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot
    kinematics = ChainKinematics(arm.chain)
    mask = mask_of_rows(arm.task_rows)
    options = ServoOptions(velocity_scale=VELOCITY_SCALE)
    stretch = singular_replay_target(kinematics, stretch_start, arm.task_rows)
    damped = replay_servo(kinematics, stretch_start, stretch, options, arm.task_rows, 4.0,
                          0.01, mask)
    undamped = replay_servo(kinematics, stretch_start, stretch, undamped_options(options),
                            arm.task_rows, 4.0, 0.01, mask)
    physics = bool(recording.drive_time)
    figure, axes = pyplot.subplots(7 if physics else 5, 1, figsize=(10, 18 if physics else 13),
                                   sharex=False)
    t = np.array(recording.time)
    for axis, values, label in ((axes[0], recording.manipulability, 'manipulability w'),
                                (axes[1], recording.damping, 'damping lambda [m/rad]'),
                                (axes[2], recording.speed_fraction,
                                 'commanded joint speed / limit'),
                                (axes[3], recording.acceleration_fraction,
                                 'commanded joint accel. / limit')):
        axis.plot(t, values)
        axis.set_ylabel(label)
        for start, outcome in zip(recording.segment_starts, outcomes):
            axis.axvline(start, color='grey', linestyle=':')
            axis.text(start, axis.get_ylim()[1], ' ' + outcome.segment.label, fontsize=7,
                      va='top', rotation=90)
    axes[2].axhline(VELOCITY_SCALE, color='red', linestyle='--', label='velocity_scale')
    axes[2].legend(loc='upper right')
    axes[3].axhline(1.0, color='red', linestyle='--', label='acceleration limit')
    axes[3].legend(loc='upper right')
    axes[3].set_xlabel('time [s] (closed loop over DDS)')
    axes[4].semilogy(damped.time, np.maximum(damped.peak_speed_fraction, 1e-6),
                     label='damped least squares (ros_ik)')
    axes[4].semilogy(undamped.time, np.maximum(undamped.peak_speed_fraction, 1e-6),
                     label='undamped pseudo-inverse, no speed limit')
    if jog is not None:
        jog_start, jog_segment = jog
        for replay_options, label in ((options, 'jog through singular: damped (ros_ik)'),
                                      (undamped_options(options), 'jog: undamped')):
            replay = replay_jog(kinematics, jog_start, jog_segment,
                                ServoOptions(**{**replay_options.__dict__, 'mask': mask}), 0.01)
            axes[4].semilogy(replay.time, np.maximum(replay.peak_speed_fraction, 1e-6),
                             linestyle='--', label=label)
    axes[4].set_ylabel('peak joint speed / limit')
    axes[4].set_xlabel('time [s] (offline replays: from the stretch start toward an exactly '
                       'singular pose; the jog through a singular pose)')
    axes[4].legend(loc='upper right')
    if physics:
        _plot_drives(axes[5], axes[6], arm, recording)
    figure.suptitle(f'ros_ik demo: {arm.label}' + (' on MuJoCo physics' if physics else ''))
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    pyplot.close(figure)


def _plot_drives(error_axis, effort_axis, arm: SelectedArm, recording: Recording) -> None:
    """Plot the physics arm's tracking error at the tool and each drive's effort / limit."""
    t = np.array(recording.drive_time)
    error_axis.plot(t, 1e3 * np.array(recording.tool_error))
    error_axis.set_ylabel('tracking error at\nthe tool [mm]')
    fractions = np.array(recording.effort_fraction).reshape(len(t), -1)
    for index, name in enumerate(arm.chain.joint_names):
        effort_axis.plot(t, fractions[:, index], label=name)
    effort_axis.axhline(1.0, color='red', linestyle='--', label='effort limit')
    effort_axis.set_ylabel('drive effort / limit\n(peak per report)')
    effort_axis.set_xlabel('time [s] (physics_arm reports, closed loop over DDS)')
    effort_axis.legend(loc='upper right', fontsize=7, ncol=2)
    for axis in (error_axis, effort_axis):
        for start in recording.segment_starts:
            axis.axvline(start, color='grey', linestyle=':')


INTERRUPTED = threading.Event()  # set by SIGINT or SIGTERM


def _interrupt(number: int, frame) -> None:
    """Signal handler: remember the stop request (the demo's peer acts on it)."""
    INTERRUPTED.set()


def arm_process(arm: SelectedArm, links: dict, logs: str, physics: bool) -> NodeProcess:
    """Return the simulated arm's process: strict, at home, fed the IK node's commands."""
    home = '[' + ', '.join(repr(float(v)) for v in arm.home) + ']'
    sim_input = COMMAND_TOPICS['joint_state']
    remaps = ['-r', f'{sim_input}:=ros_ik/{sim_input}']
    parameters = {**links, 'initial_positions': home, 'strict': True}
    if not physics:
        return NodeProcess('sim_arm', parameters, os.path.join(logs, 'sim_arm.log'), remaps)
    gains = gains_beside(arm.choice.urdf_path)
    if os.path.isfile(gains):
        parameters['gains_file'] = gains
    if arm.choice.srdf_file:
        parameters['robot_description_semantic_file'] = arm.choice.srdf_file
    return NodeProcess('physics_arm', parameters, os.path.join(logs, 'physics_arm.log'),
                       remaps + ['-r', 'collision_scene:=ros_ik/collision_scene'])


def run_demo(arm: SelectedArm, output_folder: str, timeout: float, laps: int,
             physics: bool = False, view: Optional[tuple] = None) -> int:
    """
    Start the processes, run the targets, print the table, write the plot.

    ``view``: (host, port) of the browser view to start and keep serving at the end.
    """
    kinematics = ChainKinematics(arm.chain)
    segments = plan_segments(kinematics, arm.home, arm.task_rows) * laps
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
                                'mode': 'servo',
                                'velocity_scale': VELOCITY_SCALE, 'diagnostics_period': 0.05},
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
    suffix = '_physics' if physics else ''
    plot_path = os.path.abspath(os.path.join(output_folder,
                                             f'ros_ik_demo_{arm.label}{suffix}.png'))
    write_plot(plot_path, arm, driver.recording, outcomes, stretch_start, jog)
    print(f'\nplot: {plot_path}')
    contacts = sum(outcome.contacts for outcome in outcomes)
    success = demo_succeeded(outcomes) and driver.faults == 0 and contacts == 0
    print('demo ' + ('succeeded' if success else 'FAILED: a target did not behave as expected, '
                     'the arm faulted or touched something'))
    return success


def physics_summary(outcomes: List[Outcome]) -> str:
    """Return the physics run's totals: peak tracking error, peak effort / limit, contacts."""
    return (f'physics: peak tracking error at the tool '
            f'{1e3 * max(o.peak_tool_error for o in outcomes):.2f} mm, peak drive effort / '
            f'limit {max(o.peak_effort_fraction for o in outcomes):.3f}, contact events '
            f'{sum(o.contacts for o in outcomes)}')


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
