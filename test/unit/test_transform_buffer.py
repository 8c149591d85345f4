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

"""Tests of the transform tree over time: tf2's lookup semantics, closed forms, properties."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest
from ros_ik.kinematics.transform_buffer import (EXTRAPOLATION_FUTURE, EXTRAPOLATION_PAST,
                                                FrameError, NOT_CONNECTED, slerp, STALE,
                                                TransformBuffer, UNKNOWN_FRAME)
from ros_ik.kinematics.transforms import (axis_angle_matrix, matrix_to_quaternion,
                                          pose_matrix)

finite = st.floats(-5.0, 5.0, allow_nan=False)
unit_quaternions = st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=4,
                            max_size=4).filter(lambda q: np.linalg.norm(q) > 0.1)


def yaw_quaternion(angle: float) -> np.ndarray:
    """Return the quaternion (xyzw) of a rotation by ``angle`` (rad) about z."""
    return np.array([0.0, 0.0, math.sin(angle / 2.0), math.cos(angle / 2.0)])


def mounted_robot() -> TransformBuffer:
    """Return world -> base_link (0.5 m up, 90 deg about z) and world -> camera, static."""
    buffer = TransformBuffer()
    assert buffer.set_transform('world', 'base_link', 0.0, (0.0, 0.0, 0.5),
                                yaw_quaternion(math.pi / 2.0), static=True) == ''
    assert buffer.set_transform('world', 'camera', 0.0, (1.0, 0.0, 1.0),
                                yaw_quaternion(math.pi), static=True) == ''
    return buffer


def test_a_point_in_world_is_expressed_in_the_mounted_base_in_closed_form():
    """Check T_base_world on world (1, 0, 0.5): base is 0.5 m up and turned 90 deg."""
    T_base_world, time = mounted_robot().lookup('base_link', 'world')
    np.testing.assert_allclose(T_base_world @ [1.0, 0.0, 0.5, 1.0], [0.0, -1.0, 0.0, 1.0],
                               atol=1e-12)
    assert time == 0.0  # a static way is valid at every time


def test_a_lookup_through_the_common_ancestor_composes_both_ways():
    """Check camera in base = T_base_world T_world_camera, and its inverse the other way."""
    buffer = mounted_robot()
    T_base_camera, _ = buffer.lookup('base_link', 'camera')
    T_world_base = pose_matrix((0.0, 0.0, 0.5), yaw_quaternion(math.pi / 2.0))
    T_world_camera = pose_matrix((1.0, 0.0, 1.0), yaw_quaternion(math.pi))
    np.testing.assert_allclose(T_base_camera, np.linalg.inv(T_world_base) @ T_world_camera,
                               atol=1e-12)
    T_camera_base, _ = buffer.lookup('camera', 'base_link')
    np.testing.assert_allclose(T_camera_base @ T_base_camera, np.eye(4), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.tuples(finite, finite, finite), unit_quaternions), min_size=1,
                max_size=5))
def test_a_chain_of_frames_looks_up_as_the_product_of_its_transforms(links):
    """Check a chain f0 -> f1 -> ... -> fk: T_f0_fk is the product, T_fk_f0 its inverse."""
    buffer, T = TransformBuffer(), np.eye(4)
    for k, (translation, quaternion) in enumerate(links):
        assert buffer.set_transform(f'f{k}', f'f{k + 1}', 0.0, translation, quaternion,
                                    static=True) == ''
        T = T @ pose_matrix(translation, np.array(quaternion) / np.linalg.norm(quaternion))
    last = f'f{len(links)}'
    np.testing.assert_allclose(buffer.lookup('f0', last)[0], T, atol=1e-9)
    np.testing.assert_allclose(buffer.lookup(last, 'f0')[0] @ T, np.eye(4), atol=1e-9)


def test_a_dynamic_transform_is_interpolated_linearly_and_by_slerp():
    """Check the pose between two stamps: halfway along, a quarter of a half turn after 1/4."""
    buffer = TransformBuffer()
    buffer.set_transform('world', 'mover', 10.0, (0.0, 0.0, 0.0), yaw_quaternion(0.0), False)
    buffer.set_transform('world', 'mover', 12.0, (0.2, 0.0, 0.0), yaw_quaternion(math.pi / 2),
                         False)
    T_world_mover, time = buffer.lookup('world', 'mover', 10.5)
    assert time == 10.5
    np.testing.assert_allclose(T_world_mover[:3, 3], [0.05, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(T_world_mover[:3, :3],
                               axis_angle_matrix(np.array([0.0, 0.0, 1.0]), math.pi / 8),
                               atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(unit_quaternions, unit_quaternions, st.floats(0.0, 1.0))
def test_slerp_stays_unit_and_on_the_short_arc(q0, q1, ratio):
    """Check |slerp| = 1, its ends, and angle(q0, q) = ratio angle(q0, q1) (short way)."""
    q0, q1 = np.array(q0) / np.linalg.norm(q0), np.array(q1) / np.linalg.norm(q1)
    q = slerp(q0, q1, ratio)
    assert abs(np.linalg.norm(q) - 1.0) < 1e-9

    def angle(a, b):
        return 2.0 * math.acos(min(1.0, abs(float(a @ b))))
    assert angle(q0, q) == pytest.approx(ratio * angle(q0, q1), abs=1e-6)
    assert angle(q, q1) == pytest.approx((1.0 - ratio) * angle(q0, q1), abs=1e-6)


def test_the_latest_lookup_takes_the_latest_time_every_transform_has():
    """Check time 0 uses min(newest stamps) on the way (tf2's latest common time)."""
    buffer = TransformBuffer()
    for time, x in ((1.0, 0.0), (2.0, 1.0), (3.0, 2.0)):
        buffer.set_transform('world', 'cart', time, (x, 0.0, 0.0), yaw_quaternion(0.0), False)
    buffer.set_transform('cart', 'camera', 1.5, (0.0, 0.0, 1.0), yaw_quaternion(0.0), False)
    buffer.set_transform('cart', 'camera', 2.5, (0.0, 0.0, 2.0), yaw_quaternion(0.0), False)
    T_world_camera, time = buffer.lookup('world', 'camera')
    assert time == 2.5
    np.testing.assert_allclose(T_world_camera[:3, 3], [1.5, 0.0, 2.0], atol=1e-12)


def test_each_failure_has_its_own_kind_and_names_the_frames():
    """Check unknown frame, not connected, past, future and stale lookups."""
    buffer = mounted_robot()
    buffer.set_transform('world', 'mover', 5.0, (0.0, 0.0, 0.0), yaw_quaternion(0.0), False)
    buffer.set_transform('world', 'mover', 6.0, (0.1, 0.0, 0.0), yaw_quaternion(0.0), False)
    buffer.set_transform('map', 'odom', 0.0, (0.0, 0.0, 0.0), yaw_quaternion(0.0), True)
    cases = [(('base_link', 'nowhere'), {}, UNKNOWN_FRAME, '"nowhere"'),
             (('base_link', 'odom'), {}, NOT_CONNECTED, '"map"'),
             (('base_link', 'mover', 4.0), {}, EXTRAPOLATION_PAST, 'past'),
             (('base_link', 'mover', 7.0), {}, EXTRAPOLATION_FUTURE, 'future'),
             (('base_link', 'mover', 0.0), {'now': 8.0, 'max_age': 1.0}, STALE, '"mover"')]
    for arguments, keywords, kind, named in cases:
        with pytest.raises(FrameError) as error:
            buffer.lookup(*arguments, **keywords)
        assert error.value.kind == kind
        assert named in str(error.value)
    assert buffer.lookup('base_link', 'mover', 0.0, now=6.5, max_age=1.0)[1] == 6.0


def test_frames_with_a_leading_slash_are_the_same_frames():
    """Check '/world' and 'world' name one frame, in transforms and lookups."""
    buffer = TransformBuffer()
    buffer.set_transform('/world', '/base_link', 0.0, (0.0, 0.0, 0.5), yaw_quaternion(0.0),
                         True)
    assert buffer.knows('world') and buffer.knows('/base_link')
    T, _ = buffer.lookup('/base_link', 'world')
    np.testing.assert_allclose(T[:3, 3], [0.0, 0.0, -0.5])


def test_bad_transforms_are_refused_and_old_ones_expire():
    """Check NaN, a zero quaternion and a self-parent are refused; the cache keeps 10 s."""
    buffer = TransformBuffer(cache_time=10.0)
    assert 'not finite' in buffer.set_transform('a', 'b', 0.0, (math.nan, 0, 0),
                                                (0, 0, 0, 1), False)
    assert 'zero quaternion' in buffer.set_transform('a', 'b', 0.0, (0, 0, 0), (0, 0, 0, 0),
                                                     False)
    assert 'two distinct frames' in buffer.set_transform('a', 'a', 0.0, (0, 0, 0),
                                                         (0, 0, 0, 1), False)
    assert not buffer.knows('a')
    for time in range(30):
        buffer.set_transform('a', 'b', float(time), (time, 0, 0), (0, 0, 0, 1), False)
    with pytest.raises(FrameError) as error:
        buffer.lookup('a', 'b', 18.0)
    assert error.value.kind == EXTRAPOLATION_PAST
    assert buffer.lookup('a', 'b', 19.0)[0][0, 3] == pytest.approx(19.0)


def test_a_loop_in_the_parents_is_refused_not_walked_forever():
    """Check a -> b, b -> a (a publisher's mistake) ends in a NOT_CONNECTED error."""
    buffer = TransformBuffer()
    buffer.set_transform('a', 'b', 0.0, (0, 0, 0), (0, 0, 0, 1), True)
    buffer.set_transform('b', 'a', 0.0, (0, 0, 0), (0, 0, 0, 1), True)
    buffer.set_transform('world', 'c', 0.0, (0, 0, 0), (0, 0, 0, 1), True)
    with pytest.raises(FrameError) as error:
        buffer.lookup('world', 'a')
    assert error.value.kind == NOT_CONNECTED and 'loop' in str(error.value)


def test_a_rotation_from_matrix_to_quaternion_round_trips_through_the_buffer():
    """Check a transform set from a quaternion of a matrix comes back as that matrix."""
    R = axis_angle_matrix(np.array([1.0, 2.0, -2.0]) / 3.0, 2.5)
    buffer = TransformBuffer()
    buffer.set_transform('p', 'c', 0.0, (0.3, -0.2, 0.1), matrix_to_quaternion(R), True)
    np.testing.assert_allclose(buffer.lookup('p', 'c')[0][:3, :3], R, atol=1e-12)


def test_a_static_way_is_kept_until_a_static_transform_or_the_tree_changes():
    """Check new /tf data of another frame keeps a static lookup; a new camera pose not."""
    buffer = mounted_robot()
    buffer.set_transform('world', 'mover', 1.0, (0.0, 0.0, 0.0), yaw_quaternion(0.0), False)
    T_first, _ = buffer.lookup('base_link', 'camera')
    buffer.set_transform('world', 'mover', 2.0, (0.1, 0.0, 0.0), yaw_quaternion(0.0), False)
    assert buffer.lookup('base_link', 'camera')[0] is T_first  # kept
    buffer.set_transform('world', 'camera', 0.0, (2.0, 0.0, 1.0), yaw_quaternion(math.pi),
                         True)
    T_moved, _ = buffer.lookup('base_link', 'camera')
    np.testing.assert_allclose(T_moved[:3, 3], [0.0, -2.0, 0.5], atol=1e-12)
    buffer.set_transform('world', 'camera', 5.0, (3.0, 0.0, 1.0), yaw_quaternion(math.pi),
                         False)
    T_dynamic, time = buffer.lookup('base_link', 'camera')
    assert time == 5.0
    np.testing.assert_allclose(T_dynamic[:3, 3], [0.0, -3.0, 0.5], atol=1e-12)
