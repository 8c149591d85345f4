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
The node's target and jog topics: kept serialized as they arrive, the newest handed over.

Every target, path and jog topic is subscribed serialized (``raw``); an arrival stores its bytes
as the newest input of all of them (:class:`ros_ik.node.serialized_inputs.NewestInput`), so a
flood costs a store per message and an idle topic nothing. Once per control cycle
:meth:`InputTopics.hand_over` reads that one message (targets straight from their CDR bytes)
and hands it to the controller, which validates it.

QoS: targets reliable, depth 1 (only the newest matters); jogs best effort, depth 1 (a
lost twist is replaced a period later; best effort accepts either kind of publisher).
"""

from functools import partial
from typing import Any, Callable, List, Optional, Type, Union

from geometry_msgs.msg import PointStamped, PoseStamped, Twist, TwistStamped
from nav_msgs.msg import Path
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from ros_ik.control.controller import IkController
from ros_ik.control.cycle_types import Notice
from ros_ik.control.path_input import MAX_WAYPOINTS, PathOptions
from ros_ik.node.messages import vector
from ros_ik.node.path_messages import PathFields, read_path
from ros_ik.node.serialized_inputs import (NewestInput, point_target_fields,
                                           pose_target_fields, TargetFields)
from sensor_msgs.msg import JointState

try:  # MoveIt Servo's joint jog message, where control_msgs is installed
    from control_msgs.msg import JointJog
except ImportError:
    JointJog = None

TARGET_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
JOG_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)

# What the cycle runs on the newest input: (message, receive time [s]) -> notices.
InputHandler = Callable[[Any, float], List[Notice]]


class InputTopics:
    """The target and jog subscriptions of one node (see the module docstring)."""

    def __init__(self, node: Node, now: Callable[[], float],
                 on_arrival: Callable[[], None]) -> None:
        """
        Subscribe every target and jog topic of ``node``.

        ``now()``: the receive time (s); ``on_arrival()``: called when an input arrives
        (the node may run a cycle at once for an arm at rest).
        """
        self._node = node
        self.controller: Optional[IkController] = None  # set once the robot model is loaded
        self._newest = NewestInput(now, on_arrival)
        self.subscribe(PoseStamped, '~/target_pose', self._take_target_pose, TARGET_QOS,
                       pose_target_fields)
        self.subscribe(PointStamped, '~/target_point', self._take_target_point, TARGET_QOS,
                       point_target_fields)
        self.subscribe(PoseStamped, '~/planar_goal', self._take_planar_goal, TARGET_QOS,
                       pose_target_fields)
        self.subscribe(Path, '~/target_path', self._take_path, TARGET_QOS, read_path)
        self.subscribe(TwistStamped, '~/delta_twist_cmds', self._take_twist, JOG_QOS)
        self.subscribe(Twist, '~/delta_twist_cmds_unstamped', self._take_unstamped_twist,
                       JOG_QOS)
        self.subscribe(JointState, '~/delta_joint_cmds', self._take_joint_jog, JOG_QOS)
        if JointJog is not None:
            self.subscribe(JointJog, '~/delta_joint_jog_cmds', self._take_joint_jog_message,
                           JOG_QOS)

    def subscribe(self, message_type: Type, topic: str, handler: InputHandler,
                  qos: QoSProfile, read: Optional[Callable[[bytes], object]] = None) -> None:
        """
        Subscribe ``topic`` (serialized): its messages become the newest input.

        ``handler(read(bytes), receive_time)`` runs in the cycle (``read``: deserialization
        if not given).
        """
        if read is None:
            read = partial(deserialize_message, message_type=message_type)
        self._node.create_subscription(message_type, topic,
                                       self._newest.keeper(handler, read), qos, raw=True)

    def hand_over(self) -> List[Notice]:
        """Hand the controller the newest input since the last cycle; return its notices."""
        newest = self._newest.take()
        if newest is None:
            return []
        handler, read, data, receive_time = newest
        return handler(read(data), receive_time)

    def _take_target_pose(self, fields: TargetFields, receive_time: float) -> List[Notice]:
        """Hand over a full-pose target."""
        return self._hand_over_target(fields, 'pose', receive_time)

    def _take_planar_goal(self, fields: TargetFields, receive_time: float) -> List[Notice]:
        """Hand over a planar goal (RViz 2D Goal Pose), read per planar_goal_mode."""
        return self._hand_over_target(fields, 'planar', receive_time)

    def _take_target_point(self, fields: TargetFields, receive_time: float) -> List[Notice]:
        """Hand over a point target (orientation free or held, per point_orientation)."""
        return self._hand_over_target(fields, 'point', receive_time)

    def _hand_over_target(self, fields: TargetFields, kind: str,
                          receive_time: float) -> List[Notice]:
        """Hand over a target of ``kind``: frame, pose, its stamp (s) and receive time (s)."""
        frame_id, position, quaternion, stamp = fields
        return self.controller.set_target(frame_id, position, quaternion, kind, receive_time,
                                          stamp)

    def _take_path(self, fields: Union[PathFields, int], receive_time: float) -> List[Notice]:
        """Hand over a Cartesian path (a waypoint count: too many to read)."""
        if isinstance(fields, int):
            return self.controller.inputs.refuse('path:too_long', f'path ignored: {fields} '
                                                 f'waypoints, at most {MAX_WAYPOINTS} are '
                                                 'taken (split it)')
        return self.controller.set_path(*fields, PathOptions(), receive_time)[1]

    def _take_twist(self, message: TwistStamped, receive_time: float) -> List[Notice]:
        """Hand over a jog twist in its header's frame (empty: twist_frame)."""
        return self.controller.set_twist(message.header.frame_id, vector(message.twist.linear),
                                         vector(message.twist.angular), receive_time)

    def _take_unstamped_twist(self, message: Twist, receive_time: float) -> List[Notice]:
        """Hand over a jog twist in twist_frame (teleop_twist_keyboard, teleop_twist_joy)."""
        return self.controller.set_twist('', vector(message.linear), vector(message.angular),
                                         receive_time)

    def _take_joint_jog(self, message: JointState, receive_time: float) -> List[Notice]:
        """Hand over joint velocities by name (JointState: name and velocity)."""
        return self.controller.set_joint_jog(message.name, message.velocity, receive_time)

    def _take_joint_jog_message(self, message, receive_time: float) -> List[Notice]:
        """Hand over a control_msgs/JointJog's velocities by name."""
        return self.controller.set_joint_jog(message.joint_names, message.velocities,
                                             receive_time)
