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

"""Unit tests of the input handling: targets, their frames, joint states, log throttling."""

from geometry_msgs.msg import PoseStamped
from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from rclpy.serialization import serialize_message
from ros_ik.control.joint_state_cache import JointStateCache
from ros_ik.control.targets import check_pose, is_known_frame, known_frames, SMALLEST_NORMAL
from ros_ik.kinematics.bundled_arms import load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.node.serialized_inputs import pose_target_fields
from ros_ik.node.throttled_log import KeyedThrottle


@pytest.mark.parametrize('position, quaternion, error', [
    ((np.nan, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), 'target position is not finite: [nan, 0.0, 0.0]'),
    ((0.0, 0.0, 0.0), (0.0, np.inf, 0.0, 1.0),
     'target orientation is not finite: [0.0, inf, 0.0, 1.0]'),
    ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0),
     'target orientation is a zero quaternion; set w = 1 for no rotation'),
    ((0.4, 0.0, 5e-324), (0.0, 0.0, 0.0, 1.0),
     'target position has subnormal values [0.4, 0.0, 5e-324]: the bits of Python ints '
     'written into float64 fields (rclpy sends them unchecked); write 1.0, not 1'),
    ((0.4, 0.0, 0.5), (0.0, 0.0, 0.0, 5e-324),
     'target orientation has subnormal values [0.0, 0.0, 0.0, 5e-324]: the bits of Python '
     'ints written into float64 fields (rclpy sends them unchecked); write 1.0, not 1'),
])
def test_bad_targets_are_rejected_with_reason(position, quaternion, error):
    """Check NaN, inf and zero quaternions are rejected with their messages."""
    check = check_pose(position, quaternion)
    assert check.T_frame_target is None and check.error == error


@given(st.lists(st.floats(-1e3, 1e3), min_size=7, max_size=7), st.integers(0, 6),
       st.floats(0.0, 2.2250738585072e-308, exclude_min=True, exclude_max=True), st.booleans())
def test_a_subnormal_anywhere_refuses_the_target_and_normal_values_never_do(
        values, index, subnormal, negative):
    """Check any subnormal coordinate or component refuses; normal or zero values pass."""
    values = [value if value == 0.0 or abs(value) >= SMALLEST_NORMAL else 0.0
              for value in values]
    values[6] = values[6] if abs(values[6]) > 0.5 else 1.0  # w: never a zero quaternion
    assert check_pose(values[:3], values[3:]).problem == ''
    values[index] = -subnormal if negative else subnormal
    check = check_pose(values[:3], values[3:])
    assert check.T_frame_target is None and check.problem == 'int_bits'


def test_python_ints_in_a_pose_message_arrive_as_subnormals_and_are_refused():
    """
    Check ``position.z = 1`` and ``orientation.w = 1`` (ints) through rclpy are refused.

    rclpy's generated setters take the int (field checks off by default) and serialization
    writes its bits: read back from the bytes as the node reads a target, 1 is 5e-324.
    """
    message = PoseStamped()
    message.pose.position.x = 0.4
    message.pose.position.z = 1
    message.pose.orientation.w = 1
    _, position, quaternion, _ = pose_target_fields(serialize_message(message))
    if position[2] == 1.0:
        pytest.skip('this rclpy serializes an int in a float64 field as its value')
    assert position[2] == 5e-324
    check = check_pose(position, quaternion)
    assert check.problem == 'int_bits' and 'write 1.0, not 1' in check.error
    message.pose.position.z, message.pose.orientation.w = 1.0, 1.0
    _, position, quaternion, _ = pose_target_fields(serialize_message(message))
    assert check_pose(position, quaternion).problem == ''


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
    chain = kinematics.chain
    q = np.array([0.1, -1.0, 1.0, -1.2, -1.5, 0.2])
    np.testing.assert_array_equal(kinematics.frame_pose(q, ''), np.eye(4))
    np.testing.assert_array_equal(kinematics.frame_pose(q, 'base_link'), np.eye(4))
    np.testing.assert_allclose(kinematics.frame_pose(q, 'tool0'), kinematics.tip_pose(q))
    np.testing.assert_allclose(kinematics.frame_pose(q, 'forearm_link'),
                               kinematics.link_poses(q)[3])
    assert kinematics.frame_pose(q, 'map') is None
    assert is_known_frame(chain, 'wrist_2_link') and is_known_frame(chain, '')
    assert not is_known_frame(chain, 'map')
    assert known_frames(chain) == ('base_link, shoulder_link, upper_arm_link, forearm_link, '
                                   'wrist_1_link, wrist_2_link, wrist_3_link, tool0')


def test_links_fixed_inside_the_chain_are_frames_too():
    """Check panda_link8 and panda_hand (fixed joints) resolve to their FK poses."""
    kinematics = ChainKinematics(load_bundled_chain('panda'))
    chain = kinematics.chain
    q = np.array([0.1, -0.5, 0.2, -2.0, 0.1, 1.6, 0.5])
    assert is_known_frame(chain, 'panda_link8') and is_known_frame(chain, 'panda_hand')
    T_base_link7 = kinematics.link_poses(q)[7]
    T_base_link8 = kinematics.frame_pose(q, 'panda_link8')
    # Published Panda geometry: flange 0.107 m along link7's z axis, same orientation.
    np.testing.assert_allclose(T_base_link8[:3, :3], T_base_link7[:3, :3], atol=1e-12)
    np.testing.assert_allclose(T_base_link8[:3, 3],
                               T_base_link7[:3, 3] + 0.107 * T_base_link7[:3, 2], atol=1e-12)
    T_base_hand = kinematics.frame_pose(q, 'panda_hand')
    T_base_tcp = kinematics.frame_pose(q, 'panda_hand_tcp')
    np.testing.assert_allclose(np.linalg.solve(T_base_hand, T_base_tcp)[:3, :3], np.eye(3),
                               atol=1e-12)
    np.testing.assert_allclose(T_base_tcp, kinematics.tip_pose(q), atol=1e-15)


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


JOINT_NAMES = st.sampled_from(['a', 'b', 'c', 'gripper', 'rail'])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.tuples(JOINT_NAMES, st.floats(-10.0, 10.0)), max_size=6),
                min_size=1, max_size=40))
def test_joint_state_cache_equals_merging_entry_by_entry(messages):
    """
    Check the remembered layouts against a plain merge, entry by entry (last one wins).

    Up to 40 messages of random joint sets (repeated names included, more joint sets than
    the cache keeps layouts for): positions, extra and absent joints as a dict merge gives.
    """
    chain = ('a', 'b', 'c')
    cache, expected = JointStateCache(chain), {}
    for time, entries in enumerate(messages):
        names, values = [name for name, _ in entries], [value for _, value in entries]
        update = cache.update(names, values, float(time))
        expected.update((name, value) for name, value in entries if name in chain)
        assert update.extra_joints == tuple(name for name in names if name not in chain)
        assert update.absent_joints == tuple(name for name in chain if name not in names)
    known = [expected.get(name, np.nan) for name in chain]
    if cache.positions() is None:
        assert np.isnan(known).any()
    else:
        np.testing.assert_array_equal(cache.positions(), known)


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
    assert logged == ['position is NaN', 'unknown frame',
                      'position is NaN later (1 more like this in the last 2 s not logged)']


def test_keyed_throttle_logs_the_newest_held_message_when_its_key_is_due():
    """
    Check +1e308 then -1e308 within the period: the second is logged once the key is due.

    Before, a second refusal of the same kind within the period was never logged.
    """
    logged = []
    now = [0.0]
    throttle = KeyedThrottle(logged.append, 2.0, clock=lambda: now[0])
    assert throttle('target:range', 'x = +1e308')
    now[0] = 0.1
    assert not throttle('target:range', 'x = -1e308')
    assert not throttle('target:range', 'x = -2e308') and throttle.holding
    throttle.flush()
    assert logged == ['x = +1e308']  # not due yet
    now[0] = 2.0
    throttle.flush()
    assert logged == ['x = +1e308',
                      'x = -2e308 (1 more like this in the last 2 s not logged)']
    assert not throttle.holding
    throttle.flush()
    assert len(logged) == 2
