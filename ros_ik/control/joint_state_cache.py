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
from typing import List, Optional, Sequence, Tuple

import numpy as np


@dataclass(frozen=True)
class JointStateUpdate:
    """What one message did: an error (message rejected), joints it lacked or added."""

    error: str = ''
    problem: str = ''
    extra_joints: Tuple[str, ...] = ()
    absent_joints: Tuple[str, ...] = ()


class JointStateCache:
    """Latest position (rad or m) and receive time (s) of every chain joint."""

    def __init__(self, joint_names: Sequence[str]) -> None:
        """Start with no joint known."""
        self.joint_names = tuple(joint_names)
        self._index = {name: index for index, name in enumerate(self.joint_names)}
        self._positions = np.full(len(self.joint_names), np.nan)
        self._received = np.full(len(self.joint_names), -np.inf)

    def update(self, names: Sequence[str], positions: Sequence[float],
               receive_time: float) -> JointStateUpdate:
        """Merge one message's positions for the chain joints it names."""
        if len(names) != len(positions):
            return JointStateUpdate(error=f'joint_states has {len(names)} names but '
                                          f'{len(positions)} positions; message ignored',
                                    problem='lengths')
        values = np.asarray(positions, dtype=float)
        chain_entries = [(self._index[name], value) for name, value in zip(names, values)
                         if name in self._index]
        bad = [self.joint_names[index] for index, value in chain_entries
               if not np.isfinite(value)]
        if bad:
            return JointStateUpdate(error='joint_states has non-finite positions for '
                                          f'{", ".join(bad)}; message ignored',
                                    problem='non_finite')
        for index, value in chain_entries:
            self._positions[index] = value
            self._received[index] = receive_time
        extra = tuple(name for name in names if name not in self._index)
        present = set(names)
        absent = tuple(name for name in self.joint_names if name not in present)
        return JointStateUpdate(extra_joints=extra, absent_joints=absent)

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
