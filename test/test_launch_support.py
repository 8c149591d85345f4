"""Launch argument resolution (runs without launch installed)."""

import os

import pytest
from ros_ik.launch_support import resolve_arm

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_bundled_arm_defaults():
    """Check a bundled arm resolves to its URDF, links, task axes and home pose."""
    setup = resolve_arm(REPOSITORY, 'planar_2link', '', '', '')
    assert setup.urdf_path.endswith(os.path.join('urdf', 'planar_2link.urdf'))
    assert (setup.base_link, setup.tip_link, setup.task_axes) == ('base_link', 'tool0', 'x y')
    assert '<robot name="planar_2link">' in setup.urdf_text
    assert resolve_arm(REPOSITORY, 'panda', '', '', 'panda_link8').tip_link == 'panda_link8'


@pytest.mark.parametrize('arguments, message', [
    (('kuka', '', '', ''), 'unknown arm "kuka"; bundled arms: ur5, panda, planar_2link'),
    (('ur5', '/tmp/arm.urdf', '', ''), 'urdf_file needs base_link and tip_link'),
    (('ur5', '/nonexistent.urdf', 'a', 'b'), 'URDF file "/nonexistent.urdf" does not exist'),
])
def test_bad_arguments_name_the_problem(arguments, message):
    """Check the errors of unknown arms, missing links and missing files."""
    with pytest.raises(ValueError, match=message):
        resolve_arm(REPOSITORY, *arguments)
