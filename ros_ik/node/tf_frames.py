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
TF for the controller: frames outside the chain from ``/tf`` and ``/tf_static``.

Two ways, chosen at start-up (:func:`frame_source`), the same semantics
(:class:`ros_ik.control.frame_source.FrameSource`: ``T_base_frame`` at a stamp, 0 the
latest, stale beyond ``max_transform_age``, errors by kind):

* a ROS install with ``tf2_ros``: its ``Buffer`` and ``TransformListener``
  (:class:`Tf2RosFrames`), tf2's own cache and lookups;
* no ``tf2_ros`` (the PyPI wheels): ``tf2_msgs/TFMessage`` (built from its definition at
  install, see the README) on ``/tf`` and ``/tf_static``, subscribed with tf2's QoS
  (reliable, depth 100; static transient-local, so transforms published before the node
  started arrive) into :class:`ros_ik.kinematics.transform_buffer.TransformBuffer`
  (:class:`ListenerFrames`, a :class:`ros_ik.control.frame_source.BufferFrames`). Both
  are polled inputs (:mod:`ros_ik.node.polled_inputs`): the control cycle takes what
  arrived, serialized, before it looks anything up (:meth:`ListenerFrames.take`); an
  executor callback per message (robot_state_publisher's /tf comes at the joint-state
  rate) would cost about a tenth of a core at 1 kHz.

Neither installed: no frames outside the chain (a warning at start-up says so).
"""

from typing import Callable, Tuple

import numpy as np
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rclpy.time import Time
from ros_ik.control.frame_source import BufferFrames, check_age
from ros_ik.kinematics.transform_buffer import (CACHE_TIME, EXTRAPOLATION_FUTURE,
                                                EXTRAPOLATION_PAST, FrameError, NOT_CONNECTED,
                                                TransformBuffer, UNKNOWN_FRAME)
from ros_ik.kinematics.transforms import pose_matrix
from ros_ik.node.polled_inputs import PolledInputs

TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
TF_STATIC_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)

# s: the node's ROS clock now (absolute, ROS time) and max_transform_age
Clock = Callable[[], float]
MaxAge = Callable[[], float]
Warn = Callable[[str, str], None]  # (key, message): the node's throttled warning


def stamp_seconds(stamp) -> float:
    """Return a ``builtin_interfaces/Time`` in s."""
    return stamp.sec + stamp.nanosec * 1e-9


class ListenerFrames(BufferFrames):
    """``/tf`` and ``/tf_static`` into a :class:`TransformBuffer` (no tf2_ros)."""

    def __init__(self, polled: PolledInputs, message_type: type, base_frame: str,
                 now: Clock, max_age: MaxAge, warn: Warn) -> None:
        """Subscribe both topics, polled (``message_type``: tf2_msgs/TFMessage)."""
        super().__init__(TransformBuffer(CACHE_TIME), base_frame, now, max_age)
        self._warn, self._message_type = warn, message_type
        self._topics = ((polled.subscribe(message_type, '/tf', TF_QOS), False),
                        (polled.subscribe(message_type, '/tf_static', TF_STATIC_QOS), True))

    def take(self) -> None:
        """Add the transforms of every /tf and /tf_static message that arrived."""
        for topic, static in self._topics:
            for data, _ in topic.take(0.0):
                self._add(deserialize_message(data, self._message_type), static)

    def _add(self, message, static: bool) -> None:
        """Add every transform of a TFMessage to the buffer."""
        for transform in message.transforms:
            t, r = transform.transform.translation, transform.transform.rotation
            problem = self.buffer.set_transform(
                transform.header.frame_id, transform.child_frame_id,
                stamp_seconds(transform.header.stamp), (t.x, t.y, t.z), (r.x, r.y, r.z, r.w),
                static)
            if problem:
                self._warn('tf:transform', problem)


class Tf2RosFrames:
    """tf2_ros's Buffer and TransformListener (a ROS install)."""

    def __init__(self, node: Node, tf2_ros, base_frame: str, now: Clock,
                 max_age: MaxAge) -> None:
        """Start tf2_ros's listener on ``node`` (its executor spins it)."""
        self._tf2_ros = tf2_ros
        self.buffer = tf2_ros.Buffer(node=node)
        self._listener = tf2_ros.TransformListener(self.buffer, node, spin_thread=False)
        self.base_frame, self._now, self._max_age = base_frame, now, max_age

    def take(self) -> None:
        """Nothing to take: tf2_ros's listener runs on the node's executor."""

    def base_from(self, frame: str, stamp: float) -> Tuple[np.ndarray, float]:
        """Return ``(T_base_frame, t)`` from tf2's buffer; raise :class:`FrameError`."""
        tf2_ros = self._tf2_ros
        try:
            transform = self.buffer.lookup_transform(
                self.base_frame, frame.lstrip('/'),
                Time(nanoseconds=int(round(stamp * 1e9))))
        except tf2_ros.LookupException as error:
            raise FrameError(UNKNOWN_FRAME, str(error)) from None
        except tf2_ros.ConnectivityException as error:
            raise FrameError(NOT_CONNECTED, str(error)) from None
        except tf2_ros.ExtrapolationException as error:
            kind = EXTRAPOLATION_PAST if 'past' in str(error) else EXTRAPOLATION_FUTURE
            raise FrameError(kind, str(error)) from None
        except tf2_ros.TransformException as error:
            raise FrameError(UNKNOWN_FRAME, str(error)) from None
        time = stamp_seconds(transform.header.stamp)
        if stamp == 0.0:
            check_age(frame, self.base_frame, time, self._now(), self._max_age())
        t, r = transform.transform.translation, transform.transform.rotation
        return pose_matrix((t.x, t.y, t.z), (r.x, r.y, r.z, r.w)), time


def frame_source(node: Node, polled: PolledInputs, base_frame: str, now: Clock,
                 max_age: MaxAge, warn: Warn):
    """
    Return TF for ``node``: :class:`Tf2RosFrames`, :class:`ListenerFrames` or None.

    ``polled``: the node's polled inputs (the listener's topics). None (no tf2_ros and no
    tf2_msgs) is logged as a warning. The node calls ``take()`` every cycle.
    """
    try:
        import tf2_ros
    except ImportError:
        tf2_ros = None
    if tf2_ros is not None:
        node.get_logger().info('TF: tf2_ros (Buffer, TransformListener)')
        return Tf2RosFrames(node, tf2_ros, base_frame, now, max_age)
    try:
        from tf2_msgs.msg import TFMessage
    except ImportError:
        node.get_logger().warning('no TF: neither tf2_ros nor tf2_msgs is installed; targets '
                                  "and jogs only in the chain's frames")
        return None
    node.get_logger().info("TF: /tf and /tf_static (tf2_msgs) into ros_ik's transform buffer")
    return ListenerFrames(polled, TFMessage, base_frame, now, max_age, warn)
