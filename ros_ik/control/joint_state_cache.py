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
The latest joint positions of a chain, merged by name from JointState-like messages.

Messages may carry extra joints (grippers, other arms) and several publishers may each
carry some of the chain's joints; positions are matched by name and merged. A message
with NaN/inf positions or mismatched lengths is rejected whole. Ages are measured with the
receiver's clock (s), so skewed stamps of other machines cannot hide stale data.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np


LAYOUTS_KEPT = 16  # joint sets whose layout is remembered (a bound: any count works)


@dataclass(frozen=True)
class JointStateUpdate:
    """What one message did: an error (message rejected), joints it lacked or added."""

    error: str = ''
    problem: str = ''
    extra_joints: Tuple[str, ...] = ()
    absent_joints: Tuple[str, ...] = ()


@dataclass(frozen=True)
class _Layout:
    """Where a joint set's chain joints are: chain indices, message indices, the update."""

    chain_index: np.ndarray
    message_index: np.ndarray
    update: JointStateUpdate


class JointStateCache:
    """Latest position (rad or m) and receive time (s) of every chain joint."""

    def __init__(self, joint_names: Sequence[str]) -> None:
        """Start with no joint known."""
        self.joint_names = tuple(joint_names)
        self._index = {name: index for index, name in enumerate(self.joint_names)}
        self._positions = np.full(len(self.joint_names), np.nan)
        self._received = np.full(len(self.joint_names), -np.inf)
        self._layouts: Dict[Tuple[str, ...], _Layout] = {}

    def update(self, names: Sequence[str], positions: Sequence[float],
               receive_time: float) -> JointStateUpdate:
        """
        Merge one message's positions for the chain joints it names.

        A joint named twice takes its last value. The layout of a joint set (which entries
        are chain joints) is computed once and remembered, so a driver's stream costs an
        indexed copy per message.
        """
        if len(names) != len(positions):
            return JointStateUpdate(error=f'joint_states has {len(names)} names but '
                                          f'{len(positions)} positions; message ignored',
                                    problem='lengths')
        layout = self._layout(tuple(names))
        values = np.asarray(positions, dtype=float)[layout.message_index]
        finite = np.isfinite(values)
        if not finite.all():
            bad = [self.joint_names[index] for index in layout.chain_index[~finite]]
            return JointStateUpdate(error='joint_states has non-finite positions for '
                                          f'{", ".join(bad)}; message ignored',
                                    problem='non_finite')
        self._positions[layout.chain_index] = values
        self._received[layout.chain_index] = receive_time
        return layout.update

    def _layout(self, names: Tuple[str, ...]) -> _Layout:
        """Return the (remembered) layout of the joint set ``names``."""
        layout = self._layouts.get(names)
        if layout is None:
            last_entry = {self._index[name]: entry for entry, name in enumerate(names)
                          if name in self._index}
            present = set(names)
            layout = _Layout(
                np.array(list(last_entry), dtype=np.intp),
                np.array(list(last_entry.values()), dtype=np.intp),
                JointStateUpdate(
                    extra_joints=tuple(name for name in names if name not in self._index),
                    absent_joints=tuple(name for name in self.joint_names
                                        if name not in present)))
            if len(self._layouts) >= LAYOUTS_KEPT:
                self._layouts.clear()
            self._layouts[names] = layout
        return layout

    def missing_joints(self) -> List[str]:
        """Return chain joints never received."""
        return [name for name, value in zip(self.joint_names, self._positions)
                if np.isnan(value)]

    def positions(self) -> Optional[np.ndarray]:
        """Return the chain's joint vector (n,), or None while a joint is still unknown."""
        return None if np.isnan(self._positions).any() else self._positions.copy()

    def age(self, now: float) -> float:
        """Return how old (s) the oldest chain joint's latest position is (inf if unknown)."""
        return float(now - self._received.min()) if len(self._received) else 0.0
