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
Collision shapes: primitives and meshes, their coal geometry and their enclosing proxies.

A :class:`Shape` is a box (``size`` x, y, z, m), sphere (``radius``), cylinder (``radius``,
``length`` along its z axis) or convex hull (``points`` (k, 3), m, in the shape frame: a
mesh's hull), placed by ``T_frame_shape`` (4x4) in the frame it is given in. Meshes (STL,
DAE, OBJ, any format coal's loader reads) become their convex hull: it contains the mesh,
so a hull that is clear of an obstacle means the mesh is too.

The proxy of a shape encloses it: an oriented box for a box, else a capsule (a sphere for a
sphere; for a cylinder the capsule of the same radius over its length; for a hull the
smallest of the capsules along its three principal axes that contain every vertex).
"""

from dataclasses import dataclass, field
import os
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

SHAPE_KINDS = ('box', 'sphere', 'cylinder', 'convex')
PACKAGE_SCHEME = 'package://'
FILE_SCHEME = 'file://'


class GeometryError(ValueError):
    """A collision shape that cannot be built (bad dimensions, unreadable mesh)."""


@dataclass(frozen=True)
class Shape:
    """One convex collision shape (see the module docstring); ``owner`` names its link."""

    kind: str
    T_frame_shape: np.ndarray
    size: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    radius: float = 0.0
    length: float = 0.0
    points: Optional[np.ndarray] = field(default=None, compare=False)
    source: str = ''

    def __post_init__(self) -> None:
        """Reject kinds and dimensions that describe no solid."""
        if self.kind not in SHAPE_KINDS:
            raise GeometryError(f'unknown shape kind "{self.kind}"')
        dimensions = {'box': self.size, 'sphere': (self.radius,),
                      'cylinder': (self.radius, self.length)}.get(self.kind, ())
        if not all(np.isfinite(value) and value > 0.0 for value in dimensions):
            raise GeometryError(f'{self.kind} {self.source} needs positive dimensions')
        if self.kind == 'convex' and (self.points is None or len(self.points) == 0):
            raise GeometryError(f'mesh {self.source} has no vertices')

    def vertices(self) -> np.ndarray:
        """Return points (k, 3) in the shape frame whose convex hull contains the shape."""
        if self.kind == 'box':
            half = 0.5 * np.array(self.size)
            corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
            return corners * half
        if self.kind == 'convex':
            return np.asarray(self.points, dtype=float)
        raise GeometryError(f'a {self.kind} has no vertices')

    def coal_geometry(self):
        """Return the coal collision geometry of this shape (in its shape frame)."""
        import coal
        if self.kind == 'box':
            return coal.Box(*self.size)
        if self.kind == 'sphere':
            return coal.Sphere(self.radius)
        if self.kind == 'cylinder':
            return coal.Cylinder(self.radius, self.length)
        return _hull_geometry(self.points)


@dataclass(frozen=True)
class Capsule:
    """A capsule: segment ``[end0, end1]`` (m, in the frame of its shape's frame), radius."""

    end0: np.ndarray
    end1: np.ndarray
    radius: float


def _hull_geometry(points: np.ndarray):
    """Return a coal ``Convex`` hull of ``points`` (k, 3)."""
    import coal
    model = coal.BVHModelOBBRSS()
    model.beginModel(0, len(points))
    model.addVertices(np.asarray(points, dtype=float))
    model.endModel()
    model.buildConvexHull(True, 'Qt')
    return model.convex


def enclosing_capsule(shape: Shape) -> Capsule:
    """Return a capsule enclosing ``shape``, in the frame ``shape.T_frame_shape`` maps to."""
    T = shape.T_frame_shape
    if shape.kind == 'sphere':
        center = T[:3, 3].copy()
        return Capsule(center, center.copy(), shape.radius)
    if shape.kind == 'cylinder':
        axis = T[:3, 2] * (0.5 * shape.length)
        return Capsule(T[:3, 3] - axis, T[:3, 3] + axis, shape.radius)
    points = shape.vertices() @ T[:3, :3].T + T[:3, 3]
    return capsule_around(points)


def capsule_around(points: np.ndarray) -> Capsule:
    """
    Return a capsule containing every point (k, 3): the least volume of three axes tried.

    For a unit axis ``u`` through the centroid ``c``, a point at ``s = u . (x - c)`` and
    distance ``rho`` from the axis lies in the capsule of radius ``r = max rho`` over the
    segment ``[t0, t1]`` when ``t0 <= s + sqrt(r^2 - rho^2)`` and
    ``t1 >= s - sqrt(r^2 - rho^2)``: the tightest ends are the extremes of those bounds.
    """
    points = np.asarray(points, dtype=float)
    center = points.mean(axis=0)
    offsets = points - center
    _, _, axes = np.linalg.svd(offsets, full_matrices=False)
    best = None
    for axis in axes[:3] if len(axes) >= 3 else np.eye(3):
        along = offsets @ axis
        across = np.linalg.norm(offsets - np.outer(along, axis), axis=1)
        radius = float(across.max(initial=0.0))
        slack = np.sqrt(np.maximum(radius * radius - across * across, 0.0))
        start, end = float(np.min(along + slack)), float(np.max(along - slack))
        if start > end:
            start = end = 0.5 * (start + end)
            radius = float(np.max(np.linalg.norm(offsets - start * axis, axis=1)))
        volume = np.pi * radius ** 2 * (end - start) + 4.0 / 3.0 * np.pi * radius ** 3
        if best is None or volume < best[0]:
            best = (volume, Capsule(center + start * axis, center + end * axis, radius))
    return best[1]


def resolve_mesh_path(filename: str, package_directory: Callable[[str], Optional[str]]) -> str:
    """
    Return the file a URDF mesh ``filename`` names.

    ``package://pkg/rest`` is ``<package_directory(pkg)>/rest``; ``file://path`` and plain
    paths are taken as they are. Raises :class:`GeometryError` naming what was looked for.
    """
    if filename.startswith(PACKAGE_SCHEME):
        package, _, rest = filename[len(PACKAGE_SCHEME):].partition('/')
        directory = package_directory(package)
        if directory is None:
            raise GeometryError(f'mesh "{filename}": package "{package}" not found (neither '
                                'in the ament index nor under mesh_search_path)')
        path = os.path.join(directory, rest)
    elif filename.startswith(FILE_SCHEME):
        path = filename[len(FILE_SCHEME):]
    else:
        path = filename
    if not os.path.isfile(path):
        raise GeometryError(f'mesh "{filename}": file "{path}" does not exist')
    return path


def search_path_packages(search_path: Sequence[str]) -> Callable[[str], Optional[str]]:
    """
    Return a lookup ``package -> directory`` over folders holding package folders.

    Like ``ROS_PACKAGE_PATH``: package ``pkg`` is ``<folder>/pkg`` for the first folder that
    has it (``<folder>/share/pkg`` too, an install prefix).
    """
    def lookup(package: str) -> Optional[str]:
        for folder in search_path:
            for candidate in (os.path.join(folder, package),
                              os.path.join(folder, 'share', package)):
                if os.path.isdir(candidate):
                    return candidate
        return None
    return lookup


def load_mesh_hull(path: str, scale: Sequence[float], T_frame_shape: np.ndarray,
                   source: str) -> Shape:
    """Return the convex hull shape of the mesh file ``path`` scaled by ``scale`` (3,)."""
    import coal
    try:
        model = coal.MeshLoader().load(path, np.asarray(scale, dtype=float))
    except Exception as error:  # coal raises RuntimeError/ValueError on unreadable files
        raise GeometryError(f'mesh {source}: cannot read "{path}": {error}') from error
    model.buildConvexHull(True, 'Qt')
    points = np.array(model.convex.points(), dtype=float)
    return Shape('convex', T_frame_shape, points=points, source=source)
