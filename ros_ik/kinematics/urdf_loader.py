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
Parse a URDF (string or file) into a :class:`ros_ik.kinematics.chain.Chain`.

The chain is found by walking from ``tip_link`` to ``base_link`` through the child ->
parent map, so branches elsewhere in the tree are ignored. Joint origins ``xyz``/``rpy``
become ``T = Trans(xyz) Rz(yaw) Ry(pitch) Rx(roll)``; fixed joints are folded into the
neighbouring constant transforms; axes are normalised (URDF default ``1 0 0``). Files
ending in ``.xacro`` are expanded with xacro first (as vendors ship their arms).
"""

import contextlib
import io
import os
import shlex
from typing import Dict, List
import xml.etree.ElementTree

import numpy as np
from ros_ik.kinematics.chain import Chain, CONTINUOUS, FixedLink, Joint, MOVING_JOINT_TYPES
from ros_ik.kinematics.transforms import rpy_to_matrix, transform
from ros_ik.kinematics.urdf_errors import (MalformedUrdfError, MimicJointError, MissingLimitError,
                                           NoPathError, UnknownLinkError, UnsupportedJointError,
                                           ZeroAxisError)
from urdf_parser_py import urdf as urdf_model
from urdf_parser_py.xml_reflection.core import ParseError

FIXED = 'fixed'
AXIS_EPSILON = 1e-12


def load_urdf_file(path: str, base_link: str, tip_link: str, xacro_args: str = '') -> Chain:
    """Read the URDF (or xacro) file ``path``; return its chain ``base_link`` -> ``tip_link``."""
    return load_urdf_string(read_robot_description(path, xacro_args), base_link, tip_link)


def xacro_mappings(xacro_args: str) -> Dict[str, str]:
    """Return ``{name: value}`` of ``'name:=value name2:="a b"'`` (shell quoting allowed)."""
    mappings = {}
    for word in shlex.split(xacro_args):
        name, separator, value = word.partition(':=')
        if not separator or not name:
            raise MalformedUrdfError(f'xacro argument "{word}" is not name:=value')
        mappings[name] = value
    return mappings


def read_robot_description(path: str, xacro_args: str = '') -> str:
    """
    Return the URDF XML of the file at ``path``.

    A ``*.xacro`` file is expanded with the xacro package (its ``$(find pkg)`` resolves
    through the ament index) and ``xacro_args`` (``'name:=value ...'``); any other file is
    read as it is. Raises :class:`MalformedUrdfError` naming the problem.
    """
    if not os.path.isfile(path):
        raise MalformedUrdfError(f'URDF file "{path}" does not exist')
    if not path.endswith('.xacro'):
        with open(path, encoding='utf-8') as urdf_file:
            return urdf_file.read()
    try:
        import xacro
    except ImportError as error:
        raise MalformedUrdfError(f'"{path}" is a xacro file but the xacro package is not '
                                 'installed (pip install xacro, or apt install '
                                 'ros-<distro>-xacro)') from error
    mappings = xacro_mappings(xacro_args)
    try:
        return xacro.process_file(path, mappings=mappings).toxml()
    except Exception as error:  # xacro raises XacroException, XML and name errors
        raise MalformedUrdfError(f'xacro could not expand "{path}" with arguments '
                                 f'{mappings}: {error}') from error


def load_urdf_string(xml_text: str, base_link: str, tip_link: str) -> Chain:
    """Parse URDF XML text and return the chain from ``base_link`` to ``tip_link``."""
    robot = parse_robot(xml_text)
    link_names = {link.name for link in robot.links}
    for role, name in (('base', base_link), ('tip', tip_link)):
        if name not in link_names:
            raise UnknownLinkError(
                f'{role} link "{name}" is not in the URDF of robot "{robot.name}" '
                f'(links: {", ".join(sorted(link_names))})')
    path = _joints_from_base_to_tip(robot, base_link, tip_link)
    return _fold_fixed_joints(path, base_link, tip_link)


def parse_robot(xml_text: str) -> urdf_model.URDF:
    """Parse URDF text with urdf_parser_py, turning its errors into MalformedUrdfError."""
    if not xml_text or not xml_text.strip():
        raise MalformedUrdfError('malformed URDF: the robot description is empty')
    # urdf_parser_py prints warnings for unknown tags (gazebo, transmission) to stderr.
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            return urdf_model.URDF.from_xml_string(xml_text)
        except (xml.etree.ElementTree.ParseError, ParseError, ValueError, AttributeError,
                TypeError) as error:
            message = ' '.join(str(error).split())
            raise MalformedUrdfError(f'malformed URDF: {message}') from error


def _joints_from_base_to_tip(robot: urdf_model.URDF, base_link: str,
                             tip_link: str) -> List[urdf_model.Joint]:
    """Walk child -> parent from the tip and return the joints base-first."""
    parent_joint_of: Dict[str, urdf_model.Joint] = {joint.child: joint for joint in robot.joints}
    path: List[urdf_model.Joint] = []
    link = tip_link
    while link != base_link:
        joint = parent_joint_of.get(link)
        if joint is None:
            raise NoPathError(
                f'no path from base link "{base_link}" to tip link "{tip_link}": '
                f'walking up from the tip ended at root link "{link}"')
        path.append(joint)
        link = joint.parent
    path.reverse()
    return path


def origin_transform(origin) -> np.ndarray:
    """Return a URDF ``<origin>`` (joint, collision, visual) as a 4x4 transform (None: I)."""
    xyz = origin.xyz if origin is not None and origin.xyz is not None else (0.0, 0.0, 0.0)
    rpy = origin.rpy if origin is not None and origin.rpy is not None else (0.0, 0.0, 0.0)
    return transform(rpy_to_matrix(*rpy), np.array(xyz, dtype=float))


def _moving_joint(joint: urdf_model.Joint, T_prev_joint: np.ndarray) -> Joint:
    """Validate a moving URDF joint and convert it to a chain Joint."""
    description = f'joint "{joint.name}" of type "{joint.type}"'
    if joint.mimic is not None:
        raise MimicJointError(
            f'{description} mimics joint "{joint.mimic.joint}"; mimic joints are not supported')
    axis = np.array(joint.axis if joint.axis is not None else (1.0, 0.0, 0.0), dtype=float)
    axis_norm = float(np.linalg.norm(axis))
    if axis_norm < AXIS_EPSILON:
        raise ZeroAxisError(f'{description} has a zero-length axis')
    limit = joint.limit
    velocity = np.inf
    if limit is not None and limit.velocity is not None:
        velocity = float(limit.velocity)
        if not velocity > 0.0:
            raise MissingLimitError(
                f'"velocity" limit of {description} must be positive, got {velocity}')
    if joint.type == CONTINUOUS:
        lower, upper = -np.inf, np.inf
    else:
        if limit is None:
            raise MissingLimitError(f'"limit" must be specified for {description}')
        if limit.lower is None or limit.upper is None:
            raise MissingLimitError(
                f'"lower" and "upper" limits must be specified for {description}')
        lower, upper = float(limit.lower), float(limit.upper)
        if not lower <= upper:
            raise MissingLimitError(
                f'{description} has lower limit {lower} above upper limit {upper}')
    return Joint(name=joint.name, joint_type=joint.type, parent_link=joint.parent,
                 child_link=joint.child, T_prev_joint=T_prev_joint, axis=axis / axis_norm,
                 lower=lower, upper=upper, velocity=velocity)


def _fold_fixed_joints(path: List[urdf_model.Joint], base_link: str,
                       tip_link: str) -> Chain:
    """Fold fixed joints into the neighbouring transforms and build the Chain."""
    joints: List[Joint] = []
    fixed_links: List[FixedLink] = []
    T_accumulated = np.eye(4)
    for joint in path:
        T_accumulated = T_accumulated @ origin_transform(joint.origin)
        if joint.type == FIXED:
            fixed_links.append(FixedLink(joint.child, len(joints), T_accumulated.copy()))
            continue
        if joint.type not in MOVING_JOINT_TYPES:
            raise UnsupportedJointError(
                f'joint "{joint.name}" of type "{joint.type}" lies on the path from '
                f'"{base_link}" to "{tip_link}"; only revolute, continuous, prismatic '
                'and fixed joints are supported')
        joints.append(_moving_joint(joint, T_accumulated))
        T_accumulated = np.eye(4)
    return Chain(base_link=base_link, tip_link=tip_link, joints=tuple(joints),
                 T_last_tip=T_accumulated, fixed_links=tuple(fixed_links))
