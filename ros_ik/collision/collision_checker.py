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

    def first_contact(self, Q: np.ndarray, variation: np.ndarray) -> Optional[Contact]:
        """
        Return the first violation along the samples ``Q`` (k, n), or None: the motion is free.

        ``variation`` (k - 1, n): how far each joint may move between samples k and k + 1;
        a pair's clearance changes by at most ``S_k = variation_k . W_pair`` over the
        interval (``CollisionModel.pair_weights``). Pairs whose proxies are farther than
        ``padding + sum S_k`` at ``Q[0]`` stay clear along the whole motion; the others are
        walked sample by sample (:meth:`_first_unsafe_sample`).
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
        kinematics = model.kinematics
        D = motion_clearances(Q, kinematics.A, kinematics.prismatic, model.kernel_elements,
                              model.pair_a[near], model.pair_b[near],
                              padding + float(bounds[:, near].max(initial=0.0)))
        violations = []
        for column, p in enumerate(near):
            sample = self._first_unsafe_sample(Q, D[:, column], bounds[:, p], int(p))
            if sample is not None:
                violations.append((sample, int(p)))
        if not violations:
            return None
        sample, p = min(violations)
        return self.exact(Q[sample], p, sample)

    def _first_unsafe_sample(self, Q: np.ndarray, values: np.ndarray, bounds: np.ndarray,
                             pair_index: int) -> Optional[int]:
        """
        Return the first sample where pair ``pair_index`` may break the rules, or None.

        ``values`` (k,): clearance lower bounds (proxies);
        ``bounds`` (k - 1,): the pair's ``S_k``. From a clearance (bound) ``c`` at sample
        i, every instant up to sample j is clear while ``S_i + ... + S_{j-1} <= c -
        padding`` (conservative advancement); where that does not reach the next sample,
        the two-sample rule ``c_i + c_{i+1} >= 2 padding + S_i`` covers the interval.
        Proxy values that fail are replaced by coal's before a violation is declared. A
        pair in collision at sample 0 must instead keep its starting clearance at every
        sample.
        """
        padding = self.padding
        count = len(values)
        measured = np.zeros(count, dtype=bool)

        def measure(k: int) -> None:
            values[k] = self.exact(Q[k], pair_index, k).distance
            measured[k] = True

        if values[0] < padding:
            measure(0)
        if values[0] < padding:
            for k in range(1, count):
                if values[k] < values[0] - ESCAPE_TOLERANCE and not measured[k]:
                    measure(k)
                if values[k] < values[0] - ESCAPE_TOLERANCE:
                    return k
            return None
        travelled = np.concatenate([[0.0], np.cumsum(bounds)])
        k = 0
        while k < count - 1:
            reach = int(np.searchsorted(travelled, travelled[k] + values[k] - padding,
                                        side='right')) - 1
            if reach >= count - 1:
                return None
            if reach > k:
                k = reach
                if values[k] < padding and not measured[k]:
                    measure(k)
                if values[k] < padding:
                    return k
                continue
            following = k + 1
            if (values[following] >= padding
                    and values[k] + values[following] >= 2.0 * padding + bounds[k]):
                k = following
            elif not measured[k]:
                measure(k)
            elif not measured[following]:
                measure(following)
            else:
                return following
        return None

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
