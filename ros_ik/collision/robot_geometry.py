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
The robot's collision shapes from its URDF, each fixed on a body of the chain.

Bodies: 0 is the chain's base link (and everything rigid with it: links above the base,
other branches of the tree), ``j + 1`` the child link of moving joint ``j`` of the chain,
with every link hanging on it through fixed joints. Joints outside the chain (a gripper's
fingers, a second arm) are taken at rest: position 0 clipped into their limits. A link's
``<collision>`` elements become :class:`Shape` s in its body's link frame (m):
``T_body_shape = T_body_link T_link_collision``.
"""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
from ros_ik.collision.shapes import GeometryError, load_mesh_hull, resolve_mesh_path, Shape
from ros_ik.kinematics.chain import Chain, MOVING_JOINT_TYPES, PRISMATIC
from ros_ik.kinematics.transforms import axis_angle_matrix
from ros_ik.kinematics.urdf_loader import origin_transform


@dataclass(frozen=True)
class BodyShape:
    """A shape of ``owner`` (a link or scene object) fixed on body ``body`` (see above)."""

    owner: str
    body: int
    shape: Shape


@dataclass(frozen=True)
class RobotGeometry:
    """Every collision shape of the robot, the body of each link, joints taken at rest."""

    shapes: Tuple[BodyShape, ...]
    link_bodies: Dict[str, Tuple[int, np.ndarray]]
    parents: Dict[str, str]
    resting_joints: Tuple[str, ...]

    def links_with_geometry(self) -> Tuple[str, ...]:
        """Return the links that have collision shapes, in URDF order."""
        return tuple(dict.fromkeys(body_shape.owner for body_shape in self.shapes))


def _joint_at_rest(joint) -> np.ndarray:
    """Return the motion (4x4) of a joint outside the chain at 0 clipped into its limits."""
    motion = np.eye(4)
    if joint.type not in MOVING_JOINT_TYPES:
        return motion
    value = 0.0
    if joint.limit is not None and joint.type != 'continuous':
        value = min(max(0.0, joint.limit.lower or 0.0), joint.limit.upper or 0.0)
    axis = np.array(joint.axis if joint.axis is not None else (1.0, 0.0, 0.0), dtype=float)
    axis /= np.linalg.norm(axis)
    if joint.type == PRISMATIC:
        motion[:3, 3] = axis * value
    else:
        motion[:3, :3] = axis_angle_matrix(axis, value)
    return motion


def link_bodies(robot, chain: Chain) -> Tuple[Dict[str, Tuple[int, np.ndarray]], List[str]]:
    """
    Return ``link -> (body, T_body_link)`` for every link, and the joints taken at rest.

    Walks from each link up its parent joints until the base (body 0), a chain joint's
    child link (body ``j + 1``) or the tree's root (body 0, through ``T_base_root``).
    """
    parent_joint = {joint.child: joint for joint in robot.joints}
    chain_children = {joint.child_link: j + 1 for j, joint in enumerate(chain.joints)}
    chain_joint_names = set(chain.joint_names)
    resting = [joint.name for joint in robot.joints
               if joint.type in MOVING_JOINT_TYPES and joint.name not in chain_joint_names]

    def walk(link: str) -> Tuple[Optional[int], np.ndarray]:
        T_top_link = np.eye(4)
        while True:
            if link == chain.base_link:
                return 0, T_top_link
            if link in chain_children:
                return chain_children[link], T_top_link
            joint = parent_joint.get(link)
            if joint is None:
                return None, T_top_link  # the root: T_root_link
            T_top_link = origin_transform(joint.origin) @ _joint_at_rest(joint) @ T_top_link
            link = joint.parent

    _, T_root_base = walk_to_root(parent_joint, chain.base_link)
    T_base_root = np.linalg.inv(T_root_base)
    bodies = {}
    for link in robot.links:
        body, T = walk(link.name)
        bodies[link.name] = (0, T_base_root @ T) if body is None else (body, T)
    return bodies, resting


def walk_to_root(parent_joint: Dict[str, object], link: str) -> Tuple[str, np.ndarray]:
    """Return the tree's root and ``T_root_link`` (joints above ``link`` at rest)."""
    T_root_link = np.eye(4)
    while link in parent_joint:
        joint = parent_joint[link]
        T_root_link = origin_transform(joint.origin) @ _joint_at_rest(joint) @ T_root_link
        link = joint.parent
    return link, T_root_link


def _collision_shape(collision, T_body_link: np.ndarray, link: str,
                     package_directory: Callable[[str], Optional[str]]) -> Shape:
    """Return the shape of one ``<collision>`` element of ``link``."""
    geometry = collision.geometry
    T = T_body_link @ origin_transform(collision.origin)
    kind = type(geometry).__name__.lower()
    source = f'of link "{link}"'
    if kind == 'box':
        return Shape('box', T, size=tuple(float(v) for v in geometry.size), source=source)
    if kind == 'sphere':
        return Shape('sphere', T, radius=float(geometry.radius), source=source)
    if kind == 'cylinder':
        return Shape('cylinder', T, radius=float(geometry.radius),
                     length=float(geometry.length), source=source)
    if kind == 'mesh':
        path = resolve_mesh_path(geometry.filename, package_directory)
        scale = geometry.scale if geometry.scale is not None else (1.0, 1.0, 1.0)
        if np.isscalar(scale):
            scale = (scale,) * 3
        return load_mesh_hull(path, scale, T, f'{source} ("{geometry.filename}")')
    raise GeometryError(f'collision geometry {source} of type "{kind}" is not supported '
                        '(box, sphere, cylinder, mesh)')


def robot_geometry(robot, chain: Chain,
                   package_directory: Callable[[str], Optional[str]]) -> RobotGeometry:
    """Return the collision shapes of every link of the parsed URDF ``robot``."""
    bodies, resting = link_bodies(robot, chain)
    shapes = []
    for link in robot.links:
        body, T_body_link = bodies[link.name]
        for collision in link.collisions:
            if collision.geometry is None:
                continue
            shapes.append(BodyShape(link.name, body, _collision_shape(
                collision, T_body_link, link.name, package_directory)))
    parents = {joint.child: joint.parent for joint in robot.joints}
    return RobotGeometry(tuple(shapes), bodies, parents, tuple(resting))
