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

"""Telling a strict-arm fault made by a stall of the node from one the node made."""

from ros_ik_testing.stall_faults import faults_follow_stalls, log_times, stall_fault_reason

NODE_LOG = ('[INFO] [100.000000000] [ros_ik]: executor: rclpy.experimental.EventsExecutor\n'
            '[WARN] [104.773827249] [ros_ik]: the control loop stalled for 0.113 s; '
            'continuing from what the arm executed meanwhile (no fast-forward)\n')


def arm_log(*fault_times: float) -> str:
    """Return a sim_arm log with a fault at each time (s)."""
    return ''.join(f'[ERROR] [{time:.9f}] [sim_arm]: fault {index + 1}: command needs '
                   'acceleration 20.94 on wrist_3_joint (limit 5); stopping\n'
                   for index, time in enumerate(fault_times))


def test_log_times_read_the_lines_holding_the_text():
    """Check the times of the matching lines only, from rclpy's console format."""
    assert log_times(NODE_LOG, 'stalled for') == [104.773827249]
    assert log_times(NODE_LOG, 'no such text') == []


def test_faults_right_after_a_reported_stall_are_the_stall_s_and_no_others():
    """Check a fault 2 ms after the stall is attributed; late or lone faults are not."""
    assert faults_follow_stalls(NODE_LOG, arm_log(104.776))
    assert not faults_follow_stalls(NODE_LOG, arm_log(104.776, 107.0))  # a second, later
    assert not faults_follow_stalls(NODE_LOG, arm_log(104.5))  # before the stall
    assert not faults_follow_stalls(NODE_LOG, arm_log())  # no fault: nothing to skip
    assert not faults_follow_stalls('', arm_log(104.776))  # no stall reported


def test_the_reason_names_the_stall_and_quotes_the_arm():
    """Check a reason only for an attributed fault, with the arm's fault line in it."""
    assert 'fault 1: command needs acceleration' in stall_fault_reason(NODE_LOG,
                                                                       arm_log(104.776))
    assert stall_fault_reason(NODE_LOG, arm_log(107.0)) is None
