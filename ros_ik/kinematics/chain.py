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
The kinematic chain model: joints between a base link and a tip link.

Frames: the chain starts at ``base_link``. Each moving joint ``j`` has a constant transform
``T_prev_joint`` (4x4, metres) from the previous moving joint's child frame (or the base)
to its own joint frame, with every fixed joint in between folded in. A joint moves its
child frame by a rotation of ``q_j`` rad (revolute, continuous) or a translation of ``q_j``
m (prismatic) along its unit ``axis``, given in the joint frame. ``T_last_tip`` is the
constant transform from the last moving joint's child frame to the tip, fixed joints and
any tool offset folded in. Links attached by fixed joints inside the chain (a flange, a hand)
are kept as :class:`FixedLink` entries, so their frames can be named too.

The model is immutable; per-call work lives in :mod:`ros_ik.kinematics.chain_kinematics`.
"""

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Tuple

import numpy as np

REVOLUTE = 'revolute'
CONTINUOUS = 'continuous'
PRISMATIC = 'prismatic'
MOVING_JOINT_TYPES = (REVOLUTE, CONTINUOUS, PRISMATIC)


@dataclass(frozen=True)
class Joint:
    """
    One moving joint of a chain.

    ``lower``/``upper`` are position limits (rad or m; +-inf for continuous joints) and
    ``velocity`` the speed limit (rad/s or m/s; inf when the URDF gives none).
    """

    name: str
    joint_type: str
    parent_link: str
    child_link: str
    T_prev_joint: np.ndarray
    axis: np.ndarray
    lower: float
    upper: float
    velocity: float


@dataclass(frozen=True)
class FixedLink:
    """
    A link fixed inside the chain: ``T_parent_link`` (4x4, m) from the frame it hangs on.

    ``parent_index`` is 0 for the base frame and ``j + 1`` for the child frame of moving
    joint ``j``: the index into :meth:`ChainKinematics.link_poses`.
    """

    name: str
    parent_index: int
    T_parent_link: np.ndarray


@dataclass(frozen=True)
class Chain:
    """Moving joints from ``base_link`` to ``tip_link`` in order, plus the fixed tip offset."""

    base_link: str
    tip_link: str
    joints: Tuple[Joint, ...]
    T_last_tip: np.ndarray
    fixed_links: Tuple[FixedLink, ...] = ()

    @property
    def n_joints(self) -> int:
        """Return the number of moving joints (the length of a joint vector ``q``)."""
        return len(self.joints)

    @property
    def joint_names(self) -> Tuple[str, ...]:
        """Return joint names in chain order (the order of every joint vector)."""
        return tuple(joint.name for joint in self.joints)

    @property
    def link_names(self) -> Tuple[str, ...]:
        """Return the base link followed by each moving joint's child link."""
        return (self.base_link,) + tuple(joint.child_link for joint in self.joints)

    @cached_property
    def frame_names(self) -> Tuple[str, ...]:
        """Return every link of the chain: the moving joints' links and the fixed ones."""
        names = self.link_names + tuple(link.name for link in self.fixed_links)
        return tuple(dict.fromkeys(names + (self.tip_link,)))

    @property
    def lower(self) -> np.ndarray:
        """Return lower position limits (n,), -inf for continuous joints."""
        return np.array([joint.lower for joint in self.joints])

    @property
    def upper(self) -> np.ndarray:
        """Return upper position limits (n,), +inf for continuous joints."""
        return np.array([joint.upper for joint in self.joints])

    @property
    def velocity_limits(self) -> np.ndarray:
        """Return velocity limits (n,) in rad/s or m/s."""
        return np.array([joint.velocity for joint in self.joints])

    @property
    def is_continuous(self) -> np.ndarray:
        """Return a boolean mask (n,) of continuous (unbounded) joints."""
        return np.array([joint.joint_type == CONTINUOUS for joint in self.joints], dtype=bool)

    @property
    def is_prismatic(self) -> np.ndarray:
        """Return a boolean mask (n,) of prismatic joints."""
        return np.array([joint.joint_type == PRISMATIC for joint in self.joints], dtype=bool)

    def with_tool_offset(self, T_tip_tool: np.ndarray) -> 'Chain':
        """Return a chain whose tip is moved by the constant transform ``T_tip_tool``."""
        return replace(self, T_last_tip=self.T_last_tip @ np.asarray(T_tip_tool, dtype=float))

    def middle_configuration(self) -> np.ndarray:
        """Return the middle of each joint range (0 for continuous joints), shape (n,)."""
        bounded = ~self.is_continuous
        return np.where(bounded, 0.5 * (np.where(bounded, self.lower, 0.0)
                                        + np.where(bounded, self.upper, 0.0)), 0.0)

    def sampling_bounds(self) -> Tuple[np.ndarray, np.ndarray]:
        """Return ``(lower, upper)`` (n,) to draw configurations in (continuous: -pi..pi)."""
        return (np.where(self.is_continuous, -np.pi, self.lower),
                np.where(self.is_continuous, np.pi, self.upper))

    def within_limits(self, q: np.ndarray, tolerance: float = 1e-9) -> bool:
        """Return whether ``q`` lies inside the position limits (continuous ones always do)."""
        q = np.asarray(q, dtype=float)
        return bool(np.all(q >= self.lower - tolerance) and np.all(q <= self.upper + tolerance))
