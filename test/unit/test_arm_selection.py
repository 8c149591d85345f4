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

"""Which arm: bundled names and user URDFs, for the tools and the launch files."""

import os

import pytest
from ros_ik.tools.arm_selection import choose_arm

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
URDF_FOLDER = os.path.join(REPOSITORY, 'urdf')


def test_bundled_arm_defaults():
    """Check a bundled arm resolves to its URDF, links, task axes and home pose."""
    choice = choose_arm('planar_2link', urdf_folder=URDF_FOLDER)
    assert choice.urdf_path == os.path.join(URDF_FOLDER, 'planar_2link.urdf')
    assert (choice.base_link, choice.tip_link, choice.task_axes) == ('base_link', 'tool0', 'x y')
    assert '<robot name="planar_2link">' in choice.urdf_text()
    assert choice.home == pytest.approx((0.0, 1.5707963267948966))
    assert choose_arm('panda', '', '', 'panda_link8').tip_link == 'panda_link8'


def test_user_urdf_controls_all_axes_from_mid_range():
    """Check a user URDF needs its links, controls six axes and has no home pose."""
    path = os.path.join(URDF_FOLDER, 'ur5.urdf')
    choice = choose_arm('panda', path, 'base_link', 'wrist_3_link')
    assert (choice.label, choice.task_axes, choice.home) == ('ur5', 'x y z rx ry rz', ())


@pytest.mark.parametrize('arguments, message', [
    (('kuka', '', '', ''), 'unknown arm "kuka"; bundled arms: ur5, panda, planar_2link'),
    (('ur5', '/tmp/arm.urdf', '', ''), 'urdf_file needs base_link and tip_link'),
    (('ur5', '/nonexistent.urdf', 'a', 'b'), 'URDF file "/nonexistent.urdf" does not exist'),
])
def test_bad_arguments_name_the_problem(arguments, message):
    """Check the errors of unknown arms, missing links and missing files."""
    with pytest.raises(ValueError, match=message):
        choose_arm(*arguments)
