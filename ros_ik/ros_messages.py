"""
Conversions between ROS messages and ros_ik's numpy types (the node's thin edge).

Joint commands list the chain's joints in chain order (base to tip), the order of
``Chain.joint_names``, in every command type.
"""

from typing import Dict, Optional, Sequence, Tuple

from builtin_interfaces.msg import Duration, Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Pose
import numpy as np
from ros_ik.transforms import matrix_to_quaternion
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

DIAGNOSTIC_LEVELS = {'OK': DiagnosticStatus.OK, 'WARN': DiagnosticStatus.WARN,
                     'ERROR': DiagnosticStatus.ERROR}


def pose_components(pose: Pose) -> Tuple[Sequence[float], Sequence[float]]:
    """Return ``(position xyz, quaternion xyzw)`` of a geometry_msgs Pose."""
    p, o = pose.position, pose.orientation
    return (p.x, p.y, p.z), (o.x, o.y, o.z, o.w)


def pose_message(T: np.ndarray) -> Pose:
    """Return a geometry_msgs Pose of the 4x4 transform ``T``."""
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in T[:3, 3])
    x, y, z, w = matrix_to_quaternion(T[:3, :3])
    pose.orientation.x, pose.orientation.y = float(x), float(y)
    pose.orientation.z, pose.orientation.w = float(z), float(w)
    return pose


def duration(seconds: float) -> Duration:
    """Return a builtin_interfaces Duration of ``seconds``."""
    whole = int(seconds)
    return Duration(sec=whole, nanosec=int(round((seconds - whole) * 1e9)))


def joint_state_command(joint_names: Sequence[str], q: np.ndarray, velocity: np.ndarray,
                        stamp: Time) -> JointState:
    """Return a sensor_msgs JointState command (positions and velocities)."""
    message = JointState()
    message.header.stamp = stamp
    message.name = list(joint_names)
    message.position = [float(v) for v in q]
    message.velocity = [float(v) for v in velocity]
    return message


def joint_trajectory_command(joint_names: Sequence[str], q: np.ndarray, velocity: np.ndarray,
                             time_from_start: float) -> JointTrajectory:
    """
    Return a one-point JointTrajectory reached ``time_from_start`` seconds from now.

    The header stamp stays zero, which JointTrajectoryController reads as "start now";
    each new command replaces the previous one.
    """
    point = JointTrajectoryPoint(positions=[float(v) for v in q],
                                 velocities=[float(v) for v in velocity],
                                 time_from_start=duration(time_from_start))
    return JointTrajectory(joint_names=list(joint_names), points=[point])


def position_array_command(q: np.ndarray) -> Float64MultiArray:
    """Return a Float64MultiArray of positions (forward_position_controller)."""
    return Float64MultiArray(data=[float(v) for v in q])


def diagnostics(stamp: Time, name: str, hardware_id: str, level: str, message: str,
                values: Dict[str, str]) -> DiagnosticArray:
    """Return a DiagnosticArray with one status."""
    status = DiagnosticStatus(level=DIAGNOSTIC_LEVELS[level], name=name, message=message,
                              hardware_id=hardware_id,
                              values=[KeyValue(key=key, value=value)
                                      for key, value in values.items()])
    array = DiagnosticArray(status=[status])
    array.header.stamp = stamp
    return array


def format_value(value: Optional[float]) -> str:
    """Format a diagnostic number (``-`` when unknown)."""
    return '-' if value is None else f'{value:.6g}'
