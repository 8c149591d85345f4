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

"""The generic rank of a chain's task Jacobian and the axes it can track exactly."""

import pytest
from ros_ik.control.arm import ControlledArm
from ros_ik.kinematics.bundled_arms import load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.task_rank import exact_tracking_axes, generic_rank
from ros_ik.kinematics.task_space import FULL_POSE_ROWS, POSITION_ROWS


@pytest.mark.parametrize('arm_name, full_pose_rank, position_rank', [
    ('ur5', 6, 3), ('panda', 6, 3), ('so101', 5, 3), ('planar_2link', 2, 2)])
def test_generic_rank_of_the_bundled_arms(arm_name, full_pose_rank, position_rank):
    """A 6- or 7-joint arm moves its tip in all 6 directions, a 5-joint arm in 5."""
    kinematics = ChainKinematics(load_bundled_chain(arm_name))
    assert generic_rank(kinematics, FULL_POSE_ROWS) == full_pose_rank
    assert generic_rank(kinematics, POSITION_ROWS) == position_rank


@pytest.mark.parametrize('arm_name, axes, note', [
    ('ur5', 'x y z rx ry rz', ''),
    ('so101', 'x y z', ''),
    ('so101', 'x y z rx ry rz', 'task_axes:="x y z"'),
    ('planar_2link', 'x y z', 'task_axes:="x y"'),
    ('planar_2link', 'x y', '')])
def test_the_start_up_note_names_axes_the_chain_can_track(arm_name, axes, note):
    """Only a chain short of task directions gets a note, suggesting axes it can track."""
    arm = ControlledArm.from_chain(load_bundled_chain(arm_name), axes)
    if note:
        assert note in arm.reachability_note()
        assert f'moves the tip in only {arm.task_rank} of' in arm.reachability_note()
    else:
        assert arm.reachability_note() == ''
    assert exact_tracking_axes(arm.kinematics, arm.task_rows) == tuple(
        row for row in POSITION_ROWS if not (arm_name == 'planar_2link' and row == 2))
