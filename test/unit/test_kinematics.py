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

"""FK and Jacobian: closed forms, finite differences, Pinocchio, batching."""

import numpy as np
import pinocchio
import pytest
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path, load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.manipulability import (manipulability, task_jacobian,
                                              translational_manipulability)
from ros_ik.kinematics.transforms import rotation_vector
from ros_ik.kinematics.urdf_loader import load_urdf_string

L1, L2 = 2.0, 1.5
PLANAR_ROWS = (0, 1)
RANDOM_CONFIGURATIONS = 20


def planar_kinematics(l1: float = L1, l2: float = L2) -> ChainKinematics:
    """Return a planar 2-link arm with link lengths ``l1``, ``l2`` (m)."""
    limit = '<limit lower="-4" upper="4" velocity="2" effort="1"/><axis xyz="0 0 1"/>'
    text = ('<robot name="planar"><link name="base"/><link name="l1"/><link name="l2"/>'
            '<link name="tip"/>'
            f'<joint name="shoulder" type="revolute"><parent link="base"/><child link="l1"/>'
            f'{limit}</joint>'
            f'<joint name="elbow" type="revolute"><parent link="l1"/><child link="l2"/>'
            f'<origin xyz="{l1} 0 0"/>{limit}</joint>'
            f'<joint name="tool" type="fixed"><parent link="l2"/><child link="tip"/>'
            f'<origin xyz="{l2} 0 0"/></joint></robot>')
    return ChainKinematics(load_urdf_string(text, 'base', 'tip'))


def random_configurations(kinematics: ChainKinematics, count: int, seed: int) -> np.ndarray:
    """Return ``count`` configurations within the limits (count, n)."""
    chain = kinematics.chain
    rng = np.random.default_rng(seed)
    return rng.uniform(np.maximum(chain.lower, -np.pi), np.minimum(chain.upper, np.pi),
                       size=(count, chain.n_joints))


@pytest.mark.parametrize('theta1, theta2', [(0.0, 0.0), (0.3, np.pi / 2), (-1.2, 2.5),
                                            (2.0, -0.7)])
def test_planar_two_link_closed_forms(theta1, theta2):
    """Check FK, the 2x2 Jacobian and det J = L1 L2 sin(theta2) against closed forms."""
    kinematics = planar_kinematics()
    T_base_tip, J = kinematics.tip_pose_and_jacobian(np.array([theta1, theta2]))
    s1, c1 = np.sin(theta1), np.cos(theta1)
    s12, c12 = np.sin(theta1 + theta2), np.cos(theta1 + theta2)
    np.testing.assert_allclose(T_base_tip[:3, 3], [L1 * c1 + L2 * c12, L1 * s1 + L2 * s12, 0.0],
                               atol=1e-14)
    J_xy = task_jacobian(J, PLANAR_ROWS)
    np.testing.assert_allclose(J_xy, [[-L1 * s1 - L2 * s12, -L2 * s12],
                                      [L1 * c1 + L2 * c12, L2 * c12]], atol=1e-14)
    assert np.linalg.det(J_xy) == pytest.approx(L1 * L2 * np.sin(theta2), abs=1e-14)
    assert manipulability(J_xy).yoshikawa == pytest.approx(L1 * L2 * abs(np.sin(theta2)),
                                                           abs=1e-14)


def test_planar_two_link_manipulability_is_three_at_ninety_degrees():
    """Check the worked example: L1 = 2, L2 = 1.5, theta2 = 90 deg gives w = 3."""
    J = planar_kinematics().jacobian(np.array([0.7, np.pi / 2]))
    assert manipulability(task_jacobian(J, PLANAR_ROWS)).yoshikawa == pytest.approx(3.0,
                                                                                    abs=1e-14)


@pytest.mark.parametrize('l1, l2', [(2.0, 1.5), (1.0, 1.0), (0.3, 0.7), (5.0, 0.1)])
@pytest.mark.parametrize('theta2', [0.0, np.pi])
def test_planar_manipulability_vanishes_stretched_and_folded(l1, l2, theta2):
    """Check w = 0, sigma_min = 0 and an infinite condition number at theta2 = 0 and pi."""
    J_xy = task_jacobian(planar_kinematics(l1, l2).jacobian(np.array([0.4, theta2])),
                         PLANAR_ROWS)
    measures = manipulability(J_xy)
    assert measures.yoshikawa == pytest.approx(0.0, abs=1e-12)
    assert measures.sigma_min == pytest.approx(0.0, abs=1e-12)
    assert measures.condition_number > 1e12


def finite_difference_jacobian(kinematics: ChainKinematics, q: np.ndarray,
                               step: float = 1e-6) -> np.ndarray:
    """Return the central-difference Jacobian: positions, and log(R+ R-^T) / 2h."""
    columns = []
    for j in range(len(q)):
        dq = np.zeros_like(q)
        dq[j] = step
        T_plus, T_minus = kinematics.tip_pose(q + dq), kinematics.tip_pose(q - dq)
        linear = (T_plus[:3, 3] - T_minus[:3, 3]) / (2.0 * step)
        angular = rotation_vector(T_plus[:3, :3] @ T_minus[:3, :3].T) / (2.0 * step)
        columns.append(np.concatenate([linear, angular]))
    return np.array(columns).T


def test_jacobian_matches_finite_differences(bundled_kinematics):
    """Check J against central differences of FK (both parts) to 1e-6."""
    for q in random_configurations(bundled_kinematics, RANDOM_CONFIGURATIONS, seed=7):
        np.testing.assert_allclose(bundled_kinematics.jacobian(q),
                                   finite_difference_jacobian(bundled_kinematics, q),
                                   atol=1e-6)


def test_prismatic_and_continuous_jacobian_matches_finite_differences():
    """Check J for a chain mixing continuous, prismatic and tilted revolute joints."""
    limit = '<limit lower="-1" upper="1" velocity="1" effort="1"/>'
    text = ('<robot name="mixed">' + ''.join(f'<link name="l{i}"/>' for i in range(5))
            + '<joint name="spin" type="continuous"><parent link="l0"/><child link="l1"/>'
            '<origin xyz="0.1 0 0.2" rpy="0.3 0 0"/><axis xyz="0 0 1"/></joint>'
            '<joint name="slide" type="prismatic"><parent link="l1"/><child link="l2"/>'
            f'<origin xyz="0 0.3 0" rpy="0 0.4 0"/><axis xyz="1 1 0"/>{limit}</joint>'
            '<joint name="tilt" type="revolute"><parent link="l2"/><child link="l3"/>'
            f'<origin xyz="0 0 0.4" rpy="0.1 0.2 0.3"/><axis xyz="0.2 -1 0.5"/>{limit}</joint>'
            '<joint name="tool" type="fixed"><parent link="l3"/><child link="l4"/>'
            '<origin xyz="0.25 0 0.05"/></joint></robot>')
    kinematics = ChainKinematics(load_urdf_string(text, 'l0', 'l4'))
    for q in np.random.default_rng(3).uniform(-1.0, 1.0, size=(10, 3)):
        np.testing.assert_allclose(kinematics.jacobian(q),
                                   finite_difference_jacobian(kinematics, q), atol=1e-6)


@pytest.mark.parametrize('arm_name', sorted(BUNDLED_ARMS))
def test_fk_and_jacobian_match_pinocchio(arm_name):
    """Check the tip pose and the base-frame Jacobian against Pinocchio to 1e-9."""
    arm = BUNDLED_ARMS[arm_name]
    kinematics = ChainKinematics(load_bundled_chain(arm_name))
    model = pinocchio.buildModelFromUrdf(bundled_urdf_path(arm_name))
    data = model.createData()
    frame_id = model.getFrameId(arm.tip_link)
    assert model.nq == kinematics.n_joints
    for q in random_configurations(kinematics, RANDOM_CONFIGURATIONS, seed=11):
        J_reference = pinocchio.computeFrameJacobian(model, data, q, frame_id,
                                                     pinocchio.LOCAL_WORLD_ALIGNED)
        pinocchio.framesForwardKinematics(model, data, q)
        T_base_tip, J = kinematics.tip_pose_and_jacobian(q)
        np.testing.assert_allclose(T_base_tip, data.oMf[frame_id].homogeneous, atol=1e-9)
        np.testing.assert_allclose(J, J_reference, atol=1e-9)


def test_batched_calls_equal_single_calls(bundled_kinematics):
    """Check that a (b, n) batch gives the same frames and Jacobians as b single calls."""
    Q = random_configurations(bundled_kinematics, 5, seed=5)
    T_batch, J_batch = bundled_kinematics.tip_pose_and_jacobian(Q)
    links_batch = bundled_kinematics.link_poses(Q)
    for index, q in enumerate(Q):
        T_single, J_single = bundled_kinematics.tip_pose_and_jacobian(q)
        np.testing.assert_allclose(T_batch[index], T_single, atol=1e-15)
        np.testing.assert_allclose(J_batch[index], J_single, atol=1e-15)
        np.testing.assert_allclose(links_batch[index], bundled_kinematics.link_poses(q),
                                   atol=1e-15)


def test_link_poses_match_pinocchio_frames():
    """Check every moving joint's child-link frame of the Panda-class arm."""
    arm = BUNDLED_ARMS['panda']
    kinematics = ChainKinematics(load_bundled_chain('panda'))
    model = pinocchio.buildModelFromUrdf(bundled_urdf_path('panda'))
    data = model.createData()
    q = random_configurations(kinematics, 1, seed=2)[0]
    pinocchio.framesForwardKinematics(model, data, q)
    for T_base_link, link in zip(kinematics.link_poses(q), kinematics.chain.link_names):
        np.testing.assert_allclose(T_base_link, data.oMf[model.getFrameId(link)].homogeneous,
                                   atol=1e-12)
    assert kinematics.chain.link_names[0] == arm.base_link


def test_tool_offset_moves_tip():
    """Check that a tool offset composes on the tip: T_base_tool = T_base_tip T_tip_tool."""
    chain = load_bundled_chain('ur5')
    T_tip_tool = np.eye(4)
    T_tip_tool[:3, 3] = [0.0, 0.0, 0.15]
    q = np.array([0.1, -1.0, 1.2, -0.5, 0.3, 0.7])
    np.testing.assert_allclose(ChainKinematics(chain.with_tool_offset(T_tip_tool)).tip_pose(q),
                               ChainKinematics(chain).tip_pose(q) @ T_tip_tool, atol=1e-15)


def test_translational_measures_use_position_rows(manipulator_kinematics):
    """Check the 3xn measures equal those of J's first three rows and relate as w = prod."""
    q = random_configurations(manipulator_kinematics, 1, seed=4)[0]
    J = manipulator_kinematics.jacobian(q)
    measures = translational_manipulability(J)
    singular_values = np.linalg.svd(J[:3], compute_uv=False)
    np.testing.assert_allclose(measures.singular_values, singular_values, atol=1e-14)
    assert measures.yoshikawa == pytest.approx(np.sqrt(np.linalg.det(J[:3] @ J[:3].T)),
                                               rel=1e-9)
    assert measures.condition_number == pytest.approx(singular_values[0] / singular_values[-1])


def test_manipulability_of_a_five_joint_arm_on_a_full_pose():
    """SO-101 class, J (6 x 5): w = sqrt(det(J^T J)) > 0 at home, sigma_min its 5th value."""
    chain = load_bundled_chain('so101')
    kinematics = ChainKinematics(chain)
    J = kinematics.jacobian(np.array(BUNDLED_ARMS['so101'].home))
    measures = manipulability(J)
    assert np.linalg.det(J @ J.T) == pytest.approx(0.0, abs=1e-15)  # Yoshikawa's: always 0
    assert measures.yoshikawa == pytest.approx(np.sqrt(np.linalg.det(J.T @ J)), rel=1e-9)
    assert measures.yoshikawa > 1e-6
    assert measures.sigma_min == pytest.approx(np.linalg.svd(J, compute_uv=False)[4],
                                               rel=1e-12)
    J[:, 4] = J[:, 3]  # two joints moving the tool alike: a lost direction
    assert manipulability(J).yoshikawa == pytest.approx(0.0, abs=1e-12)
