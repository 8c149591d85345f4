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
The robot as the web view draws it: the URDF's ``<visual>`` elements on the chain's bodies.

Bodies as in :mod:`ros_ik.collision.robot_geometry` (0 the base, ``j + 1`` the child link of
moving joint ``j``, fixed links folded in, joints outside the chain at rest). Each visual
is a box, sphere, cylinder or triangle mesh (any format coal's loader reads: STL, OBJ,
DAE; ``package://``, ``file://`` or plain paths) with its pose ``T_body_visual`` (4x4, m)
and colour (RGBA in 0-1; the material's, else grey). A link without visuals is drawn by
its collision shapes, so a URDF with collisions only is still seen.
"""

from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

import numpy as np
from ros_ik.collision.robot_geometry import link_bodies
from ros_ik.collision.shapes import GeometryError, resolve_mesh_path
from ros_ik.kinematics.chain import Chain
from ros_ik.kinematics.urdf_loader import origin_transform

GREY = (0.65, 0.65, 0.7, 1.0)


@dataclass(frozen=True)
class VisualShape:
    """
    One drawable shape on body ``body``; dimensions in m as the URDF gives them.

    ``kind`` box (``size``), sphere (``radius``), cylinder (``radius``, ``length`` along z)
    or mesh (``vertices`` (k, 3), ``faces`` (f, 3), already scaled).
    """

    link: str
    body: int
    kind: str
    T_body_shape: np.ndarray
    rgba: Tuple[float, float, float, float]
    size: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    radius: float = 0.0
    length: float = 0.0
    vertices: Optional[np.ndarray] = None
    faces: Optional[np.ndarray] = None


def load_triangle_mesh(path: str, scale) -> Tuple[np.ndarray, np.ndarray]:
    """Return the vertices (k, 3) and triangles (f, 3) of a mesh file, scaled (3,)."""
    import coal
    try:
        mesh = coal.MeshLoader().load(path, np.asarray(scale, dtype=float))
    except Exception as error:  # coal raises RuntimeError/ValueError on unreadable files
        raise GeometryError(f'cannot read mesh "{path}": {error}') from error
    triangles = [mesh.tri_indices(index) for index in range(mesh.num_tris)]
    faces = np.array([[triangle[0], triangle[1], triangle[2]] for triangle in triangles],
                     dtype=np.int32).reshape(-1, 3)
    return np.array(mesh.vertices(), dtype=float), faces


def _colour(visual, materials) -> Tuple[float, float, float, float]:
    """Return a visual's RGBA: its material's colour, or the named material's, or grey."""
    material = getattr(visual, 'material', None)
    if material is None:
        return GREY
    named = materials.get(material.name)
    color = material.color or (named.color if named is not None else None)
    return tuple(float(v) for v in color.rgba) if color is not None else GREY


def _shape(element, link: str, body: int, T_body_link: np.ndarray, rgba,
           package_directory: Callable[[str], Optional[str]]) -> VisualShape:
    """Return the drawable shape of one ``<visual>`` or ``<collision>`` element."""
    geometry = element.geometry
    T = T_body_link @ origin_transform(element.origin)
    kind = type(geometry).__name__.lower()
    if kind == 'box':
        return VisualShape(link, body, 'box', T, rgba, size=tuple(geometry.size))
    if kind == 'sphere':
        return VisualShape(link, body, 'sphere', T, rgba, radius=float(geometry.radius))
    if kind == 'cylinder':
        return VisualShape(link, body, 'cylinder', T, rgba, radius=float(geometry.radius),
                           length=float(geometry.length))
    if kind == 'mesh':
        scale = geometry.scale if geometry.scale is not None else (1.0, 1.0, 1.0)
        if np.isscalar(scale):
            scale = (scale,) * 3
        vertices, faces = load_triangle_mesh(
            resolve_mesh_path(geometry.filename, package_directory), scale)
        return VisualShape(link, body, 'mesh', T, rgba, vertices=vertices, faces=faces)
    raise GeometryError(f'geometry of type "{kind}" of link "{link}" is not drawn')


def visual_shapes(robot, chain: Chain, package_directory: Callable[[str], Optional[str]]
                  ) -> Tuple[List[VisualShape], List[str]]:
    """
    Return the drawable shapes of every link of the parsed URDF, and what was left out.

    The second list has one line per visual that could not be drawn (a missing mesh file,
    an unknown geometry): the view goes on without it.
    """
    bodies, _ = link_bodies(robot, chain)
    materials = {material.name: material for material in (robot.materials or [])}
    shapes, problems = [], []
    for link in robot.links:
        body, T_body_link = bodies[link.name]
        elements = link.visuals or link.collisions
        for element in elements:
            if element.geometry is None:
                continue
            try:
                shapes.append(_shape(element, link.name, body, T_body_link,
                                     _colour(element, materials), package_directory))
            except GeometryError as error:
                problems.append(str(error))
    return shapes, problems
