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

"""Messages the closed-loop tests send and read: pose targets, the IK node's status."""

from typing import Dict, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
import numpy as np
from ros_ik.node.messages import pose_message

IK_STATUS_NAME = 'ros_ik: ik'


def ik_status(message: DiagnosticArray,
              previous: Optional[DiagnosticStatus]) -> Optional[DiagnosticStatus]:
    """Return the IK node's status in a /diagnostics message (``previous`` if not there)."""
    return next((status for status in message.status if status.name == IK_STATUS_NAME),
                previous)


def status_values(status: DiagnosticStatus) -> Dict[str, str]:
    """Return a status's key/value pairs as a dict."""
    return {pair.key: pair.value for pair in status.values}


def pose_target(T_frame_target: np.ndarray, frame_id: str, stamp=None) -> PoseStamped:
    """Return a PoseStamped target in ``frame_id`` (``stamp``: builtin Time; None: zero)."""
    message = PoseStamped(pose=pose_message(T_frame_target))
    message.header.frame_id = frame_id
    if stamp is not None:
        message.header.stamp = stamp
    return message
