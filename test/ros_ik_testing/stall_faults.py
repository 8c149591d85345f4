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
Whether the strict arm's faults came from stalls of the node's process (a busy machine).

When the node's process does not run for longer than its stall gap mid-motion, an arm
streamed positions (JointState, Float64MultiArray) holds the last command and stops dead;
the strict ``sim_arm`` faults on the next command (the acceleration over the gap). No
command can bridge a stall of the commanding process itself (JointTrajectory horizons do).
A closed-loop test on a loaded machine tells such a fault from one the node made by the
log times: the node logs ``the control loop stalled for ...`` on the first cycle after a
stall, and the arm logs ``fault N: ...`` on the command of that cycle, milliseconds later.
"""

import re
from typing import List, Optional

# A fault of the strict arm this soon (s) after the node reported a stall came from it.
STALL_FAULT_WINDOW = 0.1
STALL_TEXT = 'the control loop stalled for'
FAULT_TEXT = ': fault '
# rclpy's console format: "[LEVEL] [seconds.nanoseconds] [logger]: message".
LOG_LINE = re.compile(r'^\[\w+\] \[(\d+\.\d+)\] \[[^\]]*\](.*)$', re.MULTILINE)


def log_times(output: str, text: str) -> List[float]:
    """Return the times (s, the log's clock) of the log lines in ``output`` holding ``text``."""
    return [float(match.group(1)) for match in LOG_LINE.finditer(output)
            if text in match.group(2)]


def faults_follow_stalls(node_output: str, arm_output: str,
                         window: float = STALL_FAULT_WINDOW) -> bool:
    """
    Return whether the arm faulted, each time within ``window`` s after a reported stall.

    ``node_output`` and ``arm_output``: the two processes' logs (one clock, one machine).
    """
    stalls = log_times(node_output, STALL_TEXT)
    faults = log_times(arm_output, FAULT_TEXT)
    return bool(faults) and all(any(0.0 <= fault - stall <= window for stall in stalls)
                                for fault in faults)


def stall_fault_reason(node_output: str, arm_output: str) -> Optional[str]:
    """Return why a run cannot be judged (each fault followed a stall, the arm's log), or None."""
    if not faults_follow_stalls(node_output, arm_output):
        return None
    return ('the node was stalled mid-motion (a busy machine) and the strict arm faulted on '
            'the held command: ' + arm_output[-500:])
