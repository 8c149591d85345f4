"""Unit tests of the node's input handling (targets, joint states, log throttling)."""

from conftest import load_bundled_chain
import numpy as np
import pytest
from ros_ik.joint_state_input import JointStateCache
from ros_ik.kinematics import ChainKinematics
from ros_ik.target_input import check_pose, frame_pose, is_known_frame, known_frames
from ros_ik.throttled_log import KeyedThrottle


@pytest.mark.parametrize('position, quaternion, error', [
    ((np.nan, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), 'target position is not finite: [nan, 0.0, 0.0]'),
    ((0.0, 0.0, 0.0), (0.0, np.inf, 0.0, 1.0),
     'target orientation is not finite: [0.0, inf, 0.0, 1.0]'),
    ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0),
     'target orientation is a zero quaternion; set w = 1 for no rotation'),
])
def test_bad_targets_are_rejected_with_reason(position, quaternion, error):
    """Check NaN, inf and zero quaternions are rejected with their messages."""
    check = check_pose(position, quaternion)
    assert check.T_frame_target is None and check.error == error


def test_unnormalised_quaternion_is_normalised_with_warning():
    """Check a quaternion of norm 2 becomes a proper rotation and is reported."""
    check = check_pose((1.0, 2.0, 3.0), (0.0, 0.0, 2.0 * np.sin(0.5), 2.0 * np.cos(0.5)))
    assert check.warning == 'target quaternion has norm 2; normalised'
    R = check.T_frame_target[:3, :3]
    np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(check.T_frame_target[:3, 3], [1.0, 2.0, 3.0])
    assert check_pose((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0 + 1e-4)).warning == ''


def test_frames_resolve_to_base_links_and_tip():
    """Check the base (also ''), chain links and tip resolve; other frames do not."""
    kinematics = ChainKinematics(load_bundled_chain('ur5'))
    q = np.array([0.1, -1.0, 1.0, -1.2, -1.5, 0.2])
    np.testing.assert_array_equal(frame_pose(kinematics, q, ''), np.eye(4))
    np.testing.assert_array_equal(frame_pose(kinematics, q, 'base_link'), np.eye(4))
    np.testing.assert_allclose(frame_pose(kinematics, q, 'tool0'), kinematics.tip_pose(q))
    np.testing.assert_allclose(frame_pose(kinematics, q, 'forearm_link'),
                               kinematics.link_poses(q)[3])
    assert frame_pose(kinematics, q, 'map') is None
    assert is_known_frame(kinematics, 'wrist_2_link') and is_known_frame(kinematics, '')
    assert not is_known_frame(kinematics, 'map')
    assert known_frames(kinematics) == ('base_link, shoulder_link, upper_arm_link, '
                                        'forearm_link, wrist_1_link, wrist_2_link, '
                                        'wrist_3_link, tool0')


def test_joint_state_cache_merges_by_name_and_rejects_bad_messages():
    """Check merging of partial messages, extra joints, NaN and length mismatches."""
    cache = JointStateCache(('a', 'b', 'c'))
    update = cache.update(['b', 'gripper'], [0.5, 0.01], receive_time=1.0)
    assert update.extra_joints == ('gripper',) and update.absent_joints == ('a', 'c')
    assert cache.positions() is None and cache.missing_joints() == ['a', 'c']
    cache.update(['c', 'a'], [0.3, 0.1], receive_time=2.0)
    np.testing.assert_array_equal(cache.positions(), [0.1, 0.5, 0.3])
    assert cache.age(now=2.5) == pytest.approx(1.5)
    bad = cache.update(['a', 'b'], [np.nan, 1.0], receive_time=3.0)
    assert bad.error == 'joint_states has non-finite positions for a; message ignored'
    assert cache.update(['a'], [1.0, 2.0], 3.0).error == (
        'joint_states has 1 names but 2 positions; message ignored')
    np.testing.assert_array_equal(cache.positions(), [0.1, 0.5, 0.3])


def test_keyed_throttle_keeps_problems_apart():
    """Check each key is logged once per period and keys do not hide each other."""
    logged = []
    now = [0.0]
    throttle = KeyedThrottle(logged.append, 2.0, clock=lambda: now[0])
    assert throttle('nan', 'position is NaN')
    assert not throttle('nan', 'position is NaN again')
    assert throttle('frame', 'unknown frame')
    now[0] = 2.5
    assert throttle('nan', 'position is NaN later')
    assert logged == ['position is NaN', 'unknown frame', 'position is NaN later']
