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

r"""
A static transform on ``/tf_static``, as ``ros2 run tf2_ros static_transform_publisher``.

For machines without a ROS install (no tf2_ros): the same arguments, a real
``tf2_msgs/TFMessage`` published once with tf2's static QoS (reliable, transient-local,
depth 1: every listener that joins later receives it) and held until the process stops::

    static_transform_publisher --x 0 --y 0 --z 0.5 --yaw 1.5708 \\
        --frame-id world --child-frame-id base_link

Translation in m (``--x --y --z``), rotation as a quaternion (``--qx --qy --qz --qw``) or
roll, pitch, yaw in rad (``--roll --pitch --yaw``, fixed axes x, y, z: ``R = Rz(yaw)
Ry(pitch) Rx(roll)``), not both. ``T_frame_child``: a point ``p`` in the child frame is
``T p`` in ``frame_id``.
"""

import argparse
import os
import sys
from typing import List, Optional, Sequence

from geometry_msgs.msg import TransformStamped
import numpy as np
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.utilities import remove_ros_args
from ros_ik.kinematics.transforms import matrix_to_quaternion, rpy_to_matrix
from ros_ik.node.run import run_node
from tf2_msgs.msg import TFMessage

STATIC_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)


def static_transform_arguments(parent: str, child: str, xyz: Sequence[float],
                               rpy: Sequence[float]) -> List[str]:
    """Return the command-line arguments of ``T_parent_child`` (xyz m, rpy rad)."""
    return ([f'--{name}={float(value)!r}' for name, value in zip(
        ('x', 'y', 'z', 'roll', 'pitch', 'yaw'), tuple(xyz) + tuple(rpy))]
        + [f'--frame-id={parent}', f'--child-frame-id={child}'])


class TransformArgumentError(ValueError):
    """Arguments that give no transform (missing frames, both rotations, a zero quaternion)."""


def transform_of(argv: Sequence[str]) -> TransformStamped:
    """Return the transform the command-line arguments describe (no stamp); raise if none."""
    parser = argparse.ArgumentParser(prog='static_transform_publisher',
                                     description=__doc__.split('\n\n')[0])
    for axis in ('x', 'y', 'z', 'qx', 'qy', 'qz', 'qw', 'roll', 'pitch', 'yaw'):
        parser.add_argument(f'--{axis}', type=float, default=None)
    parser.add_argument('--frame-id', default='', help='parent frame')
    parser.add_argument('--child-frame-id', default='', help='child frame')
    args = parser.parse_args(list(argv))
    if not args.frame_id or not args.child_frame_id or args.frame_id == args.child_frame_id:
        raise TransformArgumentError('give two distinct frames: --frame-id and '
                                     '--child-frame-id')
    quaternion = [args.qx, args.qy, args.qz, args.qw]
    rpy = [args.roll, args.pitch, args.yaw]
    if any(value is not None for value in quaternion) and any(v is not None for v in rpy):
        raise TransformArgumentError('give the rotation as --qx --qy --qz --qw or as --roll '
                                     '--pitch --yaw, not both')
    if any(value is not None for value in quaternion):
        q = np.array([value or 0.0 for value in quaternion[:3]]
                     + [1.0 if args.qw is None else args.qw])
    else:
        q = matrix_to_quaternion(rpy_to_matrix(*[value or 0.0 for value in rpy]))
    values = np.concatenate([[args.x or 0.0, args.y or 0.0, args.z or 0.0], q])
    if not np.all(np.isfinite(values)) or np.linalg.norm(q) < 1e-6:
        raise TransformArgumentError(f'the transform is not finite or its quaternion is zero: '
                                     f'{values.tolist()}')
    q = q / np.linalg.norm(q)
    transform = TransformStamped()
    transform.header.frame_id, transform.child_frame_id = args.frame_id, args.child_frame_id
    t, r = transform.transform.translation, transform.transform.rotation
    t.x, t.y, t.z = (float(value) for value in values[:3])
    r.x, r.y, r.z, r.w = (float(value) for value in q)
    return transform


class StaticTransformPublisher(Node):
    """Publishes one static transform on /tf_static, latched."""

    def __init__(self, transform: TransformStamped) -> None:
        """Stamp the transform now and publish it once (transient-local)."""
        super().__init__(f'static_transform_publisher_{os.getpid()}')
        transform.header.stamp = self.get_clock().now().to_msg()
        self._publisher = self.create_publisher(TFMessage, '/tf_static', STATIC_QOS)
        self._publisher.publish(TFMessage(transforms=[transform]))
        self.get_logger().info(f'publishing {transform.header.frame_id} -> '
                               f'{transform.child_frame_id} on /tf_static')


def main(args: Optional[List[str]] = None) -> int:
    """Parse the transform, then publish it until stopped; 1 for arguments that give none."""
    argv = remove_ros_args(args if args is not None else sys.argv)[1:]
    try:
        transform = transform_of(argv)
    except TransformArgumentError as error:
        print(f'static_transform_publisher: {error}')
        return 1
    return run_node(lambda: StaticTransformPublisher(transform), 'static_transform_publisher',
                    (), args)
