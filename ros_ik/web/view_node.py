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
  node's ``mode`` parameter) and jog buttons (``ros_ik/delta_twist_cmds``: a tool twist of
  ``jog_speed`` m/s along a base axis for ``jog_seconds`` s, at 50 Hz).

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
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.kinematics.urdf_loader import parse_robot
from ros_ik.node.chain_parameters import declare_and_load_chain, robot_description_text
from ros_ik.node.mesh_packages import package_directories
from ros_ik.node.messages import diagnostic_status, format_value, pose_message
from ros_ik.node.run import run_node
from ros_ik.web.page import JOG_AXES, WebView
from ros_ik.web.robot_visuals import visual_shapes
from sensor_msgs.msg import JointState
from visualization_msgs.msg import MarkerArray

STATE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)  # newest only
COMMAND_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
DIAGNOSTICS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
JOG_RATE = 50.0  # Hz of the jog twists while a jog button's jog lasts
REPORT_PERIOD = 1.0  # s between the view's own diagnostics


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
        self._gizmo_placed = False
        self._node_mode = ''  # the IK node's mode, from its status
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
        if not self._gizmo_placed:  # the gizmo starts at the tool
            self.view.place_gizmo(self.kinematics.tip_pose(q))
            self._gizmo_placed = True

    def _send_target(self) -> None:
        """Publish the gizmo's pose as the IK node's target."""
        message = PoseStamped(pose=pose_message(self.view.gizmo_pose()))
        message.header.frame_id = self.chain.base_link
        message.header.stamp = self.get_clock().now().to_msg()
        self._targets.publish(message)

    def _set_mode(self, mode: str) -> None:
        """Ask the IK node to switch its mode (servo or solve), unless it is in it."""
        if mode == self._node_mode:
            return
        if not self._parameter_client.service_is_ready():
            self.get_logger().warning(f'{self._value("ik_node")} has no parameter '
                                      'service: mode not changed')
            return
        request = SetParameters.Request(
            parameters=[Parameter('mode', value=mode).to_parameter_msg()])
        self._parameter_client.call_async(request)

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
        self.view.markers.draw(message.markers)

    def _on_diagnostics(self, message: DiagnosticArray) -> None:
        for status in message.status:
            if status.name == f'{self._value("ik_node").strip("/")}: ik':
                level = {0: 'OK', 1: 'WARN', 2: 'ERROR'}.get(status.level[0], 'STALE')
                values = {pair.key: pair.value for pair in status.values}
                self.view.show_status(level, status.message, values)
                if values.get('mode') in ('servo', 'solve'):
                    self._node_mode = values['mode']
                    self.view.mode.value = self._node_mode

    def _report(self) -> None:
        """Publish ``ros_ik_web: view``: redraws of the arm per second and open pages."""
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
