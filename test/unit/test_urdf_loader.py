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

"""URDF -> chain: folding of fixed joints, joint types, limits and every error message."""

import math
import os

import numpy as np
import pytest
from ros_ik.kinematics.chain import CONTINUOUS, PRISMATIC, REVOLUTE
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_errors import (MalformedUrdfError, MimicJointError, MissingLimitError,
                                           NoPathError, UnknownLinkError, UnsupportedJointError,
                                           UrdfError, ZeroAxisError)
from ros_ik.kinematics.urdf_loader import load_urdf_file, load_urdf_string

LIMIT = '<limit lower="-1.0" upper="2.0" velocity="1.5" effort="10"/>'


def robot(*joints: str) -> str:
    """Return URDF text with links a..f and the given joint elements."""
    links = ''.join(f'<link name="{name}"/>' for name in 'abcdef')
    return f'<robot name="test_robot">{links}{"".join(joints)}</robot>'


def joint(name: str, joint_type: str, parent: str, child: str, extra: str = '') -> str:
    """Return one URDF joint element."""
    return (f'<joint name="{name}" type="{joint_type}"><parent link="{parent}"/>'
            f'<child link="{child}"/>{extra}</joint>')


def test_fixed_joints_fold_and_types_and_limits_are_read():
    """Check joint types, limits, axis normalisation and fixed-joint folding."""
    text = robot(
        joint('j1', 'revolute', 'a', 'b', '<origin xyz="0 0 1"/><axis xyz="0 0 2"/>' + LIMIT),
        joint('fixed1', 'fixed', 'b', 'c', '<origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/>'),
        joint('j2', 'continuous', 'c', 'd', '<axis xyz="0 1 0"/>'),
        joint('j3', 'prismatic', 'd', 'e', '<origin xyz="0 0 0.5"/>' + LIMIT),
        joint('tool', 'fixed', 'e', 'f', '<origin xyz="0 0 0.25"/>'))
    chain = load_urdf_string(text, 'a', 'f')
    assert chain.joint_names == ('j1', 'j2', 'j3')
    assert [j.joint_type for j in chain.joints] == [REVOLUTE, CONTINUOUS, PRISMATIC]
    np.testing.assert_allclose(chain.joints[0].axis, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(chain.lower, [-1.0, -np.inf, -1.0])
    np.testing.assert_allclose(chain.upper, [2.0, np.inf, 2.0])
    np.testing.assert_allclose(chain.velocity_limits, [1.5, np.inf, 1.5])
    # j2's frame: 1 m along x after j1, then rotated 90 deg about z by the fixed joint.
    np.testing.assert_allclose(chain.joints[1].T_prev_joint[:3, 3], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(chain.joints[1].T_prev_joint[:3, 0], [0.0, 1.0, 0.0],
                               atol=1e-12)
    np.testing.assert_allclose(chain.T_last_tip[:3, 3], [0.0, 0.0, 0.25])
    T_base_tip = ChainKinematics(chain).tip_pose(np.zeros(3))
    np.testing.assert_allclose(T_base_tip[:3, 3], [1.0, 0.0, 1.75], atol=1e-12)


def test_branches_off_the_path_are_ignored_and_default_axis_is_x():
    """Check that only the tip-to-base path is used and the URDF default axis applies."""
    text = robot(joint('j1', 'revolute', 'a', 'b', LIMIT),
                 joint('side', 'floating', 'a', 'c'),
                 joint('j2', 'revolute', 'b', 'd', LIMIT))
    chain = load_urdf_string(text, 'a', 'd')
    assert chain.joint_names == ('j1', 'j2')
    np.testing.assert_allclose(chain.joints[0].axis, [1.0, 0.0, 0.0])


def test_sub_chain_between_inner_links():
    """Check a chain between two inner links of a bundled arm."""
    text = robot(joint('j1', 'revolute', 'a', 'b', LIMIT),
                 joint('j2', 'revolute', 'b', 'c', LIMIT),
                 joint('j3', 'revolute', 'c', 'd', LIMIT))
    assert load_urdf_string(text, 'b', 'd').joint_names == ('j2', 'j3')


@pytest.mark.parametrize('text, base, tip, error_type, message', [
    (robot(joint('j1', 'revolute', 'a', 'b', LIMIT)), 'a', 'nowhere', UnknownLinkError,
     'tip link "nowhere" is not in the URDF of robot "test_robot" (links: a, b, c, d, e, f)'),
    (robot(joint('j1', 'revolute', 'a', 'b', LIMIT)), 'base', 'b', UnknownLinkError,
     'base link "base" is not in the URDF of robot "test_robot" (links: a, b, c, d, e, f)'),
    (robot(joint('j1', 'revolute', 'a', 'b', LIMIT), joint('j2', 'revolute', 'a', 'c', LIMIT)),
     'b', 'c', NoPathError,
     'no path from base link "b" to tip link "c": walking up from the tip ended at root '
     'link "a"'),
    (robot(joint('free', 'floating', 'a', 'b')), 'a', 'b', UnsupportedJointError,
     'joint "free" of type "floating" lies on the path from "a" to "b"; only revolute, '
     'continuous, prismatic and fixed joints are supported'),
    (robot(joint('slide', 'planar', 'a', 'b', '<axis xyz="0 0 1"/>')), 'a', 'b',
     UnsupportedJointError,
     'joint "slide" of type "planar" lies on the path from "a" to "b"; only revolute, '
     'continuous, prismatic and fixed joints are supported'),
    (robot(joint('elbow', 'revolute', 'a', 'b', '<axis xyz="0 0 0"/>' + LIMIT)), 'a', 'b',
     ZeroAxisError, 'joint "elbow" of type "revolute" has a zero-length axis'),
    (robot(joint('elbow', 'revolute', 'a', 'b')), 'a', 'b', MissingLimitError,
     '"limit" must be specified for joint "elbow" of type "revolute"'),
    (robot(joint('slide', 'prismatic', 'a', 'b')), 'a', 'b', MissingLimitError,
     '"limit" must be specified for joint "slide" of type "prismatic"'),
    (robot(joint('elbow', 'revolute', 'a', 'b',
                 '<limit lower="1" upper="-1" velocity="1" effort="1"/>')), 'a', 'b',
     MissingLimitError, 'joint "elbow" of type "revolute" has lower limit 1.0 above upper '
     'limit -1.0'),
    (robot(joint('elbow', 'revolute', 'a', 'b',
                 '<limit lower="-1" upper="1" velocity="0" effort="1"/>')), 'a', 'b',
     MissingLimitError, '"velocity" limit of joint "elbow" of type "revolute" must be '
     'positive, got 0.0'),
    (robot(joint('j1', 'revolute', 'a', 'b', LIMIT),
           joint('twin', 'revolute', 'b', 'c', LIMIT + '<mimic joint="j1" multiplier="1"/>')),
     'a', 'c', MimicJointError,
     'joint "twin" of type "revolute" mimics joint "j1"; mimic joints are not supported'),
    ('<robot name="broken"><link name="a"/', 'a', 'b', MalformedUrdfError,
     'malformed URDF: unclosed token: line 1, column 21'),
    ('', 'a', 'b', MalformedUrdfError, 'malformed URDF: the robot description is empty'),
    (robot(joint('j1', 'banana', 'a', 'b')), 'a', 'b', MalformedUrdfError,
     "malformed URDF: ParseError in /robot[@name='test_robot']/joint[@name='j1']: "
     'Invalid joint type: banana'),
])
def test_errors_name_the_problem(text, base, tip, error_type, message):
    """Check each URDF error's exception type and exact message."""
    with pytest.raises(error_type) as raised:
        load_urdf_string(text, base, tip)
    assert str(raised.value) == message
    assert isinstance(raised.value, UrdfError)


def test_missing_file_is_reported(tmp_path):
    """Check that a missing URDF file gives a MalformedUrdfError naming the path."""
    path = tmp_path / 'missing.urdf'
    with pytest.raises(MalformedUrdfError, match=f'URDF file "{path}" does not exist'):
        load_urdf_file(str(path), 'a', 'b')


XACRO_ARM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'data',
                         'planar_arm.urdf.xacro')


@pytest.mark.parametrize('arguments, upper_length', [('', 2.0), ('upper_length:=1.2', 1.2)])
def test_a_xacro_file_is_expanded_with_its_arguments(arguments, upper_length):
    """Check det J = L1 L2 sin(theta2) of a xacro arm, L1 set by a xacro argument."""
    chain = load_urdf_file(XACRO_ARM, 'base_link', 'tool0', arguments)
    assert chain.joint_names == ('shoulder', 'elbow')
    J = ChainKinematics(chain).jacobian(np.array([0.3, math.pi / 2]))[:2]
    assert np.linalg.det(J) == pytest.approx(upper_length * 1.5, abs=1e-12)


def test_xacro_prefix_argument_renames_the_links():
    """Check a prefix argument (as vendors use for several arms) reaches link names."""
    chain = load_urdf_file(XACRO_ARM, 'left_base_link', 'left_tool0', 'prefix:=left_')
    assert chain.joint_names == ('left_shoulder', 'left_elbow')


def test_bad_xacro_arguments_and_files_are_named(tmp_path):
    """Check a malformed argument and a xacro error (undefined property) give a UrdfError."""
    with pytest.raises(UrdfError, match='xacro argument "upper_length" is not name:=value'):
        load_urdf_file(XACRO_ARM, 'base_link', 'tool0', 'upper_length')
    broken = tmp_path / 'broken.urdf.xacro'
    broken.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="b">'
                      '<link name="${missing}"/></robot>')
    with pytest.raises(UrdfError, match='xacro could not expand .*broken.urdf.xacro'):
        load_urdf_file(str(broken), 'a', 'b')
