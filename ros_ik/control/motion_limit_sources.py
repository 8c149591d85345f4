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
Where each joint's motion limits come from: URDF, joint_limits.yaml, parameters, defaults.

For joint ``j`` (units of the joint: rad or m, per s, s^2, s^3), the first source that gives
a value wins:

1. a per-joint parameter ``joint_limits.<j>.<field>`` (the joint_limits.yaml fields, so a
   MoveIt file can also be loaded as the node's parameters);
2. the file named by ``joint_limits_file``, MoveIt's format::

       joint_limits:
         <j>: {has_velocity_limits: true, max_velocity: 2.0,
               has_acceleration_limits: true, max_acceleration: 5.0,
               has_jerk_limits: true, max_jerk: 50.0,
               has_position_limits: true, min_position: -1.0, max_position: 1.0}

3. for position and velocity, the URDF;
4. the parameters ``default_max_velocity``, ``default_max_acceleration`` and
   ``default_max_jerk`` (conservative; the joints using them are named in a warning, as
   MoveIt's time parameterisation warns when it falls back to 1 rad/s^2).

Velocity and position limits from a file or parameter can only tighten the URDF's (the URDF
describes the hardware). Continuous joints keep infinite position bounds.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

from ros_ik.kinematics.chain import Chain
from ros_ik.trajectory.motion_limits import MotionLimits
import yaml

# joint_limits.yaml field -> the flag that enables it.
LIMIT_FIELDS = {'max_velocity': 'has_velocity_limits',
                'max_acceleration': 'has_acceleration_limits',
                'max_jerk': 'has_jerk_limits', 'min_position': 'has_position_limits',
                'max_position': 'has_position_limits'}
PARAMETER_PREFIX = 'joint_limits.'


class JointLimitsError(ValueError):
    """An unreadable or invalid joint_limits file or per-joint limit parameter."""


@dataclass(frozen=True)
class LimitDefaults:
    """Limits of joints no source gives one for: velocity, acceleration, jerk (per s^k)."""

    velocity: float
    acceleration: float
    jerk: float

    @classmethod
    def of(cls, settings: Any) -> 'LimitDefaults':
        """Return the ``default_max_*`` values of a settings object (the parameter table)."""
        return cls(settings.default_max_velocity, settings.default_max_acceleration,
                   settings.default_max_jerk)


@dataclass(frozen=True)
class ResolvedLimits:
    """The chain's limits and the joints that fell back to a default per kind."""

    limits: MotionLimits
    defaulted: Dict[str, Tuple[str, ...]]

    def warning(self) -> str:
        """Return a warning naming the joints on default limits ('' if none)."""
        parts = [f'{kind} for {", ".join(joints)}'
                 for kind, joints in self.defaulted.items() if joints]
        if not parts:
            return ''
        return ('no limit given, using the conservative default_max_* parameters: '
                + '; '.join(parts) + ' (set them in joint_limits_file or joint_limits.* '
                'parameters)')


def read_joint_limits_file(path: str) -> Dict[str, Dict[str, Any]]:
    """Return ``joint -> {field: value}`` enabled in a MoveIt-style joint_limits.yaml."""
    try:
        with open(path, encoding='utf-8') as limits_file:
            document = yaml.safe_load(limits_file)
    except OSError as error:
        raise JointLimitsError(f'cannot read joint_limits_file "{path}": '
                               f'{error.strerror}') from error
    except yaml.YAMLError as error:
        raise JointLimitsError(f'joint_limits_file "{path}" is not valid YAML: '
                               f'{error}') from error
    joints = (document or {}).get('joint_limits') if isinstance(document, dict) else None
    if not isinstance(joints, dict):
        raise JointLimitsError(f'joint_limits_file "{path}" has no "joint_limits:" mapping')
    return {name: _enabled_fields(name, entry, path) for name, entry in joints.items()
            if isinstance(entry, dict)}


def _enabled_fields(joint: str, entry: Mapping[str, Any], source: str) -> Dict[str, float]:
    """Return the numeric fields of one joint's entry whose ``has_*`` flag is true."""
    values = {}
    for name, flag in LIMIT_FIELDS.items():
        if name in entry and entry.get(flag, False):
            values[name] = _number(entry[name], f'{source}: {joint}.{name}')
    return values


def _number(value: Any, what: str) -> float:
    """Return ``value`` as a finite float or raise JointLimitsError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(
            value):
        raise JointLimitsError(f'{what} = {value!r} is not a finite number')
    return float(value)


def per_joint_parameters(values: Mapping[str, Any]) -> Dict[str, Dict[str, float]]:
    """
    Return ``joint -> {field: value}`` from ``joint_limits.<joint>.<field>`` parameters.

    ``has_*`` flags among them are honoured (false drops the field); unknown fields raise.
    """
    grouped: Dict[str, Dict[str, Any]] = {}
    for name, value in values.items():
        if not name.startswith(PARAMETER_PREFIX):
            continue
        joint, _, field_name = name[len(PARAMETER_PREFIX):].rpartition('.')
        if not joint or (field_name not in LIMIT_FIELDS
                         and field_name not in LIMIT_FIELDS.values()):
            raise JointLimitsError(f'parameter {name}: expected joint_limits.<joint>.<field> '
                                   f'with a field of {", ".join(LIMIT_FIELDS)}')
        grouped.setdefault(joint, {})[field_name] = value
    result = {}
    for joint, entry in grouped.items():
        flags = {flag: entry.get(flag, True) for flag in set(LIMIT_FIELDS.values())}
        result[joint] = _enabled_fields(joint, {**entry, **flags}, 'parameter joint_limits')
    return result


def resolve_motion_limits(chain: Chain, joint_limits_file: str, defaults: LimitDefaults,
                          parameters: Mapping[str, Any]) -> ResolvedLimits:
    """
    Return the chain's motion limits from the sources above (raises JointLimitsError).

    ``joint_limits_file``: '' for none; ``parameters``: name -> value, of which the
    ``joint_limits.<joint>.<field>`` ones are used.
    """
    from_file = read_joint_limits_file(joint_limits_file) if joint_limits_file else {}
    from_parameters = per_joint_parameters(parameters)
    unknown = sorted(set(from_parameters) - set(chain.joint_names))
    if unknown:
        raise JointLimitsError(f'joint_limits parameters name joints outside the chain: '
                               f'{", ".join(unknown)}')
    fallback = {'max_velocity': defaults.velocity, 'max_acceleration': defaults.acceleration,
                'max_jerk': defaults.jerk}
    columns: Dict[str, List[float]] = {name: [] for name in LIMIT_FIELDS}
    defaulted: Dict[str, List[str]] = {'velocity': [], 'acceleration': [], 'jerk': []}
    for joint in chain.joints:
        given = {**from_file.get(joint.name, {}), **from_parameters.get(joint.name, {})}
        urdf = {'max_velocity': joint.velocity, 'min_position': joint.lower,
                'max_position': joint.upper}
        for name in LIMIT_FIELDS:
            value = given.get(name, urdf.get(name, np.inf))
            if joint.joint_type == 'continuous' and name in ('min_position', 'max_position'):
                value = urdf[name]
            if name in urdf:
                value = (max(value, urdf[name]) if name == 'min_position'
                         else min(value, urdf[name]))
            if not np.isfinite(value) and name in fallback:
                defaulted[name[len('max_'):]].append(joint.name)
                value = fallback[name]
            columns[name].append(value)
    try:
        limits = MotionLimits(
            lower=np.array(columns['min_position']), upper=np.array(columns['max_position']),
            velocity=np.array(columns['max_velocity']),
            acceleration=np.array(columns['max_acceleration']),
            jerk=np.array(columns['max_jerk']))
    except ValueError as error:
        raise JointLimitsError(f'invalid joint limits: {error}') from error
    return ResolvedLimits(limits, {kind: tuple(joints) for kind, joints in defaulted.items()})
