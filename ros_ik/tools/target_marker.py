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
A 6-DOF drag target for RViz: an interactive marker whose pose is the IK target.

Serves an interactive marker (namespace ``<node name>``, so RViz's InteractiveMarkers
display uses ``/ik_target_marker``) with move and rotate rings about x, y and z, placed at
the tool pose (FK of the first ``joint_states``) and re-placed by its menu entry
"Snap to tool". Every drag publishes the marker pose as a ``geometry_msgs/PoseStamped`` in
the chain's base frame on ``target_pose`` (remap it to the IK node's ``~/target_pose``);
in servo mode the arm follows live within its velocity limits. Needs the
``interactive_markers`` Python package of a ROS 2 install; without it the node says so and
exits with code 1 while every other target input keeps working.
"""

import sys
from typing import List, Optional

from geometry_msgs.msg import PoseStamped
import numpy as np
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data, QoSProfile, ReliabilityPolicy
from ros_ik.control.joint_state_cache import JointStateCache
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.node.chain_parameters import declare_and_load_chain
from ros_ik.node.messages import pose_message
from ros_ik.node.run import run_node
from sensor_msgs.msg import JointState
from visualization_msgs.msg import (InteractiveMarker, InteractiveMarkerControl,
                                    InteractiveMarkerFeedback, Marker)

try:
    from interactive_markers import InteractiveMarkerServer, MenuHandler
except ImportError:  # not on PyPI; ROS 2 installs ship it
    InteractiveMarkerServer = MenuHandler = None

MARKER_NAME = 'ik_target'
SNAP_TO_TOOL = 'Snap to tool'
TARGET_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
# Control orientations (w, x, y, z): a control acts along / about its own x axis.
AXES = {'x': (1.0, 1.0, 0.0, 0.0), 'y': (1.0, 0.0, 0.0, 1.0), 'z': (1.0, 0.0, 1.0, 0.0)}


def drag_marker(frame_id: str, T_base_tool: np.ndarray, scale: float) -> InteractiveMarker:
    """Return the 6-DOF interactive marker (a box with move/rotate controls) at the tool."""
    marker = InteractiveMarker(name=MARKER_NAME, description='IK target (drag me)',
                               scale=scale)
    marker.header.frame_id = frame_id
    marker.pose = pose_message(T_base_tool)
    box = Marker(type=Marker.CUBE)
    box.scale.x = box.scale.y = box.scale.z = 0.3 * scale
    box.color.r, box.color.g, box.color.b, box.color.a = 0.1, 0.4, 1.0, 0.8
    marker.controls.append(InteractiveMarkerControl(
        always_visible=True, markers=[box],
        interaction_mode=InteractiveMarkerControl.MOVE_ROTATE_3D, name='drag'))
    norm = np.sqrt(2.0)
    for axis, (w, x, y, z) in AXES.items():
        for mode, prefix in ((InteractiveMarkerControl.MOVE_AXIS, 'move_'),
                             (InteractiveMarkerControl.ROTATE_AXIS, 'rotate_')):
            control = InteractiveMarkerControl(name=prefix + axis, interaction_mode=mode)
            control.orientation.w, control.orientation.x = w / norm, x / norm
            control.orientation.y, control.orientation.z = y / norm, z / norm
            marker.controls.append(control)
    return marker


class TargetMarker(Node):
    """Interactive-marker server that turns drags into IK targets."""

    def __init__(self, **kwargs) -> None:
        """Load the chain, create the server, publisher and joint-state subscription."""
        super().__init__('ik_target_marker', **kwargs)
        chain = declare_and_load_chain(self)
        self.declare_parameter('scale', 0.2, ParameterDescriptor(
            description='marker size [m]', read_only=True,
            floating_point_range=[FloatingPointRange(from_value=0.01, to_value=5.0)]))
        self.kinematics = ChainKinematics(chain)
        self.joints = JointStateCache(chain.joint_names)
        self._server = InteractiveMarkerServer(self, self.get_name())
        self._menu = MenuHandler()
        self._menu.insert(SNAP_TO_TOOL, callback=self._on_snap)
        self._publisher = self.create_publisher(PoseStamped, 'target_pose', TARGET_QOS)
        self.create_subscription(JointState, 'joint_states', self._on_joint_state,
                                 qos_profile_sensor_data)
        self._placed = False

    def _tool_pose(self) -> Optional[np.ndarray]:
        """Return the current tool pose, or None before the first full joint state."""
        q = self.joints.positions()
        return None if q is None else self.kinematics.tip_pose(q)

    def _on_joint_state(self, message: JointState) -> None:
        """Track the joints; place the marker at the tool once they are known."""
        self.joints.update(message.name, message.position, 0.0)
        if self._placed:
            return
        T_base_tool = self._tool_pose()
        if T_base_tool is not None:
            marker = drag_marker(self.kinematics.chain.base_link, T_base_tool,
                                 self.get_parameter('scale').value)
            self._server.insert(marker, feedback_callback=self._on_feedback)
            self._menu.apply(self._server, MARKER_NAME)
            self._server.applyChanges()
            self._placed = True
            self.get_logger().info('drag target placed at the tool')

    def _publish(self, frame_id: str, pose) -> None:
        """Publish ``pose`` as the IK target."""
        message = PoseStamped(pose=pose)
        message.header.frame_id = frame_id
        message.header.stamp = self.get_clock().now().to_msg()
        self._publisher.publish(message)

    def _on_feedback(self, feedback: InteractiveMarkerFeedback) -> None:
        """Publish the dragged pose as the target."""
        if feedback.event_type in (InteractiveMarkerFeedback.POSE_UPDATE,
                                   InteractiveMarkerFeedback.MOUSE_UP):
            self._publish(feedback.header.frame_id or self.kinematics.chain.base_link,
                          feedback.pose)

    def _on_snap(self, feedback: InteractiveMarkerFeedback) -> None:
        """Move the marker back to the tool; the target becomes the tool pose (hold)."""
        T_base_tool = self._tool_pose()
        if T_base_tool is None:
            return
        pose = pose_message(T_base_tool)
        self._server.setPose(MARKER_NAME, pose)
        self._server.applyChanges()
        self._publish(self.kinematics.chain.base_link, pose)


class MissingInteractiveMarkers(RuntimeError):
    """The interactive_markers package is not installed."""


def create_target_marker() -> TargetMarker:
    """Return the node, or raise MissingInteractiveMarkers with what still works."""
    if InteractiveMarkerServer is None:
        raise MissingInteractiveMarkers(
            'the interactive_markers Python package is not installed (it ships with ROS 2 '
            'installs, not on PyPI): the 6-DOF drag target is unavailable; ~/target_pose, '
            '2D Goal Pose and Publish Point keep working')
    return TargetMarker()


def main(args: Optional[List[str]] = None) -> int:
    """Run the drag target; exit 1 if interactive_markers or the URDF is missing."""
    return run_node(create_target_marker, 'ik_target_marker',
                    (MissingInteractiveMarkers, UrdfError, OSError), args)


if __name__ == '__main__':
    sys.exit(main())
