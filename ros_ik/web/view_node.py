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
A browser view of the arm for users without RViz: ``ros_ik_web`` (viser serves the page).

A normal ROS node that talks to ``ik_node`` only through its topics and parameters:

* the robot from the URDF (:mod:`ros_ik.web.robot_visuals`: its visuals and meshes), each
  body placed by the chain's forward kinematics of the newest ``joint_states``, redrawn at
  ``view_rate`` Hz while the arm moves;
* a 6-DOF drag gizmo: every move publishes the IK node's target (``ros_ik/target_pose``,
  PoseStamped in the chain's base frame, the frame the page draws everything in);
* the node's RViz markers (``ros_ik/markers``: the current goal, the manipulability
  ellipsoid, the closest collision pair, the scene objects) drawn in the base frame;
* a panel with the node's status (``/diagnostics``, ``<ik_node>: ik``: level, message and
  every value: mode, manipulability, damping, nearest pair, ...), a mode switch (the
  node's ``mode`` parameter: the node takes it at rest, else the page says why not) and
  jog buttons (``ros_ik/delta_twist_cmds``: a tool twist of ``jog_speed`` m/s along a base
  axis for ``jog_seconds`` s, at 50 Hz). Without the node's status for ``STATUS_TIMEOUT``
  s the panel says it is not there (and whether joint_states are) and greys the controls.

The page is at ``http://<host>:<port>`` (``--host`` / ``--port`` or the parameters; host
127.0.0.1 by default: this machine only; 0.0.0.0 for every interface, e.g. a robot over
SSH or another machine on the network). It works offline: viser ships its client.
"""

import argparse
import sys
import time
from typing import List, Optional, Tuple

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped, TwistStamped
import numpy as np
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rcl_interfaces.srv import SetParameters
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.collision.shapes import GeometryError
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import pose_error, pose_matrix
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.kinematics.urdf_loader import parse_robot
from ros_ik.node.chain_parameters import declare_and_load_chain, robot_description_text
from ros_ik.node.mesh_packages import package_directories
from ros_ik.node.messages import (diagnostic_status, format_value, pose_components,
                                  pose_message)
from ros_ik.node.run import run_node
from ros_ik.web.page import JOG_AXES, WebView
from ros_ik.web.robot_visuals import visual_shapes
from sensor_msgs.msg import JointState
from visualization_msgs.msg import Marker, MarkerArray

STATE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)  # newest only
COMMAND_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
DIAGNOSTICS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
JOG_RATE = 50.0  # Hz of the jog twists while a jog button's jog lasts
REPORT_PERIOD = 1.0  # s between the view's own diagnostics
# s without the IK node's status before the page says it is not there (its
# diagnostics_period is 1 s by default) and greys the jog buttons and the mode switch.
STATUS_TIMEOUT = 3.0
# The gizmo follows the IK node's target while the arm moves and sits on the tool once the
# arm has been still for IDLE_TIME s, checked FOLLOW_RATE times a second, but not within
# DRAG_QUIET s of the user's last drag (the node's target marker lags the drag).
FOLLOW_RATE = 10.0  # Hz
IDLE_TIME = 0.5  # s
DRAG_QUIET = 1.0  # s
GIZMO_TOLERANCE = 1e-4  # m and rad: a gizmo this close stays where it is
TARGET_MARKER = ('ros_ik', 0)  # (namespace, id) of the node's target in ros_ik/markers


# name, default, description, range
PARAMETERS = (
    ('host', '127.0.0.1', 'interface the page is served on (0.0.0.0: every interface)', None),
    ('port', 8080, 'TCP port of the page (0: any free port, logged)',
     IntegerRange(from_value=0, to_value=65535)),
    ('view_rate', 50.0, 'redraws of the arm per second while it moves [Hz]',
     FloatingPointRange(from_value=1.0, to_value=240.0)),
    ('mesh_search_path', '', 'folders of packages for package:// meshes (":"-separated)',
     None),
    ('ik_node', 'ros_ik', 'name of the IK node (its status and mode parameter)', None),
    ('jog_speed', 0.05, 'speed of the jog buttons [m/s]',
     FloatingPointRange(from_value=0.001, to_value=1.0)),
    ('jog_seconds', 0.5, 'how long one jog button click jogs [s]',
     FloatingPointRange(from_value=0.02, to_value=10.0)),
)


class RosIkWeb(Node):
    """Serve the web view of the arm and bridge it to the IK node's topics."""

    def __init__(self, **kwargs) -> None:
        """Declare the parameters, load the robot, serve the page, subscribe."""
        self.view: Optional[WebView] = None  # until served (destroy_node() closes it)
        super().__init__('ros_ik_web', **kwargs)
        self.chain = declare_and_load_chain(self)
        for name, default, description, value_range in PARAMETERS:
            descriptor = ParameterDescriptor(description=description, read_only=True)
            if isinstance(value_range, FloatingPointRange):
                descriptor.floating_point_range = [value_range]
            elif isinstance(value_range, IntegerRange):
                descriptor.integer_range = [value_range]
            self.declare_parameter(name, default, descriptor)
        value = self._value
        robot = parse_robot(robot_description_text(self))
        shapes, problems = visual_shapes(robot, self.chain,
                                         package_directories(value('mesh_search_path')))
        for problem in problems:
            self.get_logger().warning(f'not drawn: {problem}')
        self.kinematics = ChainKinematics(self.chain)
        self.view = WebView(value('host'), value('port'), self.kinematics, shapes)
        self.view.place_gizmo(self.kinematics.tip_pose(
            np.clip(np.zeros(self.chain.n_joints), self.chain.lower, self.chain.upper)))
        self._q: Optional[np.ndarray] = None
        self._shown: Optional[np.ndarray] = None
        self._moved_at = -np.inf  # time.monotonic() of the last redraw of a changed arm
        self._dragged_at = -np.inf  # time.monotonic() of the user's last drag update
        self._target: Optional[np.ndarray] = None  # the node's target marker (4x4, base)
        self._node_mode = ''  # the IK node's mode, from its status
        # time.monotonic() of its last status (or of the start) and whether it is there
        self._status_time, self._node_present = time.monotonic(), False
        self._jog: Optional[Tuple[np.ndarray, float]] = None  # direction, end time
        self.create_subscription(JointState, 'joint_states', self._on_joint_state,
                                 STATE_QOS)
        self.create_subscription(MarkerArray, 'ros_ik/markers', self._on_markers, 10)
        self.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                 DIAGNOSTICS_QOS)
        self._targets = self.create_publisher(PoseStamped, 'ros_ik/target_pose',
                                              COMMAND_QOS)
        self._twists = self.create_publisher(TwistStamped, 'ros_ik/delta_twist_cmds',
                                             COMMAND_QOS)
        self._parameter_client = self.create_client(
            SetParameters, f'{value("ik_node")}/set_parameters')
        self.view.gizmo.on_update(lambda _: self._send_target())
        self.view.mode.on_update(lambda _: self._set_mode(self.view.mode.value))
        for axis, button in self.view.jog_buttons.items():
            button.on_click(lambda _, axis=axis: self._start_jog(axis))
        self.create_timer(1.0 / value('view_rate'), self._redraw)
        self.create_timer(1.0 / FOLLOW_RATE, self._follow)
        self.create_timer(1.0 / JOG_RATE, self._send_jog)
        self._diagnostics = self.create_publisher(DiagnosticArray, '/diagnostics',
                                                  DIAGNOSTICS_QOS)
        self._redraws_reported = (time.monotonic(), 0)
        self.create_timer(REPORT_PERIOD, self._report)
        host = value('host')
        shown = 'localhost' if host in ('0.0.0.0', '127.0.0.1') else host
        self.get_logger().info(f'web view of {self.chain.base_link} -> '
                               f'{self.chain.tip_link}: http://{shown}:'
                               f'{self.view.server.get_port()} (serving on {host})')

    def _value(self, name: str):
        return self.get_parameter(name).value

    def _on_joint_state(self, message: JointState) -> None:
        """Keep the chain's joints of the newest joint state (others ignored)."""
        index = {name: i for i, name in enumerate(message.name)}
        if not all(name in index for name in self.chain.joint_names):
            return
        q = np.array([message.position[index[name]] for name in self.chain.joint_names])
        if np.all(np.isfinite(q)):
            self._q = q

    def _redraw(self) -> None:
        """Move the robot to the newest joint state if it changed."""
        q = self._q
        if q is None or (self._shown is not None and np.array_equal(q, self._shown)):
            return
        self.view.show_joints(q)
        self._shown = q
        self._moved_at = time.monotonic()

    def _follow(self) -> None:
        """
        Put the gizmo on the node's target while the arm moves, on the tool once it is idle.

        A target from another program, a jog or the demo then moves the gizmo with it, and
        the next drag starts where the arm is: before, the gizmo stayed where it was last
        dragged and a small drag yanked the arm back there.
        """
        now = time.monotonic()
        if self._shown is None or now - self._dragged_at < DRAG_QUIET:
            return
        T_tool = self.kinematics.tip_pose(self._shown)
        if now - self._moved_at >= IDLE_TIME or self._target is None:
            T_gizmo = T_tool
        else:
            T_gizmo = self._target
        e_p, e_o = pose_error(T_gizmo, self.view.gizmo_pose())
        if max(np.linalg.norm(e_p), np.linalg.norm(e_o)) > GIZMO_TOLERANCE:
            self.view.place_gizmo(T_gizmo)

    def _send_target(self) -> None:
        """Publish the gizmo's pose (the user dragged it) as the IK node's target."""
        self._dragged_at = time.monotonic()
        message = PoseStamped(pose=pose_message(self.view.gizmo_pose()))
        message.header.frame_id = self.chain.base_link
        message.header.stamp = self.get_clock().now().to_msg()
        self._targets.publish(message)

    def _set_mode(self, mode: str) -> None:
        """Ask the IK node to switch its mode (servo or solve), unless it is in it."""
        if mode == self._node_mode:
            return
        if not self._parameter_client.service_is_ready():
            self._mode_refused(mode, f'{self._value("ik_node")} has no parameter service')
            return
        request = SetParameters.Request(
            parameters=[Parameter('mode', value=mode).to_parameter_msg()])
        self._parameter_client.call_async(request).add_done_callback(
            lambda future: self._mode_answered(mode, future.result()))

    def _mode_answered(self, mode: str, response: Optional[SetParameters.Response]) -> None:
        """Clear the notice when the IK node took ``mode``, else say why not."""
        result = response.results[0] if response is not None and response.results else None
        if result is not None and result.successful:
            self.view.notice.content = ''
        else:
            self._mode_refused(mode, result.reason if result is not None else 'no answer')

    def _mode_refused(self, mode: str, reason: str) -> None:
        """Say on the page (and in the log) why ``mode`` was not taken; show the node's."""
        self.view.notice.content = f'**mode not switched to {mode}**: {reason}'
        self.get_logger().warning(f'mode not switched to {mode}: {reason}')
        if self._node_mode:
            self.view.mode.value = self._node_mode

    def _start_jog(self, axis: str) -> None:
        """Jog the tool along a base axis for ``jog_seconds``."""
        end = self.get_clock().now().nanoseconds * 1e-9 + self._value('jog_seconds')
        self._jog = (np.array(JOG_AXES[axis], dtype=float) * self._value('jog_speed'), end)

    def _send_jog(self) -> None:
        """Publish the running jog's twist (50 Hz) until it ends."""
        if self._jog is None:
            return
        velocity, end = self._jog
        if self.get_clock().now().nanoseconds * 1e-9 >= end:
            self._jog = None
            return
        message = TwistStamped()
        message.header.frame_id = self.chain.base_link
        message.header.stamp = self.get_clock().now().to_msg()
        message.twist.linear.x, message.twist.linear.y, message.twist.linear.z = (
            float(v) for v in velocity)
        self._twists.publish(message)

    def _on_markers(self, message: MarkerArray) -> None:
        """Draw the node's markers; keep its target (a pose; a point at the tool's rotation)."""
        self.view.markers.draw(message.markers)
        self._target = next((self._marker_pose(marker) for marker in message.markers
                             if (marker.ns, marker.id) == TARGET_MARKER
                             and marker.action == Marker.ADD), None)

    def _marker_pose(self, marker: Marker) -> np.ndarray:
        """Return a target marker's pose (4x4, base frame); a sphere takes the tool's rotation."""
        T = pose_matrix(*pose_components(marker.pose))
        if marker.type == Marker.SPHERE and self._shown is not None:
            T[:3, :3] = self.kinematics.tip_pose(self._shown)[:3, :3]
        return T

    def _on_diagnostics(self, message: DiagnosticArray) -> None:
        for status in message.status:
            if status.name == f'{self._value("ik_node").strip("/")}: ik':
                level = {0: 'OK', 1: 'WARN', 2: 'ERROR'}.get(status.level[0], 'STALE')
                values = {pair.key: pair.value for pair in status.values}
                self.view.show_status(level, status.message, values)
                if not self._node_present:
                    self.view.enable_controls(True)
                self._status_time, self._node_present = time.monotonic(), True
                if values.get('mode') in ('servo', 'solve'):
                    self._node_mode = values['mode']
                    self.view.mode.value = self._node_mode

    def _check_presence(self) -> None:
        """
        Say on the page when the IK node's status stopped (or never came); grey the controls.

        A jog or a mode switch then would go nowhere, silently; the arm drawn at zeros
        before any joint_states is said to be so.
        """
        if time.monotonic() - self._status_time <= STATUS_TIMEOUT:
            return
        self._node_present = False
        name = self._value('ik_node')
        text = (f'no status from `{name}` on /diagnostics for {STATUS_TIMEOUT:g} s: is it '
                'running (the `ik_node` parameter names it)? Jog and mode are off until it '
                'is.')
        if self._q is None:
            text += "  \nNo joint_states with the chain's joints yet: the arm is drawn at zero."
        self.view.show_absence(text)

    def _report(self) -> None:
        """Publish ``ros_ik_web: view``: redraws of the arm per second and open pages."""
        self._check_presence()
        now, redraws = time.monotonic(), self.view.frames_sent
        then, before = self._redraws_reported
        self._redraws_reported = (now, redraws)
        clients = len(self.view.server.get_clients())
        message = DiagnosticArray(status=[diagnostic_status(
            'ros_ik_web: view', 'ros_ik_web', 'OK', f'{clients} pages open', {
                'redraws_per_second': format_value((redraws - before) / (now - then)),
                'pages': str(clients)})])
        message.header.stamp = self.get_clock().now().to_msg()
        self._diagnostics.publish(message)

    def destroy_node(self) -> None:
        """Close the page's server (if it was started), then destroy the node."""
        if self.view is not None:
            self.view.close()
        super().destroy_node()


def main(args: Optional[List[str]] = None) -> int:
    """Run the web view; ``--host`` and ``--port`` set the parameters of the same names."""
    parser = argparse.ArgumentParser(description='ros_ik web view', add_help=True)
    parser.add_argument('--host', help='interface to serve on (0.0.0.0: every interface)')
    parser.add_argument('--port', type=int, help='TCP port of the page')
    options, rest = parser.parse_known_args(sys.argv[1:] if args is None else args)
    overrides = [f'{name}:={value}' for name, value in (('host', options.host),
                                                        ('port', options.port))
                 if value is not None]
    parameters = [item for override in overrides for item in ('-p', override)]
    ros_args = [sys.argv[0]] + rest + (['--ros-args'] + parameters if parameters else [])
    return run_node(RosIkWeb, 'ros_ik_web', (UrdfError, GeometryError, OSError, ValueError),
                    ros_args)


if __name__ == '__main__':
    sys.exit(main())
