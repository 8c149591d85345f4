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
Mass properties of the chain's bodies from the URDF's ``<inertial>`` elements.

A body (:mod:`ros_ik.collision.robot_geometry`: 0 the base, ``j + 1`` the child link of
moving joint ``j``, each with the links fixed to it) gets the sum of its links' inertials.
A link's inertial has mass ``m`` (kg), centre of mass ``c`` and inertia ``I_c`` (kg m^2,
about ``c``, axes of the inertial frame ``R``) given in the link frame; in the body frame
(``T_body_link``) ``c_b = T_body_link c`` and ``I_b = R_b I_c R_b^T`` with
``R_b = R_body_link R``. Parts combine about their joint centre of mass
``c = sum(m_i c_i) / sum(m_i)`` by the parallel-axis theorem:
``I = sum(I_i + m_i (|d_i|^2 E - d_i d_i^T))``, ``d_i = c_i - c``.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from ros_ik.kinematics.urdf_loader import origin_transform


@dataclass(frozen=True)
class BodyInertia:
    """Mass ``mass`` (kg) at ``com`` (3,) m with inertia ``inertia`` (3, 3) kg m^2 about it."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray


def link_inertia(inertial, T_body_link: np.ndarray) -> Optional[BodyInertia]:
    """Return a URDF ``<inertial>`` in the body frame (None: absent or massless)."""
    if inertial is None or inertial.mass is None or inertial.mass <= 0.0:
        return None
    T_body_inertial = T_body_link @ origin_transform(inertial.origin)
    values = inertial.inertia
    I_c = (np.zeros((3, 3)) if values is None else np.array(
        [[values.ixx, values.ixy, values.ixz],
         [values.ixy, values.iyy, values.iyz],
         [values.ixz, values.iyz, values.izz]], dtype=float))
    R = T_body_inertial[:3, :3]
    return BodyInertia(float(inertial.mass), T_body_inertial[:3, 3].copy(), R @ I_c @ R.T)


def combined_inertia(parts: Sequence[BodyInertia]) -> Optional[BodyInertia]:
    """Return the parts as one rigid body (parallel-axis theorem; None for no parts)."""
    if not parts:
        return None
    mass = sum(part.mass for part in parts)
    com = sum(part.mass * part.com for part in parts) / mass
    inertia = np.zeros((3, 3))
    for part in parts:
        d = part.com - com
        inertia += part.inertia + part.mass * (d @ d * np.eye(3) - np.outer(d, d))
    return BodyInertia(mass, com, inertia)


def body_inertias(robot, link_bodies: Dict[str, Tuple[int, np.ndarray]],
                  body_count: int) -> List[Optional[BodyInertia]]:
    """Return each body's mass properties (None: no link of it has an inertial)."""
    parts: List[List[BodyInertia]] = [[] for _ in range(body_count)]
    for link in robot.links:
        body, T_body_link = link_bodies[link.name]
        part = link_inertia(link.inertial, T_body_link)
        if part is not None:
            parts[body].append(part)
    return [combined_inertia(body_parts) for body_parts in parts]
