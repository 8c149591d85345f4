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
The collision scene: objects around the robot from YAML (the ``collision_scene_file``).

Format (poses in the chain's base frame, or in ``link`` for an object attached to a link,
metres and radians, ``rpy`` as in URDF)::

    objects:
      - name: floor
        type: box            # box (size), sphere (radius), cylinder (radius, length)
        size: [4.0, 4.0, 0.2]
        pose: {xyz: [0.0, 0.0, -0.1], rpy: [0.0, 0.0, 0.0]}
        allowed_links: [base_link, shoulder_link]   # may touch it (allowed collisions)
        link: tool0          # optional: attached to this robot link (a tool)
        frame: world         # optional: the pose is in this TF frame (placed through TF
                             # when the scene is loaded; not with link)

Every problem raises :class:`SceneError` naming the object and the field.
"""

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
from ros_ik.collision.shapes import Shape
from ros_ik.kinematics.transforms import rpy_to_matrix, transform
import yaml

OBJECT_FIELDS = ('name', 'type', 'size', 'radius', 'length', 'pose', 'allowed_links', 'link',
                 'frame')
DIMENSIONS = {'box': ('size',), 'sphere': ('radius',), 'cylinder': ('radius', 'length')}


class SceneError(ValueError):
    """A scene description the node cannot use; the message names the field."""


@dataclass(frozen=True)
class SceneObject:
    """
    One object: its shape (in the frame of ``link``; '' = base), allowed links.

    ``frame``: a TF frame the shape's pose is given in, until the scene is placed in the
    base frame through TF (by the controller, before any check); '' = base.
    """

    name: str
    shape: Shape
    link: str
    allowed_links: Tuple[str, ...]
    frame: str = ''


def _number(value: Any, where: str) -> float:
    """Return ``value`` as a finite float or raise naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise SceneError(f'{where} must be a finite number, got {value!r}')
    return float(value)


def _vector(value: Any, length: int, where: str) -> np.ndarray:
    """Return ``value`` as ``length`` finite floats or raise naming ``where``."""
    if not isinstance(value, (list, tuple)) or len(value) != length:
        raise SceneError(f'{where} must be a list of {length} numbers, got {value!r}')
    return np.array([_number(item, where) for item in value])


def _positive(value: Any, where: str) -> float:
    """Return ``value`` as a positive float or raise naming ``where``."""
    number = _number(value, where)
    if number <= 0.0:
        raise SceneError(f'{where} must be positive, got {value!r}')
    return number


def _pose(value: Any, where: str) -> np.ndarray:
    """Return the 4x4 transform of ``{xyz: [..], rpy: [..]}`` (both optional)."""
    if value is None:
        return np.eye(4)
    if not isinstance(value, dict) or set(value) - {'xyz', 'rpy'}:
        raise SceneError(f'{where} must be a mapping with xyz and rpy, got {value!r}')
    xyz = _vector(value.get('xyz', [0.0, 0.0, 0.0]), 3, where + '.xyz')
    rpy = _vector(value.get('rpy', [0.0, 0.0, 0.0]), 3, where + '.rpy')
    return transform(rpy_to_matrix(*rpy), xyz)


def _scene_object(entry: Any, number: int, names: Sequence[str]) -> SceneObject:
    """Return object ``number`` (from 1) of the list, validated."""
    where = f'object {number}'
    if not isinstance(entry, dict):
        raise SceneError(f'{where} must be a mapping, got {entry!r}')
    name = entry.get('name')
    if not isinstance(name, str) or not name:
        raise SceneError(f'{where}: field "name" must be a non-empty string, got {name!r}')
    where = f'object {number} ("{name}")'
    if name in names:
        raise SceneError(f'{where}: the name is used twice')
    unknown = sorted(set(entry) - set(OBJECT_FIELDS))
    if unknown:
        raise SceneError(f'{where}: unknown field "{unknown[0]}" (fields: '
                         f'{", ".join(OBJECT_FIELDS)})')
    kind = entry.get('type')
    if kind not in DIMENSIONS:
        raise SceneError(f'{where}: field "type" is {kind!r}; one of '
                         f'{", ".join(DIMENSIONS)}')
    for dimension in DIMENSIONS[kind]:
        if dimension not in entry:
            raise SceneError(f'{where}: a {kind} needs field "{dimension}"')
    T = _pose(entry.get('pose'), f'{where}: field "pose"')
    if kind == 'box':
        size = _vector(entry['size'], 3, f'{where}: field "size"')
        if not np.all(size > 0.0):
            raise SceneError(f'{where}: field "size" must be positive, got {entry["size"]}')
        shape = Shape('box', T, size=tuple(size), source=f'"{name}"')
    elif kind == 'sphere':
        shape = Shape('sphere', T, radius=_positive(entry['radius'], f'{where}: field '
                                                    '"radius"'), source=f'"{name}"')
    else:
        shape = Shape('cylinder', T,
                      radius=_positive(entry['radius'], f'{where}: field "radius"'),
                      length=_positive(entry['length'], f'{where}: field "length"'),
                      source=f'"{name}"')
    allowed = entry.get('allowed_links', [])
    if not isinstance(allowed, list) or not all(isinstance(link, str) for link in allowed):
        raise SceneError(f'{where}: field "allowed_links" must be a list of link names, got '
                         f'{allowed!r}')
    link = entry.get('link', '')
    if not isinstance(link, str):
        raise SceneError(f'{where}: field "link" must be a link name, got {link!r}')
    frame = entry.get('frame', '')
    if not isinstance(frame, str):
        raise SceneError(f'{where}: field "frame" must be a frame name, got {frame!r}')
    if frame and link:
        raise SceneError(f'{where}: fields "frame" and "link" exclude each other (an '
                         'attached object moves with its link)')
    return SceneObject(name, shape, link, tuple(allowed), frame)


def parse_scene(text: str, source: str = 'collision scene') -> List[SceneObject]:
    """Return the objects of a scene YAML text; raise :class:`SceneError` naming the field."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise SceneError(f'{source}: not valid YAML: {" ".join(str(error).split())}') from error
    if document is None:
        return []
    if not isinstance(document, dict) or set(document) - {'objects'}:
        raise SceneError(f'{source}: the top level must be a mapping with "objects"')
    entries = document.get('objects') or []
    if not isinstance(entries, list):
        raise SceneError(f'{source}: "objects" must be a list')
    objects: List[SceneObject] = []
    for number, entry in enumerate(entries, start=1):
        try:
            objects.append(_scene_object(entry, number, [item.name for item in objects]))
        except SceneError as error:
            raise SceneError(f'{source}: {error}') from None
    return objects


def load_scene_file(path: str) -> List[SceneObject]:
    """Return the objects of the scene file ``path`` ('' : no objects)."""
    if not path:
        return []
    try:
        with open(path, encoding='utf-8') as scene_file:
            text = scene_file.read()
    except OSError as error:
        raise SceneError(f'cannot read collision_scene_file "{path}": {error.strerror}') from error
    return parse_scene(text, f'collision_scene_file "{path}"')


def check_links(objects: Sequence[SceneObject], links: Sequence[str],
                source: str = 'collision scene') -> Optional[str]:
    """
    Return why the objects cannot be checked ('' if they can).

    An object that names a link the robot does not have, or one still in a TF frame (not
    placed in the base frame).
    """
    known = set(links)
    for item in objects:
        if item.frame:
            return (f'{source}: object "{item.name}" is still in TF frame "{item.frame}"; it '
                    'must be placed in the base frame first')
        for link in item.allowed_links + ((item.link,) if item.link else ()):
            if link not in known:
                return (f'{source}: object "{item.name}" names link "{link}", which the robot '
                        'does not have')
    return ''
