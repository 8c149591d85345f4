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

"""The robot-model and limit parameters shared by the companion nodes (sim_arm, target_marker)."""

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from ros_ik.control.motion_limit_sources import (LimitDefaults, resolve_motion_limits,
                                                 ResolvedLimits)
from ros_ik.control.parameters import PARAMETER_TABLE
from ros_ik.kinematics.chain import Chain
from ros_ik.kinematics.urdf_loader import load_urdf_string, read_robot_description

# The companions read the URDF once at start-up (no topic): their own descriptions, the
# IK node's defaults.
DESCRIPTIONS = {'robot_description': 'URDF XML (empty: robot_description_file)',
                'robot_description_file': 'URDF or .xacro file path',
                'xacro_args': 'arguments of a .xacro file, "name:=value ..."',
                'base_link': 'chain base link', 'tip_link': 'chain tip link'}


def declare_and_load_chain(node: Node) -> Chain:
    """
    Declare the robot model parameters and load the chain they name.

    The parameters: ``robot_description``, ``robot_description_file``, ``xacro_args``,
    ``base_link``, ``tip_link``.

    Return the chain they name: from the URDF text if given, else from the file (raises
    ``UrdfError`` subclasses naming the problem).
    """
    for name, description in DESCRIPTIONS.items():
        node.declare_parameter(name, PARAMETER_TABLE[name].default, ParameterDescriptor(
            description=description, read_only=True))
    return load_urdf_string(robot_description_text(node),
                            node.get_parameter('base_link').value,
                            node.get_parameter('tip_link').value)


def robot_description_text(node: Node) -> str:
    """
    Return the URDF XML the declared parameters give (see :func:`declare_and_load_chain`).

    ``robot_description`` if set, else ``robot_description_file`` expanded with
    ``xacro_args`` (raises ``MalformedUrdfError`` naming the problem).
    """
    text = node.get_parameter('robot_description').value
    if text:
        return text
    return read_robot_description(node.get_parameter('robot_description_file').value,
                                  node.get_parameter('xacro_args').value)


def declare_and_load_motion_limits(node: Node, chain: Chain) -> ResolvedLimits:
    """
    Declare ``joint_limits_file`` and ``default_max_*`` (the IK node's defaults); load them.

    Return the chain's limits resolved as the IK node resolves them (raises
    ``JointLimitsError``), so the companion enforces the limits the IK node plans with.
    """
    for name in ('joint_limits_file', 'default_max_velocity', 'default_max_acceleration',
                 'default_max_jerk'):
        parameter = PARAMETER_TABLE[name]
        node.declare_parameter(name, parameter.default, ParameterDescriptor(
            description=parameter.spec.description, read_only=True))
    values = {name: node.get_parameter(name).value for name in (
        'default_max_velocity', 'default_max_acceleration', 'default_max_jerk')}
    defaults = LimitDefaults(*(float(values[f'default_max_{kind}'])
                               for kind in ('velocity', 'acceleration', 'jerk')))
    return resolve_motion_limits(chain, node.get_parameter('joint_limits_file').value,
                                 defaults, {})
