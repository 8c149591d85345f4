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
Cartesian paths without ROS: geometry, joints by continuation, timing, stops, offline API.

Closed forms where they exist (a planar arm's reach and joint-limit crossings), finite
differences for derivatives, dense sampling of the exact timing for every limit.
"""

from hypothesis import example, given, settings, strategies as st
import numpy as np
import pytest
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_setup import build_collision_model
from ros_ik.collision.scene import parse_scene
from ros_ik.control.arm import ControlledArm
from ros_ik.control.motion_limit_sources import LimitDefaults, resolve_motion_limits
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, load_bundled_chain)
from ros_ik.kinematics.task_space import mask_of_rows
from ros_ik.kinematics.transforms import rotation_vector, rpy_to_matrix
from ros_ik.paths.cartesian_planner import plan_cartesian_path
from ros_ik.paths.joint_path import JointPath
from ros_ik.paths.path_geometry import CartesianPath, ROTATION_LENGTH
from ros_ik.paths.path_timing import Caps
from ros_ik.paths.speed_profile import (advance, Profile, reachable_speed,
                                        rest_change_distance, velocity_change)
from ros_ik.paths.stretch_planner import deviation, PathTask, plan_stretch
from ros_ik.trajectory.motion_limits import MotionLimits

HOMES = {'ur5': (0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0),
         'panda': (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785),
         'so101': (0.0, -0.6, 0.9, 0.6, 0.0), 'planar_2link': (0.4, 1.2)}


def pose(position, rpy=(np.pi, 0.0, 0.0)) -> np.ndarray:
    """Return a 4x4 pose from a position and roll-pitch-yaw."""
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = rpy_to_matrix(*rpy), position
    return T


def task_for(name: str, velocity_scale: float = 0.5, caps: Caps = Caps(0.25, 1.0),
             checker=None, limits: MotionLimits = None) -> PathTask:
    """Return the path task of a bundled arm with its shipped limits."""
    chain = load_bundled_chain(name)
    arm = ControlledArm.from_chain(chain, ' '.join(
        'x y z rx ry rz'.split()[row] for row in BUNDLED_ARMS[name].task_rows))
    if limits is None:
        limits = resolve_motion_limits(chain, bundled_joint_limits_path(name),
                                       LimitDefaults.of(Settings()), {}).limits
    return PathTask(arm.kinematics, arm.solver, limits.scaled(velocity_scale),
                    arm.task_mask(False), caps=caps, checker=checker)


def sampled_peaks(plan, limits: MotionLimits) -> np.ndarray:
    """Return the peak |v|, |a|, |j| / limit of a plan, by differences of dense samples."""
    dt = np.diff(plan.times)[:, None]
    jerk = np.diff(plan.accelerations, axis=0) / dt
    return np.array([np.max(np.abs(plan.velocities) / limits.velocity),
                     np.max(np.abs(plan.accelerations) / limits.acceleration),
                     np.max(np.abs(jerk) / limits.jerk)])


# ---------------------------------------------------------------------------- geometry
def test_segments_pass_the_waypoints_with_slerp_in_step_with_the_position():
    """Check the waypoints are on the path and mid-segment is halfway in both."""
    waypoints = np.array([pose([0.4, 0.0, 0.3]), pose([0.4, 0.2, 0.3], (np.pi, 0.0, 0.8)),
                          pose([0.6, 0.2, 0.1], (np.pi, 0.3, 0.8))])
    path = CartesianPath(waypoints)
    for s, T in zip(path.waypoint_s, waypoints):
        np.testing.assert_allclose(path.pose_at(s), T, atol=1e-12)
    middle = path.pose_at(0.5 * path.waypoint_s[1])
    np.testing.assert_allclose(middle[:3, 3], [0.4, 0.1, 0.3], atol=1e-12)
    turned = rotation_vector(waypoints[0][:3, :3].T @ middle[:3, :3])
    np.testing.assert_allclose(np.linalg.norm(turned), 0.4, atol=1e-12)
    rotation = 0.8  # rad about the tool's axis between the first two waypoints
    assert path.waypoint_s[1] == pytest.approx(np.hypot(0.2, ROTATION_LENGTH * rotation))


finite = st.floats(-0.5, 0.5)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(finite, finite, finite, finite, finite, finite), min_size=3,
                max_size=5), st.sampled_from([0.0, 0.03, 0.2]), st.floats(0.0, 1.0))
def test_the_tangent_is_the_derivative_of_the_pose(points, blend, where):
    """Check ``[dp/ds; w]`` against central differences, blends included."""
    waypoints = np.array([pose(point[:3], point[3:]) for point in points])
    keep = np.concatenate([[True], np.linalg.norm(np.diff(waypoints[:, :3, 3], axis=0),
                                                  axis=1) > 1e-3])
    if keep.sum() < 2:
        return
    path = CartesianPath(waypoints[keep], blend)
    s = min(max(where * path.length, 1e-4), path.length - 1e-4)
    h = 1e-6
    ahead, behind = path.pose_at(s + h), path.pose_at(s - h)
    numeric = np.concatenate([(ahead[:3, 3] - behind[:3, 3]) / (2 * h),
                              rotation_vector(ahead[:3, :3] @ behind[:3, :3].T) / (2 * h)])
    np.testing.assert_allclose(path.tangent_at(s), numeric, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(finite, finite, finite), min_size=3, max_size=8),
       st.sampled_from([0.01, 0.05, 1.0]))
# a zig-zag of equal segments, each consumed by the blends at its two ends (to rounding:
# a line piece of length 1e-17 once took over the next blend's whole domain)
@example([(0.0943 + 0.012 * k, -0.1621 + 0.03 * (k % 2), -0.1084) for k in range(6)], 0.02)
def test_a_path_is_continuous_even_where_blends_consume_whole_segments(points, blend):
    """Check no jump along the path (dense samples), blends as long as half the segments."""
    waypoints = np.array([pose(point) for point in points])
    keep = np.concatenate([[True], np.linalg.norm(np.diff(waypoints[:, :3, 3], axis=0),
                                                  axis=1) > 1e-3])
    if keep.sum() < 2:
        return
    path = CartesianPath(waypoints[keep], blend)
    s = np.linspace(0.0, path.length, 20001)
    steps = np.linalg.norm(np.diff(path.poses_at(s)[:, :3, 3], axis=0), axis=1)
    assert steps.max() <= 3.0 * (s[1] - s[0])


def test_blends_are_twice_differentiable_and_stay_near_the_corner():
    """Check position and rotation rates and their derivatives are continuous at blend ends."""
    waypoints = np.array([pose([0.4, 0.0, 0.3]), pose([0.4, 0.2, 0.3], (np.pi, 0.0, 0.8)),
                          pose([0.6, 0.2, 0.3], (np.pi, 0.3, 0.8))])
    blend = 0.04
    path = CartesianPath(waypoints, blend)
    assert list(path.rest_s) == [0.0, path.length]  # no rest at a blended corner
    corner = path.waypoint_s[1]
    for junction in (corner - blend, corner + blend):
        h = 1e-7
        np.testing.assert_allclose(path.tangent_at(junction - h), path.tangent_at(junction + h),
                                   atol=1e-8)
    span = 2.0 * blend
    powers = np.array([d * (d - 1) * span ** max(d - 2, 0) for d in range(6)])
    for coefficients in (path.P[1], path.H[1]):  # the blend piece: x''(0) = x''(span) = 0
        np.testing.assert_allclose(2.0 * coefficients[2], 0.0, atol=1e-12)
        np.testing.assert_allclose(powers @ coefficients, 0.0, atol=1e-9)
    for coefficients in (path.P[0], path.H[0], path.P[2], path.H[2]):  # the segments: lines
        np.testing.assert_allclose(coefficients[2:], 0.0, atol=1e-15)
    inside = path.poses_at(np.linspace(corner - blend, corner + blend, 50))[:, :3, 3]
    assert np.linalg.norm(inside - waypoints[1][:3, 3], axis=1).max() <= blend


def test_rest_points_at_corners_not_where_segments_continue():
    """Check corners are rest points without blends and collinear waypoints are not."""
    line = np.array([pose([0.4, 0.0, 0.3]), pose([0.5, 0.0, 0.3]), pose([0.6, 0.0, 0.3])])
    assert list(CartesianPath(line).rest_s) == [0.0, pytest.approx(0.2)]
    corner = np.array([pose([0.4, 0.0, 0.3]), pose([0.5, 0.0, 0.3]), pose([0.5, 0.1, 0.3])])
    assert list(CartesianPath(corner).rest_s) == pytest.approx([0.0, 0.1, 0.2])
    with pytest.raises(ValueError, match='repeated'):
        CartesianPath(np.array([pose([0.4, 0.0, 0.3])] * 2))


# ------------------------------------------------------------------------- joint path
def test_the_clamped_spline_reproduces_a_cubic_and_bounds_its_derivatives():
    """Check a cubic through uneven knots is reproduced, and the interval maxima are exact."""
    s = np.array([0.0, 0.1, 0.15, 0.4, 0.5])

    def cubic(x):
        return np.stack([1.0 - 2.0 * x + 3.0 * x ** 2 - 5.0 * x ** 3, 0.5 * x], axis=-1)

    rates = np.array([[-2.0, 0.5], [-2.0 + 6.0 * 0.5 - 15.0 * 0.25, 0.5]])
    spline = JointPath(s, cubic(s), rates[0], rates[1])
    dense = np.linspace(0.0, 0.5, 2001)
    np.testing.assert_allclose(spline.positions(dense), cubic(dense), atol=1e-12)
    first, second, third = spline.interval_bounds()
    _, q1, q2, q3 = spline.evaluate(dense)
    interval = spline.interval_of(dense)
    for bound, values in ((first, q1), (second, q2), (third, q3)):
        for k in range(len(s) - 1):
            sampled = np.abs(values[interval == k]).max(axis=0)
            assert np.all(sampled <= bound[k] + 1e-9)
            assert np.all(sampled >= bound[k] - 1e-2 * (1.0 + bound[k]))


# ----------------------------------------------------------------------- speed profile
@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 2.0), st.floats(-1.0, 1.0), st.floats(0.0, 2.0), st.floats(0.1, 3.0),
       st.floats(0.5, 50.0))
def test_a_velocity_change_ends_at_its_speed_at_rest_within_the_bounds(v0, a0, v1, a_max,
                                                                       j_max):
    """Check the S-curve ends at ``(v1, 0)`` and never exceeds ``a_max`` or ``j_max``."""
    a0 = max(min(a0, a_max), -a_max)
    phases = velocity_change(v0, a0, v1, a_max, j_max)
    _, v, a = advance((0.0, v0, a0), phases)
    assert v == pytest.approx(v1, abs=1e-9) and a == pytest.approx(0.0, abs=1e-9)
    profile = Profile((0.0, v0, a0), phases)
    _, _, accelerations, jerks = profile.state(np.linspace(0.0, profile.duration, 500))
    assert np.abs(accelerations).max() <= a_max * (1 + 1e-9) + 1e-12
    assert np.abs(jerks).max() <= j_max * (1 + 1e-9)


def test_rest_change_distance_is_the_mean_speed_times_the_time():
    """Check ``(v0 + v1) / 2 * T`` against the integrated profile, and its inverse."""
    for v0, v1, a, j in ((0.0, 1.0, 2.0, 10.0), (0.5, 0.1, 1.0, 50.0), (0.0, 0.01, 3.0, 5.0)):
        distance = rest_change_distance(v0, v1, a, j)
        assert advance((0.0, v0, 0.0), velocity_change(v0, 0.0, v1, a, j))[0] == \
            pytest.approx(distance, rel=1e-9)
        reached = reachable_speed(min(v0, v1), distance, a, j)
        assert reached == pytest.approx(max(v0, v1), rel=1e-6)


# ----------------------------------------------------------------------------- plans
@pytest.mark.parametrize('name', sorted(BUNDLED_ARMS))
def test_squares_on_every_bundled_arm_stay_on_the_path_within_every_limit(name):
    """Check a square's samples: on the path, within v/a/j limits and the tool cap."""
    task = task_for(name)
    q = np.array(HOMES[name])
    T0 = task.kinematics.tip_pose(q)
    side = 0.3 if name == 'planar_2link' else 0.08
    offsets = [(0, 0), (side, 0), (side, side), (0, side), (0, 0)]
    waypoints = []
    for dx, dy in offsets:
        T = T0.copy()
        T[0, 3] += dx
        T[1, 3] += dy
        waypoints.append(T)
    plan = plan_cartesian_path(task, waypoints, q, sample_period=0.002)
    assert plan.stop is None and plan.fraction == pytest.approx(1.0)
    assert plan.max_deviation[0] <= 1e-4 and plan.max_deviation[1] <= 1e-3
    assert np.all(sampled_peaks(plan, task.limits) <= 1.0 + 1e-6)
    tool = task.kinematics.tip_pose(plan.positions)[:, :3, 3]
    speeds = np.linalg.norm(np.diff(tool, axis=0), axis=1) / np.diff(plan.times)
    assert speeds.max() <= task.caps.linear * 1.01
    np.testing.assert_allclose(plan.positions[-1], plan.positions[-1])
    np.testing.assert_allclose(tool[-1], T0[:3, 3], atol=1e-6)


def test_the_exact_timing_keeps_jerk_and_acceleration_with_curvature_terms():
    """Check ``q''' v^3 + 3 q'' v a + q' j`` and ``q'' v^2 + q' a`` densely on a Panda line."""
    task = task_for('panda')
    q = np.array(HOMES['panda'])
    T0 = task.kinematics.tip_pose(q)
    T1 = T0.copy()
    T1[2, 3] += 0.25
    path = CartesianPath(np.array([T0, T1]))
    stretch = plan_stretch(path, 0.0, path.length, q, task)
    t = np.linspace(0.0, stretch.timing.duration, 20001)
    s, v, a, j = stretch.timing.profile.state(t)
    _, q1, q2, q3 = stretch.joint_path.evaluate(s)
    velocity = q1 * v[:, None]
    acceleration = q2 * (v * v)[:, None] + q1 * a[:, None]
    jerk = q3 * (v ** 3)[:, None] + 3.0 * q2 * (v * a)[:, None] + q1 * j[:, None]
    limits = task.limits
    for values, limit in ((velocity, limits.velocity), (acceleration, limits.acceleration),
                          (jerk, limits.jerk)):
        assert np.max(np.abs(values) / limit) <= 1.0 + 1e-9


@pytest.mark.parametrize('length', [4e-5, 1e-6])
def test_a_stretch_of_micrometres_takes_milliseconds(length):
    """
    Check the timing of the micrometres a brake can leave before a corner (a stall).

    Every peak of the search's grid is too fast for such a zone: the highest peak that fits
    is taken (before, the zone was crossed at 1e-9 m/s: 43868 s for 40 um).
    """
    task = task_for('ur5')
    q = np.array(HOMES['ur5'])
    T0 = task.kinematics.tip_pose(q)
    T1 = T0.copy()
    T1[0, 3] += length
    path = CartesianPath(np.array([T0, T1]))
    stretch = plan_stretch(path, 0.0, path.length, q, task)
    assert stretch.timing is not None and 0.0 < stretch.timing.duration < 0.05
    assert stretch.timing.s_end == pytest.approx(path.length, abs=1e-12)


@pytest.mark.parametrize('blend', [0.0, 0.02])
def test_a_20_waypoint_polyline_with_and_without_blends(blend):
    """Check a zig-zag of 20 waypoints on the UR5: on the path, within the limits."""
    task = task_for('ur5')
    q = np.array(HOMES['ur5'])
    T0 = task.kinematics.tip_pose(q)
    waypoints = []
    for k in range(20):
        T = T0.copy()
        T[0, 3] += 0.015 * k
        T[1, 3] += 0.04 * (k % 2)
        waypoints.append(T)
    plan = plan_cartesian_path(task, waypoints, q, blend_radius=blend, sample_period=0.002)
    assert plan.fraction == pytest.approx(1.0) and plan.stop is None
    assert plan.max_deviation[0] <= 1e-4
    assert np.all(sampled_peaks(plan, task.limits) <= 1.0 + 1e-6)
    resting = np.flatnonzero(np.abs(plan.velocities).max(axis=1) < 1e-12)
    if blend:
        assert len(resting) <= 2  # the start and the end only
    else:
        assert len(resting) >= 19


def planar_task(lower_elbow: float = -np.pi) -> PathTask:
    """Return the planar arm's task (x y) with the elbow's lower limit at ``lower_elbow``."""
    task = task_for('planar_2link', caps=Caps(1.0, 1.0))
    limits = task.limits
    lower = limits.lower.copy()
    lower[1] = lower_elbow
    return PathTask(task.kinematics, task.solver, MotionLimits(
        lower, limits.upper, limits.velocity, limits.acceleration, limits.jerk), task.mask,
        caps=task.caps)


def radial_line(task: PathTask, q: np.ndarray, length: float):
    """Return the waypoints of a line outward from the base through the tool, and r0."""
    T0 = task.kinematics.tip_pose(q)
    direction = T0[:3, 3] / np.linalg.norm(T0[:3, 3])
    T1 = T0.copy()
    T1[:3, 3] += length * direction
    return [T0, T1], float(np.linalg.norm(T0[:3, 3]))


def test_a_joint_limit_stops_the_path_within_a_millimetre_of_the_crossing():
    """Check the planar arm stretching outward stops where the elbow meets its limit."""
    elbow_limit = 0.5
    task = planar_task(lower_elbow=elbow_limit)
    q = np.array([0.3, 1.4])
    waypoints, r0 = radial_line(task, q, 1.0)
    plan = plan_cartesian_path(task, waypoints, q, sample_period=0.002)
    # r^2 = L1^2 + L2^2 + 2 L1 L2 cos(q2): the elbow reaches 0.5 rad at this radius
    r_limit = np.sqrt(2.0 ** 2 + 1.5 ** 2 + 2 * 2.0 * 1.5 * np.cos(elbow_limit))
    assert plan.stop.kind == 'joint_limit' and plan.stop.joint
    assert abs(plan.fraction * 1.0 - (r_limit - r0)) <= 1e-3
    assert plan.positions[:, 1].min() >= elbow_limit - 1e-9
    assert np.all(sampled_peaks(plan, task.limits) <= 1.0 + 1e-6)


def test_the_edge_of_the_reach_stops_the_path_within_a_millimetre_of_it():
    """Check a line beyond the planar arm's reach (L1 + L2 = 3.5 m) stops before the edge."""
    task = planar_task()
    q = np.array([0.3, 1.4])
    waypoints, r0 = radial_line(task, q, 3.0)
    plan = plan_cartesian_path(task, waypoints, q, sample_period=0.002)
    assert plan.stop.kind == 'unreachable'
    assert abs(plan.fraction * 3.0 - (3.5 - r0)) <= 1e-3
    assert np.all(sampled_peaks(plan, task.limits) <= 1.0 + 1e-6)
    assert plan.waypoint == 1


def test_a_scene_object_stops_the_path_within_a_millimetre_before_contact():
    """Check a line down into a table stops at the contact, every sample free."""
    chain = load_bundled_chain('ur5')
    with open(bundled_urdf_path('ur5'), encoding='utf-8') as urdf_file:
        urdf = urdf_file.read()
    arm = ControlledArm.from_chain(chain, 'x y z rx ry rz')
    table = parse_scene('objects: [{name: table, type: box, size: [0.3, 0.3, 0.1], '
                        'pose: {xyz: [-0.49, -0.11, -0.05]}}]')  # under the tool at home
    model, _ = build_collision_model(urdf, arm.kinematics, '', table, lambda package: None)
    checker = CollisionChecker(model, 0.0, 0.01)
    task = task_for('ur5', checker=checker)
    q = np.array(HOMES['ur5'])
    T0 = task.kinematics.tip_pose(q)
    T1 = T0.copy()
    T1[2, 3] = -0.3  # well into the table
    plan = plan_cartesian_path(task, [T0, T1], q, sample_period=0.002)
    assert plan.stop.kind == 'collision' and 'table' in plan.stop.pair
    # where the tool's links first touch the table, by exact distances along the path
    path = CartesianPath(np.array([T0, T1]))
    stretch = plan_stretch(path, 0.0, path.length, q, task)
    distances = [checker.nearest(q_k).distance for q_k in plan.positions]
    assert min(distances) > 0.0  # no sample in collision
    s_grid = np.linspace(plan.s[-1], min(plan.s[-1] + 0.01, stretch.joint_path.s_end), 201)
    beyond = [checker.nearest(q_k).distance for q_k in stretch.joint_path.positions(s_grid)]
    touching = s_grid[np.argmax(np.array(beyond) <= 0.0)]
    assert 0.0 <= touching - plan.s[-1] <= 1e-3


def test_deviation_counts_only_the_task_rows():
    """Check a position-only task ignores the orientation."""
    task = task_for('so101')
    turned = pose([0.2, 0.0, 0.1], (0.0, 0.0, 1.0))
    dev_p, dev_o = deviation(task, pose([0.2, 0.0, 0.1])[None], turned[None])
    assert dev_p[0] == 0.0 and dev_o[0] == 0.0
    full = PathTask(task.kinematics, task.solver, task.limits, mask_of_rows(range(6)))
    assert deviation(full, pose([0.2, 0.0, 0.1])[None], turned[None])[1][0] > 0.1


def test_a_singular_configuration_the_path_crosses_stops_it_just_before():
    """Check a UR5 line through its wrist singularity (wrist axes aligned) stops before it."""
    task = task_for('ur5')
    q_a = np.array([0.0, -1.2, 1.6, -1.9, 0.05, 0.3])
    q_b = q_a.copy()
    q_b[4] = -0.05  # the same tool line, the wrist on the other side of the singularity
    plan = plan_cartesian_path(task, [task.kinematics.tip_pose(q_a),
                                      task.kinematics.tip_pose(q_b)], q_a, sample_period=0.002)
    assert plan.stop.kind == 'singularity' and 0.1 < plan.fraction < 0.9
    assert abs(plan.positions[-1, 4]) < 0.01  # where the wrist axes nearly align
    assert np.all(sampled_peaks(plan, task.limits) <= 1.0 + 1e-6)
    assert plan.max_deviation[0] <= 1e-4 and plan.max_deviation[1] <= 1e-3
