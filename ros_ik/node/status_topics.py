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
What the node reports besides its commands: manipulability, ``/diagnostics``, markers.

``~/manipulability`` (every cycle that measured it) and ``~/markers`` (every
``marker_period``) are only computed while something subscribes; ``/diagnostics`` carries
the controller's status as ``<node name>: ik`` every ``diagnostics_period``. All reliable,
depth 10.
"""

from typing import Optional

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.control.controller import IkController
from ros_ik.node.messages import diagnostics, format_value, ik_markers, scene_markers
from std_msgs.msg import Float64
from visualization_msgs.msg import MarkerArray

STATUS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)


class StatusTopics:
    """The report publishers of one node (see the module docstring)."""

    def __init__(self, node: Node) -> None:
        """Create the publishers."""
        self._node = node
        self._manipulability = node.create_publisher(Float64, '~/manipulability', STATUS_QOS)
        self._diagnostics = node.create_publisher(DiagnosticArray, '/diagnostics', STATUS_QOS)
        self._markers = node.create_publisher(MarkerArray, '~/markers', STATUS_QOS)

    def publish_manipulability(self, value: Optional[float]) -> None:
        """Publish a manipulability just measured (None: none this cycle), if subscribed."""
        if value is not None and self._manipulability.get_subscription_count():
            self._manipulability.publish(Float64(data=value))

    def publish_markers(self, controller: Optional[IkController],
                        collision_model: Optional[CollisionModel],
                        ellipsoid_scale: float) -> None:
        """Publish the target, ellipsoid, path and scene at the measured joints, if subscribed."""
        if controller is None or not self._markers.get_subscription_count():
            return  # nobody draws them (RViz subscribes when its MarkerArray display is on)
        state = controller.marker_state()
        if state is None:
            return
        base_link = controller.arm.chain.base_link
        stamp = self._node.get_clock().now().to_msg()
        markers = ik_markers(base_link, stamp, state, ellipsoid_scale)
        if collision_model is not None:
            markers.markers.extend(scene_markers(base_link, stamp, collision_model,
                                                 controller.joints.positions()))
        self._markers.publish(markers)

    def publish_diagnostics(self, controller: Optional[IkController]) -> None:
        """Publish the controller's status as ``<node name>: ik``, with its values."""
        if controller is None:
            level, message, values, hardware_id = ('WARN', 'waiting for the robot model', {},
                                                   '')
        else:
            status = controller.report()
            level, message, values = status.level, status.message, status.values
            chain = controller.arm.chain
            hardware_id = f'{chain.base_link}->{chain.tip_link}'
        self._diagnostics.publish(diagnostics(
            self._node.get_clock().now().to_msg(), f'{self._node.get_name()}: ik', hardware_id,
            level, message, {key: value if isinstance(value, str) else format_value(value)
                             for key, value in values.items()}))
