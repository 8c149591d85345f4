"""The robot-model parameters shared by ros_ik's companion nodes (sim_arm, target_marker)."""

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from ros_ik.kinematics.chain import Chain
from ros_ik.kinematics.urdf_loader import load_urdf_file, load_urdf_string


def declare_and_load_chain(node: Node) -> Chain:
    """
    Declare ``robot_description``, ``robot_description_file``, ``base_link``, ``tip_link``.

    Return the chain they name: from the URDF text if given, else from the file (raises
    ``UrdfError`` subclasses naming the problem).
    """
    node.declare_parameter('robot_description', '', ParameterDescriptor(
        description='URDF XML (empty: robot_description_file)', read_only=True))
    node.declare_parameter('robot_description_file', '', ParameterDescriptor(
        description='URDF file path', read_only=True))
    node.declare_parameter('base_link', 'base_link', ParameterDescriptor(
        description='chain base link', read_only=True))
    node.declare_parameter('tip_link', 'tool0', ParameterDescriptor(
        description='chain tip link', read_only=True))
    base = node.get_parameter('base_link').value
    tip = node.get_parameter('tip_link').value
    text = node.get_parameter('robot_description').value
    if text:
        return load_urdf_string(text, base, tip)
    return load_urdf_file(node.get_parameter('robot_description_file').value, base, tip)
