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
Collision checks of configurations and motions: proxies first, coal where they are close.

A configuration is free when every checked pair's clearance is at least ``padding`` (m). A
motion, given as samples ``q_0 .. q_K`` (the trajectory generator's own path) with a bound
``S_k`` on how far any point moves relative to any other between samples ``k`` and
``k + 1``, is free when every sample is and, for every pair and interval,
``d_k + d_{k+1} >= 2 padding + S_k``: at a time between the samples the clearance is at
least ``max(d_k - x, d_{k+1} - (S_k - x)) >= (d_k + d_{k+1} - S_k) / 2`` for the part ``x``
of the motion done. With samples ``spacing`` apart in weighted path length, ``S_k <= 2
spacing`` (both elements of a pair may move). So no point of the robot comes closer than
``padding`` to another body or object anywhere along the motion, not only at the samples.

The proxies enclose the shapes, so a proxy clearance is a lower bound: only the pairs
whose proxy fails a rule are measured with coal on the real shapes (primitives, mesh
hulls), and the rule is applied again to those values.

A pair already closer than ``padding`` at the start (a bad start, a new object) is only
allowed to move apart: its clearance may not fall below its starting value at any sample.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np
from ros_ik.collision.clearance_kernels import body_poses_into, motion_clearances
from ros_ik.collision.collision_model import CollisionModel

ESCAPE_TOLERANCE = 1e-6  # m a pair in collision may lose to round-off while moving apart


@dataclass(frozen=True)
class Contact:
    """
    The clearance (m) of one pair at one sample, with witness points (base frame).

    ``normal`` (unit, base frame) points from the first element toward the second: the
    direction in which the second must move for the clearance to grow.
    """

    distance: float
    pair: int
    owners: Tuple[str, str]
    sample: int
    p_a: np.ndarray
    p_b: np.ndarray
    normal: np.ndarray

    def text(self) -> str:
        """Return ``'a into b'``, for messages about a motion that would hit."""
        return f'{self.owners[0]} into {self.owners[1]}'


class CollisionChecker:
    """Checks of one :class:`CollisionModel` with a padding and a path spacing (m)."""

    def __init__(self, model: CollisionModel, padding: float, spacing: float) -> None:
        """Keep the model; coal objects are made once per element."""
        import coal
        self._coal = coal
        self.model = model
        self.padding = padding
        self.spacing = spacing
        self._geometries = [element.shape.coal_geometry() for element in model.elements]
        self._request = coal.DistanceRequest()
        self._request.enable_signed_distance = True
        self._result = coal.DistanceResult()
        n = model.kinematics.n_joints
        self._G = np.empty((n, 3, 4))
        self._bodies = np.empty((n + 1, 3, 4))

    @property
    def pair_count(self) -> int:
        """Return the number of checked element pairs."""
        return len(self.model.pairs)

    def proxy_clearances(self, Q: np.ndarray, cutoff: float) -> np.ndarray:
        """Return proxy clearances (k, pairs) at the rows of ``Q`` (see clearance_kernels)."""
        kinematics = self.model.kinematics
        return motion_clearances(np.ascontiguousarray(np.atleast_2d(Q), dtype=float),
                                 kinematics.A, kinematics.prismatic,
                                 self.model.kernel_elements, self.model.pair_a,
                                 self.model.pair_b, cutoff)

    def exact(self, q: np.ndarray, pair_index: int, sample: int = 0) -> Contact:
        """Return the coal clearance of pair ``pair_index`` at ``q`` with its witnesses."""
        return self.exact_many(q, [pair_index], sample)[0]

    def exact_many(self, q: np.ndarray, pair_indices, sample: int = 0) -> List[Contact]:
        """Return the coal clearances of ``pair_indices`` at ``q`` (one chain walk)."""
        model = self.model
        kinematics = model.kinematics
        body_poses_into(np.asarray(q, dtype=float), kinematics.A, kinematics.prismatic,
                        self._G, self._bodies)
        coal = self._coal
        placed: Dict[int, object] = {}
        contacts = []
        for pair_index in pair_indices:
            a, b = model.pairs[pair_index]
            for index in (a, b):
                if index not in placed:
                    element = model.elements[index]
                    T_body = self._bodies[element.body]
                    placed[index] = coal.Transform3s(
                        T_body[:, :3] @ element.T_G_shape[:3, :3],
                        T_body[:, :3] @ element.T_G_shape[:3, 3] + T_body[:, 3])
            result = self._result
            result.clear()
            distance = coal.distance(self._geometries[a], placed[a], self._geometries[b],
                                     placed[b], self._request, result)
            contacts.append(Contact(float(distance), int(pair_index),
                                    model.pair_owners[pair_index], sample,
                                    np.array(result.getNearestPoint1()),
                                    np.array(result.getNearestPoint2()),
                                    np.array(result.normal)))
        return contacts

    def nearest(self, q: np.ndarray, within: float = np.inf) -> Optional[Contact]:
        """Return the closest pair at ``q`` (coal), None without pairs or none ``within``."""
        if not self.pair_count:
            return None
        proxy = self.proxy_clearances(q, within)[0]
        order = np.argsort(proxy)
        best: Optional[Contact] = None
        for index in order:
            if best is not None and proxy[index] >= best.distance:
                break
            if proxy[index] >= within:
                break
            contact = self.exact(q, int(index))
            if best is None or contact.distance < best.distance:
                best = contact
        return best

    def contacts(self, q: np.ndarray, within: float) -> Tuple[Contact, ...]:
        """Return every pair (coal) closer than ``within`` at ``q``."""
        if not self.pair_count:
            return ()
        proxy = self.proxy_clearances(q, within)[0]
        found = self.exact_many(q, np.flatnonzero(proxy < within))
        return tuple(contact for contact in found if contact.distance < within)

    def first_contact(self, Q: np.ndarray, motion_bounds: np.ndarray) -> Optional[Contact]:
        """
        Return the first violation along the samples ``Q`` (k, n), or None: the motion is free.

        ``motion_bounds`` (k - 1,): ``S_k``, how far points move relative to each other
        between samples k and k + 1. Pairs closer than ``padding`` at ``Q[0]`` must not get
        closer (see the module docstring). Pairs farther than ``padding + sum S_k`` at
        ``Q[0]`` (proxies, then coal) stay clear along the whole motion and are not sampled.
        """
        if not self.pair_count:
            return None
        Q = np.ascontiguousarray(np.atleast_2d(Q), dtype=float)
        reach = float(np.sum(motion_bounds))
        near = np.flatnonzero(self.proxy_clearances(Q[0], self.padding + reach)[0]
                              < self.padding + reach)
        start = {contact.pair: contact.distance for contact in self.exact_many(Q[0], near)}
        near = np.array([p for p in near if start[int(p)] < self.padding + reach],
                        dtype=np.int64)
        if not len(near):
            return None
        kinematics = self.model.kinematics
        D = motion_clearances(Q, kinematics.A, kinematics.prismatic, self.model.kernel_elements,
                              self.model.pair_a[near], self.model.pair_b[near],
                              self.padding + float(np.max(motion_bounds, initial=0.0)))
        D[0] = [start[int(p)] for p in near]
        escaping = {int(column): D[0, column] for column in np.flatnonzero(D[0] < self.padding)}
        implicated = self._implicated(D, motion_bounds, escaping)
        for k in np.flatnonzero(implicated.any(axis=1)):  # proxies only bound: measure
            columns = np.flatnonzero(implicated[k])
            D[k, columns] = [contact.distance for contact in
                             self.exact_many(Q[k], near[columns], int(k))]
        implicated = self._implicated(D, motion_bounds, escaping)
        if not implicated.any():
            return None
        k, column = (int(index[0]) for index in np.nonzero(implicated))
        return self.exact(Q[k], int(near[column]), k)

    def _implicated(self, D: np.ndarray, motion_bounds: np.ndarray,
                    escaping: Dict[int, float]) -> np.ndarray:
        """Return which clearances (k, pairs) take part in breaking a rule of the module."""
        padding = self.padding
        implicated = D < padding
        sums = D[:-1] + D[1:] < 2.0 * padding + motion_bounds[:, None]
        for p, start in escaping.items():
            implicated[:, p] = D[:, p] < start - ESCAPE_TOLERANCE
            sums[:, p] = False
        implicated[:-1] |= sums
        implicated[1:] |= sums
        return implicated

    def point_jacobian(self, q: np.ndarray, body: int, point: np.ndarray) -> np.ndarray:
        """
        Return ``J_p`` (3, n): the base-frame velocity of ``point`` fixed on ``body``.

        Column j (joints before the body): ``z_j x (p - o_j)`` (revolute), ``z_j``
        (prismatic), with ``z_j``, ``o_j`` column 2 and 3 of the aligned frame ``G_j``.
        """
        kinematics = self.model.kinematics
        body_poses_into(np.asarray(q, dtype=float), kinematics.A, kinematics.prismatic,
                        self._G, self._bodies)
        n = kinematics.n_joints
        J = np.zeros((3, n))
        for j in range(min(body, n)):
            z, origin = self._G[j, :, 2], self._G[j, :, 3]
            J[:, j] = z if kinematics.prismatic[j] else np.cross(z, point - origin)
        return J
