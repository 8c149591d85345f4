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
motion is given as samples ``q_0 .. q_K`` (the trajectory generator's own path) with a
bound on each joint's motion between consecutive samples; a pair's clearance changes by
at most ``S_k = sum_j W_pj var_kj`` over interval k (``W``: the pair's lever arms, only the
joints between its two bodies). The motion is free when no pair can come closer than
``padding`` at any instant, shown per pair by either rule:

* conservative advancement: from clearance ``c`` at sample i, every instant up to sample
  j is clear while ``S_i + ... + S_{j-1} <= c - padding``;
* two samples: ``d_k + d_{k+1} >= 2 padding + S_k`` clears the interval between them (at
  a time between, the clearance is at least ``max(d_k - x, d_{k+1} - (S_k - x)) >=
  (d_k + d_{k+1} - S_k) / 2`` for the part ``x`` of the motion done).

The samples are at most ``spacing`` apart in the weighted path length of
:meth:`ros_ik.trajectory.online_generator.OnlineGenerator.samples`.

The proxies enclose the shapes, so a proxy clearance is a lower bound: coal measures a
pair on the real shapes (primitives, mesh hulls) only where its proxy cannot prove a rule.

A pair already closer than ``padding`` at the start (a bad start, a new object) is only
allowed to move apart: its clearance may not fall below its starting value at any sample.
"""

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from ros_ik.collision.clearance_kernels import (body_poses_into, MEASURE_FROM, MEASURED,
                                                motion_clearances, OPEN, walk_pairs)
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

    def in_collision_text(self) -> str:
        """Return the message for a pair already in collision (only moving apart is allowed)."""
        return (f'in collision: {self.owners[0]} and {self.owners[1]} are '
                f'{self.distance:.3g} m apart; only motions that move them apart are allowed')


class CollisionChecker:
    """Checks of one :class:`CollisionModel` with a padding and a path spacing (m)."""

    def __init__(self, model: CollisionModel, padding: float, spacing: float) -> None:
        """Keep the model; coal objects are made once per element."""
        import coal
        self._coal = coal
        self.model = model
        self.padding = padding
        self.spacing = spacing
        by_shape = {}
        for element in model.elements:  # the capsules of one shape share its geometry
            if id(element.shape) not in by_shape:
                by_shape[id(element.shape)] = element.shape.coal_geometry()
        self._geometries = [by_shape[id(element.shape)] for element in model.elements]
        self._request = coal.DistanceRequest()
        self._request.enable_signed_distance = True
        self._result = coal.DistanceResult()
        n = model.kinematics.n_joints
        self._G = np.empty((n, 3, 4))
        self._bodies = np.empty((n + 1, 3, 4))
        self._walked = np.full(n, np.nan)  # the joints of the last walk (NaN: none yet)
        self._measured_here: Dict[int, Contact] = {}  # pair -> coal's contact at _walked

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

    def _walk_chain(self, q: np.ndarray) -> None:
        """
        Compute the aligned frames and body poses at ``q`` (:meth:`_transform` uses them).

        Kept until another ``q`` comes, with coal's contacts measured at it: a cycle's
        damper and step check ask for the same pairs and points at one ``q``.
        """
        q = np.asarray(q, dtype=float)
        if np.array_equal(q, self._walked):
            return
        kinematics = self.model.kinematics
        body_poses_into(q, kinematics.A, kinematics.prismatic, self._G, self._bodies)
        self._walked = q.copy()
        self._measured_here.clear()

    def _transform(self, index: int):
        """Return element ``index``'s shape pose (coal) from the last :meth:`_walk_chain`."""
        element = self.model.elements[index]
        T_body = self._bodies[element.body]
        return self._coal.Transform3s(T_body[:, :3] @ element.T_G_shape[:3, :3],
                                      T_body[:, :3] @ element.T_G_shape[:3, 3] + T_body[:, 3])

    def _distance(self, q: np.ndarray, pair_index: int) -> float:
        """Return only the coal clearance of pair ``pair_index`` at ``q`` (the walk's need)."""
        self._walk_chain(q)
        a, b = self.model.pairs[pair_index]
        self._result.clear()
        return self._coal.distance(self._geometries[a], self._transform(a),
                                   self._geometries[b], self._transform(b), self._request,
                                   self._result)

    def exact_many(self, q: np.ndarray, pair_indices, sample: int = 0) -> List[Contact]:
        """Return the coal clearances of ``pair_indices`` at ``q`` (one chain walk)."""
        model = self.model
        self._walk_chain(q)
        coal = self._coal
        placed: Dict[int, object] = {}
        contacts = []
        for pair_index in pair_indices:
            known = self._measured_here.get(int(pair_index))
            if known is not None:
                contacts.append(known if known.sample == sample
                                else replace(known, sample=sample))
                continue
            a, b = model.pairs[pair_index]
            for index in (a, b):
                if index not in placed:
                    placed[index] = self._transform(index)
            result = self._result
            result.clear()
            distance = coal.distance(self._geometries[a], placed[a], self._geometries[b],
                                     placed[b], self._request, result)
            contact = Contact(float(distance), int(pair_index), model.pair_owners[pair_index],
                              sample, np.array(result.getNearestPoint1()),
                              np.array(result.getNearestPoint2()), np.array(result.normal))
            self._measured_here[int(pair_index)] = contact
            contacts.append(contact)
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

    def first_contact(self, Q: np.ndarray, variation: np.ndarray) -> Optional[Contact]:
        """
        Return the first violation along the samples ``Q`` (k, n), or None: the motion is free.

        ``variation`` (k - 1, n): how far each joint may move between samples k and k + 1;
        a pair's clearance changes by at most ``S_k = variation_k . W_pair`` over the
        interval (``CollisionModel.pair_weights``). Pairs whose proxies are farther than
        ``padding + sum S_k`` at ``Q[0]`` stay clear along the whole motion; the others are
        walked (:func:`ros_ik.collision.clearance_kernels.walk_pairs`, coal where the
        proxies do not prove the rules). A pair closer than ``padding`` at ``Q[0]`` must
        keep its starting clearance at every sample instead.
        """
        if not self.pair_count:
            return None
        Q = np.ascontiguousarray(np.atleast_2d(Q), dtype=float)
        model = self.model
        variation = np.asarray(variation, dtype=float).reshape(-1, Q.shape[1])
        bounds = variation @ model.pair_weights.T
        reach = bounds.sum(axis=0)
        padding = self.padding
        proxy = self.proxy_clearances(Q[0], padding + float(reach.max(initial=0.0)))[0]
        near = np.flatnonzero(proxy < padding + reach)
        if not len(near):
            return None
        violations = []
        start = {contact.pair: contact.distance for contact in
                 self.exact_many(Q[0], near[proxy[near] < padding])}
        for p, clearance in start.items():
            if clearance < padding:
                sample = self._first_closer_sample(Q, p, clearance)
                if sample is not None:
                    violations.append((sample, p))
        near = np.array([p for p in near if start.get(int(p), padding) >= padding],
                        dtype=np.int64)
        count = len(Q)
        travelled = np.zeros((count, len(near)))
        travelled[1:] = np.cumsum(bounds[:, near], axis=0)
        values = np.zeros((count, len(near)))
        state = np.zeros((count, len(near)), dtype=np.int8)
        for column, p in enumerate(near):
            if int(p) in start:
                values[0, column], state[0, column] = start[int(p)], MEASURED
        cursor = np.zeros(len(near), dtype=np.int64)
        outcome = np.full(len(near), OPEN, dtype=np.int64)
        kinematics = model.kinematics
        measured = {}  # (sample, shape, shape) -> coal clearance
        sample_bodies = np.empty((count, Q.shape[1] + 1, 3, 4))
        posed = np.zeros(count, dtype=np.bool_)
        while walk_pairs(Q, kinematics.A, kinematics.prismatic, model.kernel_elements,
                         model.pair_a[near], model.pair_b[near], travelled, padding, values,
                         state, cursor, outcome, sample_bodies, posed):
            for column in np.flatnonzero(outcome >= MEASURE_FROM):
                k = int(outcome[column] - MEASURE_FROM)
                p = int(near[column])
                a, b = model.pairs[p]
                key = (k, id(model.elements[a].shape), id(model.elements[b].shape))
                if key not in measured:
                    measured[key] = self._distance(Q[k], p)
                values[k, column] = max(measured[key], values[k, column])
                state[k, column] = MEASURED
                outcome[column] = OPEN
        violations.extend((int(-1 - outcome[column]), int(near[column]))
                          for column in np.flatnonzero(outcome < 0))
        if not violations:
            return None
        sample, p = min(violations)
        return self.exact(Q[sample], p, sample)

    def _first_closer_sample(self, Q: np.ndarray, pair_index: int,
                             start: float) -> Optional[int]:
        """Return the first sample where a pair in collision got closer than ``start``."""
        kinematics = self.model.kinematics
        proxy = motion_clearances(Q, kinematics.A, kinematics.prismatic,
                                  self.model.kernel_elements,
                                  self.model.pair_a[pair_index:pair_index + 1],
                                  self.model.pair_b[pair_index:pair_index + 1], np.inf)[:, 0]
        for k in range(1, len(Q)):
            if (proxy[k] < start - ESCAPE_TOLERANCE
                    and self.exact(Q[k], pair_index, k).distance < start - ESCAPE_TOLERANCE):
                return k
        return None

    def normal_rates(self, q: np.ndarray, bodies: Sequence[int], points: np.ndarray,
                     normals: np.ndarray) -> np.ndarray:
        """
        Return ``R`` (k, n): ``R[k] = n_k^T J_p(p_k)``, each point's speed along its normal.

        ``p_k`` (m, base frame) is fixed on body ``bodies[k]``, ``n_k`` a unit vector; the
        point Jacobian's column j, for the joints before the body, is ``z_j x (p - o_j)``
        (revolute) or ``z_j`` (prismatic), with ``z_j``, ``o_j`` column 2 and 3 of the
        aligned frame ``G_j``; zero for the others. All rows in one pass:
        ``n^T (z x r) = z^T (r x n)``.
        """
        kinematics = self.model.kinematics
        self._walk_chain(q)
        n = kinematics.n_joints
        z, origins = self._G[:n, :, 2], self._G[:n, :, 3]  # (n, 3) axes and origins
        points, normals = np.asarray(points, dtype=float), np.asarray(normals, dtype=float)
        lever_cross_normal = np.cross(points[:, None, :] - origins[None], normals[:, None, :])
        rates = np.where(kinematics.prismatic[:n], normals @ z.T,
                         np.einsum('kjc,jc->kj', lever_cross_normal, z))
        before_body = np.arange(n)[None, :] < np.asarray(bodies)[:, None]
        return np.where(before_body, rates, 0.0)
