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
What a physical arm reports, accumulated between reports: tracking, saturation, contacts.

Per joint, the tracking error is ``e = q_ref - q`` (rad or m) and the saturation
``|tau| / tau_max``; at the tool, ``|p(q_ref) - p(q)|`` (m, the tool positions the
reference and the arm give). A contact event is a pair of links (or a link and a scene
object) starting to touch; a touch that lasts is one event. Peaks are kept for the current
window (reset by :meth:`DriveMonitor.take_window`) and for the whole run.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

import numpy as np
from ros_ik.physics.arm_simulation import Contact

SATURATED = 0.999  # |tau| / tau_max at or above this is a saturated drive


@dataclass
class Peaks:
    """Largest values seen: joint error (n,), tool error (m), saturation (n,), contacts."""

    joint_error: np.ndarray
    tool_error: float = 0.0
    saturation: np.ndarray = None
    contact_force: Dict[Tuple[str, str], float] = field(default_factory=dict)

    def merge(self, joint_error: np.ndarray, tool_error: float, saturation: np.ndarray,
              contacts: Sequence[Contact]) -> None:
        """Raise the peaks to the values of one sample."""
        np.maximum(self.joint_error, np.abs(joint_error), out=self.joint_error)
        self.tool_error = max(self.tool_error, tool_error)
        np.maximum(self.saturation, saturation, out=self.saturation)
        for contact in contacts:
            key = (contact.first, contact.second)
            self.contact_force[key] = max(self.contact_force.get(key, 0.0), contact.force)


class DriveMonitor:
    """Window and run peaks of tracking error, saturation and contact force; contact events."""

    def __init__(self, n_joints: int) -> None:
        """Start with no samples for an arm of ``n_joints`` joints."""
        self._n = n_joints
        self.window = self._empty()
        self.run = self._empty()
        self.contact_events = 0
        self._touching: set = set()

    def _empty(self) -> Peaks:
        return Peaks(np.zeros(self._n), 0.0, np.zeros(self._n))

    def sample(self, joint_error: np.ndarray, tool_error: float, saturation: np.ndarray,
               contacts: Sequence[Contact]) -> List[Contact]:
        """Take one sample; return the contacts that started since the last one."""
        for peaks in (self.window, self.run):
            peaks.merge(joint_error, tool_error, saturation, contacts)
        touching = {(contact.first, contact.second) for contact in contacts}
        started = [contact for contact in contacts
                   if (contact.first, contact.second) not in self._touching]
        self._touching = touching
        self.contact_events += len({(c.first, c.second) for c in started})
        return started

    def take_window(self) -> Peaks:
        """Return the window's peaks and start a new window."""
        window, self.window = self.window, self._empty()
        return window

    def saturated_joints(self, peaks: Peaks) -> np.ndarray:
        """Return the indices of the joints whose drive saturated in ``peaks``."""
        return np.flatnonzero(peaks.saturation >= SATURATED)
