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
Declare the parameter table (:mod:`ros_ik.control.parameters`) on an rclpy node.

Every parameter gets a descriptor with its description, read-only flag and range (a
``FloatingPointRange``, so ``ros2 param describe`` shows it and rclpy rejects values
outside it); choices are listed in the description. Start-up values (``-p name:=value``,
parameter files) are validated by the table *before* anything is declared, so a bad value
ends the node with one line naming the parameter, the value and what is allowed.
"""

from typing import Any, Dict, List, Mapping, Tuple

from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter as RosParameter
from ros_ik.control.motion_limit_sources import PARAMETER_PREFIX
from ros_ik.control.parameters import Parameter, PARAMETER_TABLE, PARAMETERS, Settings

# Declared by rclpy itself on every node.
ROS_OWN_PARAMETERS = ('use_sim_time', 'start_type_description_service')


def descriptor(parameter: Parameter) -> ParameterDescriptor:
    """Return the ROS descriptor of ``parameter`` (description, range, read-only)."""
    spec = parameter.spec
    description = spec.description
    if spec.choices:
        description += f' (one of: {", ".join(spec.choices)})'
    result = ParameterDescriptor(description=description, read_only=spec.read_only)
    if spec.value_range is not None:
        low, high = spec.value_range
        result.floating_point_range = [FloatingPointRange(from_value=low, to_value=high,
                                                          step=0.0)]
    return result


def declare_settings(node: Node, overrides: Mapping[str, Any]) -> Tuple[Settings, List[str]]:
    """
    Validate the start-up ``overrides`` (name -> value) and declare every parameter.

    Return the settings and the names of overrides that are not parameters of the table
    (misspellings: the caller warns). Raises ``ParameterError`` for a bad value.
    """
    known = {name: value for name, value in overrides.items() if name in PARAMETER_TABLE}
    settings = Settings.from_values(known)
    for parameter in PARAMETERS:
        node.declare_parameter(parameter.name, getattr(settings, parameter.name),
                               descriptor(parameter), ignore_override=True)
    unknown = sorted(name for name in overrides
                     if name not in PARAMETER_TABLE and name not in ROS_OWN_PARAMETERS
                     and not name.startswith(PARAMETER_PREFIX))
    return settings, unknown


def declare_joint_limit_overrides(node: Node, overrides: Mapping[str, Any]) -> Dict[str, Any]:
    """
    Declare the start-up ``joint_limits.<joint>.<field>`` parameters (read-only); return them.

    They are per-joint overrides of the limits (see
    :mod:`ros_ik.control.motion_limit_sources`); integers are taken as doubles.
    """
    values = {}
    for name, value in overrides.items():
        if not name.startswith(PARAMETER_PREFIX):
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        node.declare_parameter(name, value, ParameterDescriptor(
            description='per-joint motion limit (joint_limits.yaml field)', read_only=True),
            ignore_override=True)
        values[name] = value
    return values


def as_declared_types(parameters: List[RosParameter]) -> List[RosParameter]:
    """Return ``parameters`` with integers given for double parameters made doubles."""
    converted = []
    for parameter in parameters:
        entry = PARAMETER_TABLE.get(parameter.name)
        if (entry is not None and entry.value_type is float
                and parameter.type_ == RosParameter.Type.INTEGER):
            parameter = RosParameter(parameter.name, RosParameter.Type.DOUBLE,
                                     float(parameter.value))
        converted.append(parameter)
    return converted
