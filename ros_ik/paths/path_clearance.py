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
How far along a joint path the robot is provably collision-free (self and scene).

The spline ``q(s)`` is sampled so that, with ``W`` the collision model's motion weights
(how far a point of the robot moves per unit of each joint), the bound ``W . |q'|max ds`` of
the motion between two samples stays below ``spacing``; each interval's joint motion is
bounded by ``|q'|max ds`` per joint (exact per spline interval), which is what
:meth:`CollisionChecker.first_contact` needs to prove a motion free between samples (the
clearance rule of :mod:`ros_ik.collision.collision_checker`). Where a sample is not proven
free, the interval before it is searched again with samples ``FINE_SPACING`` apart: a
false alarm of the coarse samples is cleared and the check goes on; a real contact ends
the free part at the last point proven free (bisection), within about ``FINE_SPACING``
of the contact.
"""

from typing import Optional, Tuple

import numpy as np

from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.contact import Contact
from ros_ik.paths.joint_path import JointPath

FINE_SPACING = 2.5e-4  # m moved by any point of the robot between two fine samples
BISECTION_STEPS = 24


def _samples(joint_path: JointPath, s_from: float, s_to: float, spacing: float,
             weights: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return path lengths (k,), joints (k, n) and joint-motion bounds (k - 1, n)."""
    first, _, _ = joint_path.interval_bounds()
    knots = joint_path.s
    inner = knots[(knots > s_from) & (knots < s_to)]
    edges = np.concatenate([[s_from], inner, [s_to]])
    rates = first[joint_path.interval_of(0.5 * (edges[:-1] + edges[1:]))]
    lengths = np.diff(edges)
    pieces = np.maximum(np.ceil(lengths * (rates @ weights) / spacing), 1).astype(int)
    s = np.concatenate([edges[k] + lengths[k] * np.arange(pieces[k]) / pieces[k]
                        for k in range(len(lengths))] + [[s_to]])
    interval = np.repeat(np.arange(len(lengths)), pieces)
    variation = rates[interval] * np.diff(s)[:, None]
    return s, joint_path.positions(s), variation


def _first_contact(joint_path: JointPath, checker: CollisionChecker, s_from: float,
                   s_to: float, spacing: float) -> Optional[Tuple[float, float, Contact]]:
    """Return (s before, s at, contact) of the first sample not proven free, or None."""
    s, Q, variation = _samples(joint_path, s_from, s_to, spacing,
                               checker.model.motion_weights)
    contact = checker.first_contact(Q, variation)
    if contact is None:
        return None
    k = contact.sample
    return float(s[max(k - 1, 0)]), float(s[k]), contact


def free_until(joint_path: JointPath, checker: CollisionChecker, s_from: float,
               s_to: float) -> Tuple[float, Optional[Contact]]:
    """
    Return how far (m of path) from ``s_from`` toward ``s_to`` is proven free, and what stops it.

    ``(s_to, None)`` when all of it is free; otherwise the last proven point and the
    contact found just after it (``s_from`` itself when the start is already blocked).
    """
    cursor = s_from
    while True:
        found = _first_contact(joint_path, checker, cursor, s_to, checker.spacing)
        if found is None:
            return s_to, None
        before, at, contact = found
        if before <= cursor and at <= cursor:
            return cursor, contact
        fine = _first_contact(joint_path, checker, before, at, FINE_SPACING)
        if fine is None:
            cursor = at  # a false alarm of the coarse samples
            continue
        low, high = before, fine[1]
        contact = fine[2]
        for _ in range(BISECTION_STEPS):
            middle = 0.5 * (low + high)
            if _first_contact(joint_path, checker, before, middle, FINE_SPACING) is None:
                low = middle
            else:
                high = middle
        return low, contact
