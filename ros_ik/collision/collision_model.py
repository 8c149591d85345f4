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
The checked model: every element (a shape with its proxy, on a body) and every pair.

Built from the robot's shapes (:mod:`ros_ik.collision.robot_geometry`), the scene's objects
(:mod:`ros_ik.collision.scene`) and the pairs left out (SRDF or automatic,
:mod:`ros_ik.collision.allowed_pairs`). An owner is a link or a scene object; a pair of
owners is never checked when

* both lie on the same body (no chain joint moves one relative to the other: the base
  against a scene object, two links fixed together);
* it is disabled (SRDF ``disable_collisions``, or the automatic rules);
* one is a scene object that lists the other in ``allowed_links``.

Element geometry is stored in the aligned frames of
:class:`ros_ik.kinematics.chain_kinematics.ChainKinematics` (``T_G_shape = C_j^T
T_link_shape``), as the kernels walk the chain.

``motion_weights`` bounds how far any point of any element moves when the joints move:
``|dx| <= sum_j w_j |dq_j|`` with ``w_j`` the largest distance from joint j's axis to a point
it moves (revolute; the chain of joint origins ``|o_{k+1} - o_k|`` plus the element's reach
from its body origin) or 1 (prismatic). ``pair_weights`` does the same for each pair's
clearance, counting only the joints between its two bodies.
"""

from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np
from ros_ik.collision.allowed_pairs import Pair, pair, pair_text
from ros_ik.collision.distance_kernels import BOX, CAPSULE
from ros_ik.collision.robot_geometry import BodyShape, RobotGeometry
from ros_ik.collision.scene import SceneObject
from ros_ik.collision.shapes import enclosing_capsule
from ros_ik.kinematics.chain_kinematics import ChainKinematics

PRISM_SIDES = 16  # sides of the prism kept around a cylinder for the separating-axis gaps
FIXED_TOGETHER = 'fixed relative to each other'
ALLOWED_BY_SCENE = 'allowed_links of the scene object'


@dataclass(frozen=True)
class Element:
    """One shape of an owner on a body, ``T_G_shape`` in the body's aligned frame."""

    owner: str
    body: int
    T_G_shape: np.ndarray
    shape: object
    kind: int
    ends: np.ndarray
    radius: float
    half: np.ndarray
    vertices: np.ndarray  # (k, 3), m, aligned frame: a hull around the shape (capsules)


class CollisionModel:
    """Elements, checked pairs and motion weights of one arm and scene (read-only)."""

    def __init__(self, kinematics: ChainKinematics, robot: RobotGeometry,
                 scene: Sequence[SceneObject], disabled: Mapping[Pair, str]) -> None:
        """Place every shape on its body, build the proxies and choose the pairs."""
        self.kinematics = kinematics
        self.robot = robot
        self.scene = tuple(scene)
        self.disabled = dict(disabled)
        body_shapes = list(robot.shapes)
        for item in self.scene:
            body, T_body_link = (robot.link_bodies[item.link] if item.link else
                                 (0, np.eye(4)))
            shape = item.shape
            body_shapes.append(BodyShape(item.name, body, type(shape)(
                shape.kind, T_body_link @ shape.T_frame_shape, shape.size, shape.radius,
                shape.length, shape.points, shape.source)))
        scene_names = {item.name for item in self.scene}
        self.elements = tuple(self._element(body_shape, body_shape.owner in scene_names)
                              for body_shape in body_shapes)
        self.left_out: Dict[str, List[Pair]] = {}
        self.pairs, self.pair_owners = self._checked_pairs()
        self.kernel_elements = (
            np.array([e.body for e in self.elements], dtype=np.int64),
            np.array([e.kind for e in self.elements], dtype=np.int64),
            np.array([e.ends for e in self.elements]).reshape(-1, 2, 3),
            np.array([e.radius for e in self.elements], dtype=float),
            np.array([e.T_G_shape[:3] for e in self.elements]).reshape(-1, 3, 4),
            np.array([e.half for e in self.elements]).reshape(-1, 3),
            *_padded_vertices(self.elements))
        self.pair_a = np.array([a for a, _ in self.pairs], dtype=np.int64)
        self.pair_b = np.array([b for _, b in self.pairs], dtype=np.int64)
        self.pair_weights = self._pair_weights()
        self.motion_weights = self._lever_arms().max(axis=0)

    def _element(self, body_shape: BodyShape, in_scene: bool) -> Element:
        """Return the element of a shape: a box proxy for a scene box, else a capsule."""
        body = body_shape.body
        C_inverse = self.kinematics.C_inverse[body - 1] if body > 0 else np.eye(4)
        shape = body_shape.shape
        T_G_shape = C_inverse @ shape.T_frame_shape
        if in_scene and shape.kind == 'box' and body == 0:
            return Element(body_shape.owner, body, T_G_shape, shape, BOX, np.zeros((2, 3)),
                           0.0, 0.5 * np.array(shape.size), np.zeros((0, 3)))
        capsule = enclosing_capsule(shape)
        ends = np.array([capsule.end0, capsule.end1]) @ C_inverse[:3, :3].T + C_inverse[:3, 3]
        vertices = _enclosing_vertices(shape) @ T_G_shape[:3, :3].T + T_G_shape[:3, 3]
        return Element(body_shape.owner, body, T_G_shape, shape, CAPSULE, ends,
                       capsule.radius, np.zeros(3), vertices)

    def element_poses(self, q: np.ndarray) -> np.ndarray:
        """Return every element's shape pose ``T_base_shape`` (e, 4, 4) at ``q`` (n,)."""
        kinematics = self.kinematics
        link_poses = kinematics.link_poses(q)
        poses = []
        for element in self.elements:
            T_base_G = (link_poses[element.body] @ kinematics.C_inverse[element.body - 1].T
                        if element.body > 0 else np.eye(4))
            poses.append(T_base_G @ element.T_G_shape)
        return np.array(poses).reshape(-1, 4, 4)

    def owner_bodies(self) -> Dict[str, int]:
        """Return ``owner -> body``."""
        return {element.owner: element.body for element in self.elements}

    def _checked_pairs(self) -> Tuple[List[Tuple[int, int]], List[Tuple[str, str]]]:
        """Return the element pairs to check and their owners; fill ``left_out``."""
        bodies = self.owner_bodies()
        allowed = {pair(item.name, link) for item in self.scene for link in item.allowed_links}
        owners = list(bodies)
        checked_owners = set()
        for i, first in enumerate(owners):
            for second in owners[i + 1:]:
                owner_pair = pair(first, second)
                if bodies[first] == bodies[second]:
                    reason = FIXED_TOGETHER
                elif owner_pair in self.disabled:
                    reason = f'disabled ({self.disabled[owner_pair] or "SRDF"})'
                elif owner_pair in allowed:
                    reason = ALLOWED_BY_SCENE
                else:
                    checked_owners.add(owner_pair)
                    continue
                self.left_out.setdefault(reason, []).append(owner_pair)
        pairs, pair_owners = [], []
        for a, first in enumerate(self.elements):
            for b in range(a + 1, len(self.elements)):
                second = self.elements[b]
                if pair(first.owner, second.owner) not in checked_owners:
                    continue
                if first.kind == BOX and second.kind == BOX:
                    continue  # two scene boxes: both on the base, never a pair
                pairs.append((a, b))
                pair_owners.append((first.owner, second.owner))
        return pairs, pair_owners

    def left_out_text(self) -> str:
        """Return the start-up lines naming every owner pair left out, by reason."""
        return '; '.join(f'{reason}: {", ".join(pair_text(p) for p in pairs)}'
                         for reason, pairs in sorted(self.left_out.items()))

    def _lever_arms(self) -> np.ndarray:
        """
        Return ``rho`` (n + 1, n): how far a point of body b moves per unit of joint j.

        ``rho[b, j] = sum_{k=j+1}^{b-1} |o_k - o_{k-1}| + reach_b`` for a rotating joint
        before the body (``|o_k - o_{k-1}| = |A_k[:, 3]|``, plus the stroke of a prismatic
        joint k; ``reach_b`` the farthest point of the body's elements from its origin), 1
        for a prismatic joint before it, 0 for joints after it.
        """
        kinematics = self.kinematics
        n = kinematics.n_joints
        chain = kinematics.chain
        strokes = np.where(chain.is_prismatic, np.abs(np.nan_to_num(
            np.maximum(np.abs(chain.lower), np.abs(chain.upper)), posinf=0.0)), 0.0)
        links = np.linalg.norm(kinematics.A[:, :, 3], axis=1) + strokes
        reach = np.zeros(n + 1)
        for element in self.elements:
            extent = (np.linalg.norm(element.ends, axis=1).max() + element.radius
                      if element.kind == CAPSULE else
                      np.linalg.norm(element.T_G_shape[:3, 3]) + np.linalg.norm(element.half))
            reach[element.body] = max(reach[element.body], extent)
        rho = np.zeros((n + 1, n))
        for body in range(1, n + 1):
            for j in range(body):
                rho[body, j] = 1.0 if chain.is_prismatic[j] else (links[j + 1:body].sum()
                                                                  + reach[body])
        return rho

    def _pair_weights(self) -> np.ndarray:
        """
        Return ``W`` (pairs, n): a pair's clearance changes by at most ``W[p] . |dq|``.

        Only the joints between the two bodies move one relative to the other: for bodies
        ``lo < hi``, ``W[p, j] = rho[hi, j]`` for ``lo <= j < hi``.
        """
        rho = self._lever_arms()
        weights = np.zeros((len(self.pairs), self.kinematics.n_joints))
        for p, (a, b) in enumerate(self.pairs):
            low, high = sorted((self.elements[a].body, self.elements[b].body))
            weights[p, low:high] = rho[high, low:high]
        return weights


def _enclosing_vertices(shape) -> np.ndarray:
    """
    Return points (k, 3) in the shape frame whose convex hull contains the shape.

    A box's corners, a mesh's hull vertices; for a cylinder (radius ``r``, along z) the
    prism of ``PRISM_SIDES`` sides around it (circumradius ``r / cos(pi / sides)``, 2 %
    above ``r`` for 16 sides); none for a sphere (its capsule is exact).
    """
    if shape.kind in ('box', 'convex'):
        return shape.vertices()
    if shape.kind != 'cylinder':
        return np.zeros((0, 3))
    angles = 2.0 * np.pi * np.arange(PRISM_SIDES) / PRISM_SIDES
    radius = shape.radius / np.cos(np.pi / PRISM_SIDES)
    ring = np.column_stack([radius * np.cos(angles), radius * np.sin(angles)])
    return np.vstack([np.column_stack([ring, np.full(PRISM_SIDES, z)])
                      for z in (-0.5 * shape.length, 0.5 * shape.length)])


def _padded_vertices(elements: Sequence[Element]) -> Tuple[np.ndarray, np.ndarray]:
    """Return every element's vertices, zero-padded (elements, k, 3), and their counts."""
    counts = np.array([len(e.vertices) for e in elements], dtype=np.int64)
    padded = np.zeros((len(elements), int(counts.max(initial=0)), 3))
    for index, element in enumerate(elements):
        padded[index, :len(element.vertices)] = element.vertices
    return padded, counts
