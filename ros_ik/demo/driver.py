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
The demo's rclpy side: sends each segment's target or jog, records what the arm does.

:class:`DemoDriver` subscribes the simulated arm's joint states and faults and the IK node's
commands, manipulability, diagnostics and markers; it records the largest joint speed and
acceleration of the controller's setpoint per joint-state sample (the commands are
JointTrajectory horizons, executed as joint_trajectory_controller does:
:mod:`ros_ik.node.jtc_emulation`) and the node's measures, and runs one segment at a time
until the target is reached, reported or timed out.
"""

from dataclasses import dataclass, field, replace
import time
from typing import List, Optional, Set

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PointStamped, PoseStamped, TwistStamped
import numpy as np
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.collision.scene import parse_scene
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.control.parameters import Settings
from ros_ik.control.trajectory_horizon import KEEP_PERIODS
from ros_ik.demo.jog_runner import JogRunner
from ros_ik.demo.path_runner import PathRunner
from ros_ik.demo.segments import frame_poses, Segment, static_transforms
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import pose_error
from ros_ik.node.jtc_emulation import JointTrajectoryControllerEmulation
from ros_ik.node.messages import pose_message
from ros_ik.node.tf_frames import TF_STATIC_QOS
from ros_ik.tools.arm_selection import SelectedArm
from ros_ik.tools.node_processes import RosPeer
from ros_ik_msgs.action import FollowPath
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64, String, UInt32
from tf2_msgs.msg import TFMessage
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import MarkerArray

POSITION_TOLERANCE = 1e-3  # m, the node's default "reached"
ORIENTATION_TOLERANCE = 1e-2  # rad
SCENE_TIMEOUT = 5.0  # s for the IK node to draw a new collision scene
SETPOINT_PERIOD = 0.002  # s: the emulated controller's update period (JTC at 500 Hz)
RELIABLE = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
# The commands: the emulated controller needs every one. With 10 kept, a demo process
# starved for more than 0.1 s beside a CPU hog lost commands the arm had executed, and its
# emulation jumped from the stop of the last one it read to the next (a 6.7 cm step at the
# UR5's tool in 2 ms, read as a commanded tool speed of 34 m/s in the square). 1 s of them
# (at the default 100 Hz) bridge such stalls; with 1000 kept (tried), the process, starved
# for long, fell ever further behind them (8 s in one run beside the hog).
EVERY_COMMAND = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


@dataclass
class Recording:
    """
    Samples of the run: time (s), setpoint speed and acceleration / limit, measures.

    Speed and acceleration are the largest joint's, of the controller's setpoint (the
    spline of the commands) at the sample's time; the measures (manipulability, damping)
    are the node's.
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


def setpoint_times(after: float, until: float, period: float) -> np.ndarray:
    """
    Return the times (s) at which the emulated controller runs from ``after`` to ``until``.

    Every ``period`` s after ``after``, then ``until`` itself; no two closer than half a
    period: the grid stops that short of ``until`` (a grid point a rounding error before it
    made two setpoints 1e-12 s apart, whose quotient read as a tool speed of 1 m/s during
    the demo's square).
    """
    return np.append(np.arange(after + period, until - 0.5 * period, period), until)


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
        # The controller the commands drive, emulated (None until the first joint states),
        # run up to _executed_until (s since epoch); the largest setpoint speed and
        # acceleration / limit since the last sample (-1: none) and the last recorded.
        self.controller: Optional[JointTrajectoryControllerEmulation] = None
        self._executed_until = 0.0
        self._peaks = np.full(2, -1.0)
        self._held = np.zeros(2)
        # The node's (default) update rate, Hz; a horizon starts KEEP_PERIODS before its cycle.
        settings = Settings()
        self._update_rate = settings.update_rate
        self._kept_before_clock = KEEP_PERIODS / self._update_rate
        self.faults = 0
        self.status: Optional[DiagnosticStatus] = None
        self.contact_events = 0  # physics: contact events so far
        self.start = time.monotonic()
        self.epoch = int(time.time())  # stamps relative to it keep nanoseconds in a double
        node = peer.node
        node.create_subscription(JointState, 'joint_states', self._on_joint_state, RELIABLE)
        node.create_subscription(JointTrajectory,
                                 'ros_ik/' + COMMAND_TOPICS['joint_trajectory'],
                                 self._on_trajectory, EVERY_COMMAND)
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
        # The demo's static frames heard on /tf_static (its publishers are processes too).
        self.static_frames: Set[str] = set()
        node.create_subscription(TFMessage, '/tf_static', self._on_tf_static, TF_STATIC_QOS)
        node.create_subscription(MarkerArray, 'ros_ik/markers', self._on_markers, RELIABLE)
        self.paths = PathRunner(peer, self.kinematics, arm.chain.base_link)
        self.jogs = JogRunner(peer, self.kinematics, self.twist_publisher, self._now,
                              lambda: self.latest_q, self._update_rate,
                              settings.jog_timeout)

    def _now(self) -> float:
        """Return the time (s since ``epoch``) on the clock of the commands' stamps."""
        return time.time() - self.epoch

    def _on_trajectory(self, message: JointTrajectory) -> None:
        """
        Hand a command (a horizon) to the emulated controller when the arm's got it.

        That is its cycle's time (the arm's controller takes it within a millisecond), the
        first point's time (its stamp) plus the ``KEEP_PERIODS`` the horizon keeps before
        the clock, or when this process reads it if sooner: the controller executed the
        previous command until then, however late this process gets to it. Only a new
        command runs the emulation (up to its arrival), so the emulation never runs ahead
        of a command this process has not read yet: both times only grow, and one
        publisher's messages come in order, so the arrivals do too.
        """
        if self.controller is None:
            return
        stamp = (message.header.stamp.sec - self.epoch) + message.header.stamp.nanosec * 1e-9
        self.jogs.cycle(stamp + self._kept_before_clock)
        arrival = min(stamp + self._kept_before_clock, self._now())
        self._execute_until(arrival)
        self.controller.receive(message, arrival)

    def _execute_until(self, until: float) -> None:
        """
        Run the emulated controller every ``SETPOINT_PERIOD`` s up to ``until`` (s).

        Keeps the largest joint speed and acceleration of its setpoint / limit since the
        last joint-state sample; during a path each setpoint is the commanded tool's sample.
        """
        if until <= self._executed_until:
            return
        times = setpoint_times(self._executed_until, until, SETPOINT_PERIOD)
        limits = self.arm.limits
        for at in times:
            setpoint = self.controller.update(float(at))
            self.paths.command(float(at), setpoint.position)
            self._peaks = np.maximum(self._peaks, (
                np.max(np.abs(setpoint.velocity) / limits.velocity),
                np.max(np.abs(setpoint.acceleration) / limits.acceleration)))
        self._executed_until = until

    def _on_markers(self, message: MarkerArray) -> None:
        """Keep the names of the scene objects the IK node draws."""
        self.scene_objects = [marker.text for marker in message.markers
                              if marker.ns == 'ros_ik_scene']

    def _on_faults(self, message: UInt32) -> None:
        self.faults = message.data

    def _on_joint_state(self, message: JointState) -> None:
        """Record a sample: the setpoint's peaks up to the newest command, the measures."""
        self.latest_q = np.array(message.position)
        if self.controller is None:
            self.controller = JointTrajectoryControllerEmulation(
                self.arm.chain.joint_names, self.latest_q, self.epoch * 10 ** 9)
            self._executed_until = self._now()
        recording = self.recording
        if np.all(self._peaks >= 0.0) or not recording.time:
            self._held = np.maximum(self._peaks, 0.0)
        self._peaks = np.full(2, -1.0)
        recording.time.append(time.monotonic() - self.start)
        recording.speed_fraction.append(float(self._held[0]))
        recording.acceleration_fraction.append(float(self._held[1]))
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

    def _on_tf_static(self, message: TFMessage) -> None:
        """Note the child frames of a /tf_static message."""
        self.static_frames.update(transform.child_frame_id for transform in message.transforms)

    def wait_until_ready(self, timeout: float) -> bool:
        """
        Wait for joint states, the IK node's target subscriptions and the demo's static frames.

        Without the frames a target in ``world`` sent to a node that has not heard them
        either is refused after its ``transform_timeout`` (once in CI: the so101's "pose W
        sent in world", the publishers started after the node on a loaded machine).
        """
        frames = {child for _, child, _, _ in static_transforms(self.arm.chain.base_link)}
        return self.peer.spin_until(lambda: self.latest_q is not None
                                    and frames <= self.static_frames
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
        if segment.path:
            result = self.paths.run(segment, timeout)
            done = result is not None and result.error_code == FollowPath.Result.SUCCEEDED
            outcome = self._outcome(segment, first_sample, time.monotonic() - start if done
                                    else None, False, *self.errors(segment))
            return replace(outcome, report=result.message if result is not None else
                           'no result from ~/follow_path')
        if segment.jog_velocity is not None:
            covered, moving, deviation = self.jogs.run(segment)
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
