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
Conversions between ROS messages and ros_ik's numpy types (the node's thin edge).

Joint commands list the chain's joints in chain order (base to tip), the order of
``Chain.joint_names``, in every command type.
"""

from typing import Dict, List, Optional, Sequence, Tuple

from builtin_interfaces.msg import Duration, Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Point, Pose, Vector3
import numpy as np
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.control.cycle_types import MarkerState
from ros_ik.control.trajectory_horizon import Horizon
from ros_ik.kinematics.transforms import matrix_to_quaternion
from sensor_msgs.msg import JointState
from std_msgs.msg import ColorRGBA
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
from visualization_msgs.msg import Marker, MarkerArray

# command_type -> message type (topics: ros_ik.control.command_topics).
COMMAND_MESSAGES = {'joint_state': JointState, 'joint_trajectory': JointTrajectory,
                    'float64_multi_array': Float64MultiArray}
DIAGNOSTIC_LEVELS = {'OK': DiagnosticStatus.OK, 'WARN': DiagnosticStatus.WARN,
                     'ERROR': DiagnosticStatus.ERROR}


def pose_components(pose: Pose) -> Tuple[Sequence[float], Sequence[float]]:
    """Return ``(position xyz, quaternion xyzw)`` of a geometry_msgs Pose."""
    p, o = pose.position, pose.orientation
    return (p.x, p.y, p.z), (o.x, o.y, o.z, o.w)


def vector(message: Vector3) -> Tuple[float, float, float]:
    """Return ``(x, y, z)`` of a geometry_msgs Vector3."""
    return message.x, message.y, message.z


def pose_message(T: np.ndarray) -> Pose:
    """Return a geometry_msgs Pose of the 4x4 transform ``T``."""
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in T[:3, 3])
    x, y, z, w = matrix_to_quaternion(T[:3, :3])
    pose.orientation.x, pose.orientation.y = float(x), float(y)
    pose.orientation.z, pose.orientation.w = float(z), float(w)
    return pose


NANOSECONDS_PER_SECOND = 10 ** 9


def clock_nanoseconds(epoch_ns: int, seconds: float) -> int:
    """Return the clock's time ``seconds`` (s) after ``epoch_ns`` (ns), to the nearest ns."""
    return epoch_ns + int(round(seconds * 1e9))


def split_nanoseconds(nanoseconds: int) -> Tuple[int, int]:
    """Return ``(sec, nanosec)`` of a time or duration in ns, ``0 <= nanosec < 1e9``."""
    return divmod(nanoseconds, NANOSECONDS_PER_SECOND)


def joint_trajectory_command(joint_names: Sequence[str], horizon: Horizon,
                             epoch_ns: int) -> JointTrajectory:
    """
    Return the JointTrajectory of a command's horizon (positions, velocities, accelerations).

    ``header.stamp`` is the time of the first point (``epoch_ns`` plus its time, the node's
    clock) and ``time_from_start`` counts from it, so successive messages name the same
    instants alike (see :mod:`ros_ik.control.trajectory_horizon`).
    """
    times = horizon.times
    message = JointTrajectory(joint_names=list(joint_names))
    start_ns = clock_nanoseconds(epoch_ns, float(times[0]))
    sec, nanosec = split_nanoseconds(start_ns)
    message.header.stamp = Time(sec=sec, nanosec=nanosec)
    message.points = [
        JointTrajectoryPoint(
            positions=positions.tolist(), velocities=velocities.tolist(),
            accelerations=accelerations.tolist(),
            time_from_start=Duration(sec=offset_sec, nanosec=offset_nanosec))
        for positions, velocities, accelerations, (offset_sec, offset_nanosec) in zip(
            horizon.positions, horizon.velocities, horizon.accelerations,
            map(split_nanoseconds,
                (epoch_ns + np.round(times * 1e9).astype(np.int64) - start_ns).tolist()))]
    return message


def diagnostic_status(name: str, hardware_id: str, level: str, message: str,
                      values: Dict[str, str]) -> DiagnosticStatus:
    """Return a DiagnosticStatus (``level``: OK, WARN or ERROR)."""
    return DiagnosticStatus(level=DIAGNOSTIC_LEVELS[level], name=name, message=message,
                            hardware_id=hardware_id,
                            values=[KeyValue(key=key, value=value)
                                    for key, value in values.items()])


def diagnostics(stamp: Time, name: str, hardware_id: str, level: str, message: str,
                values: Dict[str, str]) -> DiagnosticArray:
    """Return a DiagnosticArray with one status."""
    array = DiagnosticArray(status=[diagnostic_status(name, hardware_id, level, message,
                                                      values)])
    array.header.stamp = stamp
    return array


def format_value(value: Optional[float]) -> str:
    """Format a diagnostic number (``-`` when unknown)."""
    return '-' if value is None else f'{value:.6g}'


def ik_markers(frame_id: str, stamp: Time, state: MarkerState,
               ellipsoid_scale: float) -> MarkerArray:
    """
    Return the target and the manipulability ellipsoid as RViz markers (namespace ros_ik).

    The ellipsoid ``{J_v dq : |dq| <= 1}`` is drawn at the tip with semi-axes ``sigma_i``
    times ``ellipsoid_scale`` (m per m/s) along the left singular vectors of ``J_v``; it
    flattens toward a disc or a needle as a singularity approaches (red when near one).
    A pose target is an arrow along its x axis, a point target a sphere. The closest pair
    of the collision checks is a line between its witness points (namespace
    ``ros_ik_closest_pair``; red within 5 cm). A Cartesian path is a line strip through
    tool positions along it (namespace ``ros_ik_path``).
    """
    markers = []
    T_base_target, position_only = state.T_base_target, state.position_only
    if T_base_target is not None:
        target = Marker(ns='ros_ik', id=0, action=Marker.ADD)
        target.type = Marker.SPHERE if position_only else Marker.ARROW
        target.pose = pose_message(T_base_target)
        target.scale.x, target.scale.y, target.scale.z = ((0.04, 0.04, 0.04) if position_only
                                                          else (0.12, 0.015, 0.015))
        target.color = ColorRGBA(r=0.1, g=0.4, b=1.0, a=0.9)
        markers.append(target)
    ellipsoid = Marker(ns='ros_ik', id=1, action=Marker.ADD, type=Marker.SPHERE)
    T_base_ellipsoid = np.eye(4)
    T_base_ellipsoid[:3, :3] = state.R_base_ellipsoid
    T_base_ellipsoid[:3, 3] = state.T_base_tip[:3, 3]
    ellipsoid.pose = pose_message(T_base_ellipsoid)
    diameters = np.maximum(2.0 * state.semi_axes * ellipsoid_scale, 1e-3)
    ellipsoid.scale.x, ellipsoid.scale.y, ellipsoid.scale.z = (float(v) for v in diameters)
    ellipsoid.color = (ColorRGBA(r=1.0, g=0.2, b=0.1, a=0.5) if state.near_singularity
                       else ColorRGBA(r=0.2, g=0.9, b=0.3, a=0.4))
    markers.append(ellipsoid)
    closest = state.closest
    if closest is not None:
        line = Marker(ns='ros_ik_closest_pair', id=0, type=Marker.LINE_LIST, action=Marker.ADD)
        line.points = [Point(x=float(p[0]), y=float(p[1]), z=float(p[2]))
                       for p in (closest.p_a, closest.p_b)]
        line.scale.x = 0.005
        line.color = (ColorRGBA(r=1.0, g=0.1, b=0.1, a=1.0) if closest.distance < 0.05
                      else ColorRGBA(r=1.0, g=0.8, b=0.1, a=0.8))
        markers.append(line)
    if state.path_points is not None:
        path = Marker(ns='ros_ik_path', id=0, type=Marker.LINE_STRIP, action=Marker.ADD)
        path.points = [Point(x=float(x), y=float(y), z=float(z))
                       for x, y, z in state.path_points]
        path.scale.x = 0.004
        path.color = ColorRGBA(r=1.0, g=0.5, b=0.0, a=0.9)
        markers.append(path)
    for marker in markers:
        marker.header.frame_id = frame_id
        marker.header.stamp = stamp
    return MarkerArray(markers=markers)


SCENE_MARKER_TYPES = {'box': Marker.CUBE, 'sphere': Marker.SPHERE, 'cylinder': Marker.CYLINDER}


def scene_markers(frame_id: str, stamp: Time, model: CollisionModel,
                  q: Optional[np.ndarray]) -> List[Marker]:
    """
    Return the scene objects as markers (namespace ``ros_ik_scene``, one id per object).

    Objects attached to a link are drawn where the joints ``q`` put them (at rest without
    joints); boxes, spheres and cylinders take their dimensions as RViz scales.
    """
    scene_names = {item.name for item in model.scene}
    if not scene_names:
        return []
    poses = model.element_poses(q if q is not None else
                                np.zeros(model.kinematics.n_joints))
    markers = []
    for index, (element, T_base_shape) in enumerate(zip(model.elements, poses)):
        if element.owner not in scene_names:
            continue
        shape = element.shape
        marker = Marker(ns='ros_ik_scene', id=index, type=SCENE_MARKER_TYPES[shape.kind],
                        action=Marker.ADD, text=element.owner)
        marker.header.frame_id = frame_id
        marker.header.stamp = stamp
        marker.pose = pose_message(T_base_shape)
        diameter = 2.0 * shape.radius
        marker.scale.x, marker.scale.y, marker.scale.z = (
            shape.size if shape.kind == 'box' else
            (diameter, diameter, shape.length if shape.kind == 'cylinder' else diameter))
        marker.color = ColorRGBA(r=0.6, g=0.6, b=0.7, a=0.6)
        markers.append(marker)
    return markers
