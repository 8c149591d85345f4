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
Coal's last measure of a pair is a lower bound too, less the motion since
(:meth:`CollisionChecker.clearance_bounds`): from one control cycle to the next, a pair
whose proxies overlap while its shapes stay apart is not measured again.

A pair already closer than ``padding`` at the start (a bad start, a new object) is only
allowed to move apart: its clearance may not fall below its starting value at any sample.
"""

from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from ros_ik.collision.clearance_kernels import (body_poses_into, BOUND, clearances_into,
                                                MEASURE_FROM, MEASURED, motion_clearances,
                                                normal_rates_into, OPEN,
                                                raise_to_measured_into, walk_pairs)
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.collision.contact import Contact

ESCAPE_TOLERANCE = 1e-6  # m a pair in collision may lose to round-off while moving apart


def _is_row_of(kept: Optional[Tuple[Contact, np.ndarray]], contact: Contact) -> bool:
    """Return whether ``kept`` (contact, row) is of ``contact``'s coal measure (its arrays)."""
    return (kept is not None and kept[0].p_a is contact.p_a and kept[0].p_b is contact.p_b
            and kept[0].normal is contact.normal)


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
        self._walked_bytes = b''
        self.walk_count = 0  # walks so far: what was measured is kept while it stays
        self._measured_here: Dict[int, Contact] = {}  # pair -> coal's contact at _walked
        # pair -> (the contact, its clearance-rate row) at _walked (clearance_rates)
        self._rates_here: Dict[int, Tuple[Contact, np.ndarray]] = {}
        self._placed: Dict[int, object] = {}  # element -> its coal pose at _walked
        element_count = len(model.elements)
        self._world_ends = np.empty((element_count, 2, 3))
        self._world_box = np.empty((element_count, 3, 4))
        pair_count = len(model.pairs)
        self._bounds = np.empty(pair_count)  # clearance bounds at _walked ...
        self._bounds_ready = False  # ... once computed
        self._bounds_view = self._bounds.view()
        self._bounds_view.flags.writeable = False
        self._known_at = np.zeros((pair_count, n))  # where coal last measured each pair
        self._known_clearance = np.full(pair_count, -np.inf)  # ... and what it found (m)

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
        key = q.tobytes()
        if key == self._walked_bytes:
            return
        kinematics = self.model.kinematics
        body_poses_into(q, kinematics.A, kinematics.prismatic, self._G, self._bodies)
        self._walked, self._walked_bytes = q.copy(), key
        self.walk_count += 1
        self._measured_here.clear()
        self._rates_here.clear()
        self._placed.clear()
        self._bounds_ready = False

    def clearance_bounds(self, q: np.ndarray, cutoff: float) -> np.ndarray:
        """
        Return a lower bound (m) of every pair's clearance at ``q`` (pairs,); read-only.

        The larger of the pair's proxy clearance (the exact capsule or box distance where
        the proxies' bounding spheres are closer than ``cutoff``, their gap elsewhere:
        :mod:`ros_ik.collision.clearance_kernels`) and what coal's last measure of the pair
        still guarantees: a pair measured at clearance ``d_0`` at ``q_0`` has at least
        ``d_0 - W_p . |q - q_0|`` at ``q`` (``CollisionModel.pair_weights``, along the
        straight joint path from ``q_0``). Between one cycle and the next the joints move
        little, so a pair whose proxies overlap while its shapes stay apart needs coal again
        only once the motion since its last measure has used up its clearance. Kept for the
        last walk's ``q`` (a cycle's damper and step check both start there; a later call
        there gets the first call's cutoff) and raised by every coal measure at it.
        """
        self._walk_chain(q)
        if not self._bounds_ready:
            model = self.model
            clearances_into(self._bodies, model.kernel_elements, model.pair_a, model.pair_b,
                            cutoff, self._world_ends, self._world_box, self._bounds)
            raise_to_measured_into(self._bounds, self._walked, self._known_at,
                                   self._known_clearance, model.pair_weights)
            self._bounds_ready = True
        return self._bounds_view

    def _transform(self, index: int):
        """Return element ``index``'s shape pose (coal) from the last :meth:`_walk_chain`."""
        placed = self._placed.get(index)
        if placed is None:
            element = self.model.elements[index]
            T_body = self._bodies[element.body]
            placed = self._coal.Transform3s(
                T_body[:, :3] @ element.T_G_shape[:3, :3],
                T_body[:, :3] @ element.T_G_shape[:3, 3] + T_body[:, 3])
            self._placed[index] = placed
        return placed

    def _remember(self, pair_index: int, clearance: float) -> None:
        """Keep coal's clearance of a pair at the last walk's joints (clearance_bounds)."""
        self._known_at[pair_index] = self._walked
        self._known_clearance[pair_index] = clearance
        if self._bounds_ready:
            self._bounds[pair_index] = max(self._bounds[pair_index], clearance)

    def _distance(self, q: np.ndarray, pair_index: int) -> float:
        """Return only the coal clearance of pair ``pair_index`` at ``q`` (the walk's need)."""
        self._walk_chain(q)
        a, b = self.model.pairs[pair_index]
        self._result.clear()
        clearance = self._coal.distance(self._geometries[a], self._transform(a),
                                        self._geometries[b], self._transform(b),
                                        self._request, self._result)
        self._remember(pair_index, clearance)
        return clearance

    def exact_many(self, q: np.ndarray, pair_indices, sample: int = 0) -> List[Contact]:
        """Return the coal clearances of ``pair_indices`` at ``q`` (one chain walk)."""
        model = self.model
        self._walk_chain(q)
        coal = self._coal
        contacts = []
        for pair_index in pair_indices:
            known = self._measured_here.get(int(pair_index))
            if known is not None:
                contacts.append(known if known.sample == sample
                                else replace(known, sample=sample))
                continue
            a, b = model.pairs[pair_index]
            result = self._result
            result.clear()
            distance = coal.distance(self._geometries[a], self._transform(a),
                                     self._geometries[b], self._transform(b), self._request,
                                     result)
            self._remember(int(pair_index), distance)
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
        lower = self.clearance_bounds(q, within)
        best: Optional[Contact] = None
        for index in np.argsort(lower):
            if best is not None and lower[index] >= best.distance:
                break
            if lower[index] >= within:
                break
            contact = self.exact(q, int(index))
            if best is None or contact.distance < best.distance:
                best = contact
        return best

    def contacts(self, q: np.ndarray, within: float) -> Tuple[Contact, ...]:
        """Return every pair (coal) closer than ``within`` at ``q``."""
        if not self.pair_count:
            return ()
        found = self.exact_many(q, np.flatnonzero(self.clearance_bounds(q, within) < within))
        return tuple(contact for contact in found if contact.distance < within)

    def first_contact(self, Q: np.ndarray, variation: np.ndarray) -> Optional[Contact]:
        """
        Return the first violation along the samples ``Q`` (k, n), or None: the motion is free.

        ``variation`` (k - 1, n): how far each joint may move between samples k and k + 1;
        a pair's clearance changes by at most ``S_k = variation_k . W_pair`` over the
        interval (``CollisionModel.pair_weights``). Pairs farther than ``padding + sum S_k``
        at ``Q[0]`` (:meth:`clearance_bounds`) stay clear along the whole motion; the others
        are walked (:func:`ros_ik.collision.clearance_kernels.walk_pairs`, coal where the
        bounds do not prove the rules). A pair closer than ``padding`` at ``Q[0]`` must keep
        its starting clearance at every sample instead.
        """
        if not self.pair_count:
            return None
        Q = np.ascontiguousarray(np.atleast_2d(Q), dtype=float)
        model = self.model
        variation = np.asarray(variation, dtype=float).reshape(-1, Q.shape[1])
        reach = model.pair_weights @ variation.sum(axis=0)
        padding = self.padding
        lower_all = self.clearance_bounds(Q[0], padding + float(reach.max(initial=0.0)))
        near = np.flatnonzero(lower_all < padding + reach)
        if not len(near):
            return None
        bounds = variation @ model.pair_weights[near].T  # (k - 1, near)
        lower = lower_all[near]
        violations = []
        at_start = lower < padding  # measured with coal at Q[0]
        start = np.array([contact.distance for contact in
                          self.exact_many(Q[0], near[at_start])], dtype=float)
        for p, clearance in zip(near[at_start][start < padding], start[start < padding]):
            sample = self._first_closer_sample(Q, int(p), float(clearance))
            if sample is not None:
                violations.append((sample, int(p)))
        in_collision = np.zeros(len(near), dtype=bool)
        in_collision[at_start] = start < padding
        near, lower, at_start = near[~in_collision], lower[~in_collision], at_start[~in_collision]
        count = len(Q)
        travelled = np.zeros((count, len(near)))
        travelled[1:] = np.cumsum(bounds[:, ~in_collision], axis=0)
        values = np.zeros((count, len(near)))
        state = np.zeros((count, len(near)), dtype=np.int8)
        values[0], state[0] = lower, BOUND
        values[0, at_start] = start[start >= padding]
        state[0, at_start] = MEASURED
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

    def clearance_rates(self, q: np.ndarray, contacts: Sequence[Contact]) -> np.ndarray:
        """
        Return ``R`` (k, n): ``R[k] qdot`` is contact k's clearance rate (m/s) at ``q``.

        ``R[k] = n_k^T (J_b(p_b) - J_a(p_a))`` (:meth:`normal_rates` of its witness points
        on its two elements' bodies; the normal points from a toward b). The contacts are
        measured at ``q`` (:meth:`exact_many`); each one's row is kept until another ``q``
        comes, so an arm at rest computes it once (rows of another measure of the same
        pair, other witness arrays, are computed anew).
        """
        self._walk_chain(q)
        kept = self._rates_here
        missing = [contact for contact in contacts
                   if not _is_row_of(kept.get(contact.pair), contact)]
        if missing:
            elements, pairs = self.model.elements, self.model.pairs
            normals = np.array([contact.normal for contact in missing])
            rates = self.normal_rates(
                q, [elements[pairs[contact.pair][1]].body for contact in missing]
                + [elements[pairs[contact.pair][0]].body for contact in missing],
                np.array([contact.p_b for contact in missing]
                         + [contact.p_a for contact in missing]),
                np.vstack([normals, normals]))
            for contact, row in zip(missing, rates[:len(missing)] - rates[len(missing):]):
                kept[contact.pair] = (contact, row)
        rows = np.empty((len(contacts), self.model.kinematics.n_joints))
        for k, contact in enumerate(contacts):
            rows[k] = kept[contact.pair][1]
        return rows

    def normal_rates(self, q: np.ndarray, bodies: Sequence[int], points: np.ndarray,
                     normals: np.ndarray) -> np.ndarray:
        """
        Return ``R`` (k, n): ``R[k] = n_k^T J_p(p_k)``, each point's speed along its normal.

        ``p_k`` (m, base frame) is fixed on body ``bodies[k]``, ``n_k`` a unit vector; the
        point Jacobian's column j, for the joints before the body, is ``z_j x (p - o_j)``
        (revolute) or ``z_j`` (prismatic), with ``z_j``, ``o_j`` column 2 and 3 of the
        aligned frame ``G_j``; zero for the others
        (:func:`ros_ik.collision.clearance_kernels.normal_rates_into`).
        """
        self._walk_chain(q)
        points = np.ascontiguousarray(points, dtype=float)
        rates = np.empty((len(points), self.model.kinematics.n_joints))
        normal_rates_into(self._G, self.model.kinematics.prismatic,
                          np.asarray(bodies, dtype=np.int64), points,
                          np.ascontiguousarray(normals, dtype=float), rates)
        return rates
