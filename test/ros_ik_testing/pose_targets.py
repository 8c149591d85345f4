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

"""A closed loop's test side: pose targets out, the arm's error to them from joint states."""

from geometry_msgs.msg import PoseStamped
import numpy as np
from ros_ik.kinematics.transforms import pose_error
from ros_ik.node.messages import pose_message


class PoseTargets:
    """
    Send pose targets and measure the arm against them (a mixin).

    Needs ``targets`` (a PoseStamped publisher), ``base_link``, ``kinematics`` (the chain's
    :class:`ros_ik.kinematics.chain_kinematics.ChainKinematics`) and ``states`` (the
    JointState messages heard, newest last).
    """

    def send(self, T_base_target: np.ndarray) -> None:
        """Publish a pose target in the base frame."""
        message = PoseStamped(pose=pose_message(T_base_target))
        message.header.frame_id = self.base_link
        self.targets.publish(message)

    def error(self, T_base_target: np.ndarray) -> float:
        """Return the larger of the position (m) and rotation (rad) errors of the arm."""
        e_p, e_o = pose_error(T_base_target,
                              self.kinematics.tip_pose(np.array(self.states[-1].position)))
        return max(np.linalg.norm(e_p), np.linalg.norm(e_o))
