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
The command types the IK node can publish and the topic each one uses (one table).

Topic names are relative to the node's private namespace (``~/<topic>``) on the IK node
and plain relative names on a receiver such as ``sim_arm``; launch files remap them to a
controller's topic. Joints are always in chain order (base to tip).
"""

from typing import Dict

# command_type parameter value -> topic (message: see the node's messages module).
COMMAND_TOPICS: Dict[str, str] = {
    'joint_state': 'joint_commands',
    'joint_trajectory': 'joint_trajectory',
    'float64_multi_array': 'commands',
}
COMMAND_TYPES = tuple(COMMAND_TOPICS)


def private_command_topic(command_type: str) -> str:
    """Return the IK node's output topic for ``command_type``, e.g. ``~/joint_commands``."""
    return '~/' + COMMAND_TOPICS[command_type]
