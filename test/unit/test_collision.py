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
The collision layer against coal, brute force and closed forms; pairs, scene and meshes.

Real arms with meshes and SRDFs come from example-robot-data (skipped without it).
"""

from dataclasses import replace
import itertools
import re

import coal
from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from ros_ik.collision.allowed_pairs import pair, srdf_disabled_pairs, SrdfError
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.collision.collision_setup import (automatic_disabled_pairs,
                                              build_collision_model)
from ros_ik.collision.distance_kernels import (BOX, box_face_gap, capsule_box_distance,
                                               capsule_capsule_distance, hull_axis_gap)
from ros_ik.collision.robot_geometry import robot_geometry
from ros_ik.collision.scene import parse_scene, SceneError
from ros_ik.collision.shapes import (capsule_around, GeometryError, resolve_mesh_path,
                                     search_path_packages, Shape)
from ros_ik.collision.velocity_damper import (constrained_velocity, damped_velocity,
                                              damper_rows, DamperRule)
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.controller import IkController
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import matrix_to_quaternion, pose_error, rpy_to_matrix
from ros_ik.kinematics.urdf_loader import load_urdf_string, parse_robot
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.online_generator import MotionState, OnlineGenerator
from ros_ik_testing.example_arms import example_arm, mesh_search_folder, UR5_FLOOR_CROSSING
from ros_ik_testing.reference_collisions import FLOOR_SCENE, ReferenceCollisions

needs_example_robots = pytest.mark.skipif(mesh_search_folder() is None,
                                          reason='example-robot-data is not installed')
coordinates = st.floats(-0.5, 0.5)
points = st.tuples(coordinates, coordinates, coordinates).map(np.array)


def coal_distance(shape_a, T_a, shape_b, T_b) -> float:
    """Return coal's signed distance of two shapes at poses (4x4)."""
    request = coal.DistanceRequest()
    request.enable_signed_distance = True
    return coal.distance(shape_a, coal.Transform3s(T_a[:3, :3], T_a[:3, 3]), shape_b,
                         coal.Transform3s(T_b[:3, :3], T_b[:3, 3]), request,
                         coal.DistanceResult())


def capsule_pose(end0, end1):
    """Return coal's capsule (along its z) pose and half length for a segment."""
    axis = end1 - end0
    length = float(np.linalg.norm(axis))
    z = axis / length
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    T = np.eye(4)
    T[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    T[:3, 3] = 0.5 * (end0 + end1)
    return T, length


@settings(max_examples=150, deadline=None)
@given(points, points, points, points, st.floats(0.01, 0.2), st.floats(0.01, 0.2))
def test_capsule_distance_matches_coal_when_apart(a0, a1, b0, b1, radius_a, radius_b):
    """Check the capsule kernel against coal's capsules wherever they are apart."""
    if min(np.linalg.norm(a1 - a0), np.linalg.norm(b1 - b0)) < 1e-3:
        return
    p_a, p_b = np.empty(3), np.empty(3)
    ours = capsule_capsule_distance(a0, a1, radius_a, b0, b1, radius_b, p_a, p_b)
    T_a, length_a = capsule_pose(a0, a1)
    T_b, length_b = capsule_pose(b0, b1)
    theirs = coal_distance(coal.Capsule(radius_a, length_a), T_a,
                           coal.Capsule(radius_b, length_b), T_b)
    if ours > 1e-4:
        assert ours == pytest.approx(theirs, abs=1e-6)
        assert np.linalg.norm(p_b - p_a) == pytest.approx(ours, abs=1e-6)
    else:
        assert theirs < 1e-4


@settings(max_examples=150, deadline=None)
@given(points, points, st.floats(0.01, 0.2), st.tuples(*[st.floats(0.02, 0.4)] * 3),
       st.tuples(*[st.floats(-np.pi, np.pi)] * 3))
def test_capsule_box_distance_matches_coal(e0, e1, radius, size, rpy):
    """Check the golden-section capsule-box distance against coal, and its witnesses."""
    if np.linalg.norm(e1 - e0) < 1e-3:
        return
    T_box = np.eye(4)
    T_box[:3, :3] = rpy_to_matrix(*rpy)
    T_box[:3, 3] = [0.1, -0.05, 0.02]
    half = 0.5 * np.array(size)
    p_a, p_b = np.empty(3), np.empty(3)
    ours = capsule_box_distance(e0, e1, radius, np.ascontiguousarray(T_box[:3]), half, p_a,
                                p_b)
    T_capsule, length = capsule_pose(e0, e1)
    theirs = coal_distance(coal.Capsule(radius, length), T_capsule, coal.Box(*size), T_box)
    if ours > 0.0:
        assert ours == pytest.approx(theirs, abs=1e-6)
        # the witnesses: on the capsule's surface and the box's, ``ours`` apart
        assert np.linalg.norm(p_b - p_a) == pytest.approx(ours, abs=1e-9)
    else:
        assert theirs <= 1e-6


def posed(rpy, xyz) -> np.ndarray:
    """Return the pose (4x4) of roll-pitch-yaw ``rpy`` (rad) at ``xyz`` (m)."""
    T = np.eye(4)
    T[:3, :3] = rpy_to_matrix(*rpy)
    T[:3, 3] = xyz
    return T


angles = st.tuples(*[st.floats(-np.pi, np.pi)] * 3)
clouds = st.lists(points, min_size=4, max_size=30).map(lambda cloud: 0.4 * np.array(cloud))


def hull(cloud: np.ndarray):
    """Return coal's convex hull of ``cloud`` (k, 3), or None for a flat cloud."""
    centred = cloud - cloud.mean(axis=0)
    if np.linalg.svd(centred, compute_uv=False)[-1] < 1e-3:
        return None
    return Shape('convex', np.eye(4), points=cloud).coal_geometry()


@settings(max_examples=150, deadline=None)
@given(clouds, angles, points, st.tuples(*[st.floats(0.02, 0.6)] * 3), angles)
def test_the_box_face_gap_never_exceeds_the_hull_box_distance(cloud, rpy, xyz, size, box_rpy):
    """
    Check the separating-axis bound of a vertex hull and a box against coal.

    Never above coal's distance (the hull may be anywhere, in the box included); positive
    only where coal finds the two apart.
    """
    shape = hull(cloud)
    if shape is None:
        return
    T_body, T_box = posed(rpy, xyz), posed(box_rpy, [0.05, -0.1, 0.0])
    gap = box_face_gap(cloud, len(cloud), np.ascontiguousarray(T_body[:3]),
                       np.ascontiguousarray(T_box[:3]), 0.5 * np.array(size))
    theirs = coal_distance(shape, T_body, coal.Box(*size), T_box)
    assert gap <= max(theirs, 0.0) + 1e-6


@settings(max_examples=100, deadline=None)
@given(clouds, angles, st.floats(0.001, 0.3))
def test_the_box_face_gap_of_a_hull_above_a_floor_is_its_clearance(cloud, rpy, height):
    """Check the closed form: over a wide floor the lowest vertex gives the clearance."""
    shape = hull(cloud)
    if shape is None:
        return
    T_body = posed(rpy, [0.0, 0.0, 0.0])
    T_body[2, 3] = height - float((cloud @ T_body[:3, :3].T)[:, 2].min())  # lowest at height
    size = np.array([4.0, 4.0, 0.2])
    T_floor = posed([0.0, 0.0, 0.0], [0.0, 0.0, -0.1])
    gap = box_face_gap(cloud, len(cloud), np.ascontiguousarray(T_body[:3]),
                       np.ascontiguousarray(T_floor[:3]), 0.5 * size)
    assert gap == pytest.approx(height, abs=1e-9)
    assert gap == pytest.approx(coal_distance(shape, T_body, coal.Box(*size), T_floor),
                                abs=1e-6)


@settings(max_examples=150, deadline=None)
@given(clouds, angles, clouds, angles, points, points)
def test_the_hull_axis_gap_never_exceeds_the_hulls_distance(cloud_a, rpy_a, cloud_b, rpy_b,
                                                            xyz_b, direction):
    """Check the projected gap of two vertex hulls against coal, along any direction."""
    shape_a, shape_b = hull(cloud_a), hull(cloud_b)
    if shape_a is None or shape_b is None or np.linalg.norm(direction) < 1e-3:
        return
    T_a, T_b = posed(rpy_a, [0.0, 0.0, 0.0]), posed(rpy_b, 2.0 * xyz_b)
    theirs = coal_distance(shape_a, T_a, shape_b, T_b)
    for n in (direction, T_b[:3, 3] - T_a[:3, 3]):
        if np.linalg.norm(n) < 1e-3:
            continue
        gap = hull_axis_gap(cloud_a, len(cloud_a), np.ascontiguousarray(T_a[:3]), cloud_b,
                            len(cloud_b), np.ascontiguousarray(T_b[:3]), n / np.linalg.norm(n))
        assert gap <= max(theirs, 0.0) + 1e-6


@settings(max_examples=100, deadline=None)
@given(st.lists(points, min_size=1, max_size=40))
def test_a_fitted_capsule_contains_every_point(cloud):
    """Check the proxy fit: every point lies within the capsule's radius of its segment."""
    capsule = capsule_around(np.array(cloud))
    axis = capsule.end1 - capsule.end0
    for point in cloud:
        length_squared = float(axis @ axis)
        t = 0.0 if length_squared < 1e-24 else float(
            np.clip((point - capsule.end0) @ axis / length_squared, 0.0, 1.0))
        assert np.linalg.norm(point - (capsule.end0 + t * axis)) <= capsule.radius + 1e-9


def test_the_velocity_damper_keeps_the_closest_velocity_meeting_the_rows():
    """Check the active set against the closed form of one active row: x = q0 + H^-1 a mu."""
    H = np.diag([1.0, 2.0, 4.0])
    qdot = np.array([1.0, 1.0, 1.0])
    A = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    b = np.array([0.0, -5.0])  # only the first row is violated: x_0 <= 0
    x = constrained_velocity(qdot, H, A, b)
    np.testing.assert_allclose(x, [0.0, 1.0, 1.0], atol=1e-9)
    assert np.all(A @ x >= b - 1e-9)


def _brute_force_velocity(qdot: np.ndarray, H: np.ndarray, A: np.ndarray,
                          b: np.ndarray) -> np.ndarray:
    """
    Return the QP's solution by trying every set of active rows (the feasible best).

    At most one row per joint: an optimum has that many independent active rows.
    """
    H_inverse = np.linalg.inv(H)
    best, best_x = np.inf, None
    for size in range(min(len(b), len(qdot)) + 1):
        for rows in map(list, itertools.combinations(range(len(b)), size)):
            try:
                mu = (np.linalg.solve(A[rows] @ H_inverse @ A[rows].T,
                                      b[rows] - A[rows] @ qdot) if rows else np.zeros(0))
            except np.linalg.LinAlgError:
                continue
            x = qdot + H_inverse @ A[rows].T @ mu
            cost = (x - qdot) @ H @ (x - qdot)
            if np.all(A @ x >= b - 1e-9) and cost < best:
                best, best_x = cost, x
    return best_x


def test_the_velocity_damper_finds_the_qp_optimum_of_random_problems():
    """Check the compiled active set against every active set tried (rows <= joints)."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(2, 8))
        k = int(rng.integers(1, n + 1))
        J = rng.normal(size=(n, n))
        H = J.T @ J + 0.01 * np.eye(n)
        qdot, A, b = rng.normal(size=n), rng.normal(size=(k, n)), rng.normal(size=k)
        expected = _brute_force_velocity(qdot, H, A, b)
        x = constrained_velocity(qdot, H, A, b)
        np.testing.assert_allclose(x, expected, atol=1e-6 * max(1.0, np.abs(expected).max()))


def test_the_velocity_damper_meets_every_row_with_more_rows_than_joints():
    """
    Check rows that zero velocity meets (``b <= 0``) all hold, however many.

    With more rows than joints the active set can stop at a dependent row; the velocity is
    then scaled toward zero (4 of these 2,000 problems: the test fails without the
    scaling), never leaving a pair approaching faster than its row allows.
    """
    rng = np.random.default_rng(1)
    scaled = 0
    for _ in range(2000):
        n = int(rng.integers(2, 5))
        k = int(rng.integers(n + 1, n + 4))
        J = rng.normal(size=(n, n))
        H = J.T @ J + 0.01 * np.eye(n)
        qdot, A = rng.normal(size=n), rng.normal(size=(k, n))
        b = -np.abs(rng.normal(size=k)) * rng.uniform(0.0, 1.0)
        x = constrained_velocity(qdot, H, A, b)
        assert np.all(A @ x >= b - 1e-7)
        expected = _brute_force_velocity(qdot, H, A, b)
        cost = (x - qdot) @ H @ (x - qdot)
        best = (expected - qdot) @ H @ (expected - qdot)
        assert cost >= best - 1e-6 * max(1.0, best)  # never better than the optimum
        scaled += bool(cost > best + 1e-6 * max(1.0, best))
    assert scaled < 40  # the active set's own answer, optimal, nearly always


def test_scene_yaml_errors_name_the_field():
    """Check unknown types, missing sizes and bad poses are refused naming the field."""
    cases = {
        'objects: [{name: a, type: cone, radius: 1}]': 'field "type"',
        'objects: [{name: a, type: box}]': 'needs field "size"',
        'objects: [{name: a, type: box, size: [1, 1]}]': 'field "size"',
        'objects: [{name: a, type: sphere, radius: 0.1, pose: {xyz: [0, 0]}}]':
            'field "pose".xyz',
        'objects: [{name: a, type: sphere, radius: -1}]': 'field "radius"',
        'objects: [{name: a, type: sphere, radius: 1, colour: red}]': 'unknown field "colour"',
        'objects: [{type: sphere, radius: 1}]': 'field "name"',
    }
    for text, expected in cases.items():
        with pytest.raises(SceneError, match=re.escape(expected)):
            parse_scene(text)
    (floor,) = parse_scene(FLOOR_SCENE)
    assert floor.shape.kind == 'box' and floor.shape.T_frame_shape[2, 3] == -0.1


def test_package_uris_resolve_through_the_search_path(tmp_path):
    """Check package://, file:// and plain paths, and the message for a missing package."""
    mesh = tmp_path / 'my_robot' / 'meshes' / 'link.stl'
    mesh.parent.mkdir(parents=True)
    mesh.write_text('solid x\nendsolid x\n')
    lookup = search_path_packages([str(tmp_path)])
    assert resolve_mesh_path('package://my_robot/meshes/link.stl', lookup) == str(mesh)
    assert resolve_mesh_path(f'file://{mesh}', lookup) == str(mesh)
    assert resolve_mesh_path(str(mesh), lookup) == str(mesh)
    with pytest.raises(GeometryError, match='package "other" not found'):
        resolve_mesh_path('package://other/link.stl', lookup)


def test_a_malformed_srdf_is_refused():
    """Check an SRDF that is not XML, or lacks a link, is an SrdfError."""
    with pytest.raises(SrdfError):
        srdf_disabled_pairs('<robot')
    with pytest.raises(SrdfError, match='lacks link1 or link2'):
        srdf_disabled_pairs('<robot><disable_collisions link1="a"/></robot>')


def example_model(name: str, srdf: bool = True, scene: str = FLOOR_SCENE):
    """Return the kinematics, model and URDF text of an example-robot-data arm."""
    arm = example_arm(name)
    text = open(arm.urdf_path, encoding='utf-8').read()
    kinematics = ChainKinematics(load_urdf_string(text, arm.base_link, arm.tip_link))
    srdf_text = open(arm.srdf_path, encoding='utf-8').read() if srdf else ''
    model, note = build_collision_model(text, kinematics, srdf_text, parse_scene(scene),
                                        search_path_packages([mesh_search_folder()]))
    return kinematics, model, text, note


@needs_example_robots
def test_srdf_and_automatic_pair_rules_on_the_panda():
    """Check the SRDF's pairs are left out; without one, adjacent and default-pose pairs."""
    kinematics, model, text, note = example_model('panda')
    srdf = srdf_disabled_pairs(open(example_arm('panda').srdf_path, encoding='utf-8').read())
    checked = {pair(*owners) for owners in model.pair_owners}
    assert not checked & set(srdf)
    assert 'disabled by the SRDF' in note and 'panda_finger_joint1' in note
    assert pair('floor', 'panda_link0') not in checked  # both fixed on the base
    assert pair('floor', 'panda_link1') in checked
    robot = robot_geometry(parse_robot(text), kinematics.chain,
                           search_path_packages([mesh_search_folder()]))
    automatic = automatic_disabled_pairs(kinematics, robot, samples=200)
    for link in range(7):
        assert automatic[pair(f'panda_link{link}', f'panda_link{link + 1}')] == 'Adjacent'
    assert automatic[pair('panda_hand', 'panda_link7')] == 'Adjacent'
    assert pair('panda_link1', 'panda_link7') not in automatic


@needs_example_robots
def test_scene_objects_allowed_links_leave_pairs_out():
    """Check allowed_links and an object attached to a link are honoured."""
    scene = ('objects: [{name: table, type: box, size: [1, 1, 0.1], pose: {xyz: [0.5, 0, 0]},'
             ' allowed_links: [shoulder_link]}, {name: tool, type: cylinder, radius: 0.03, '
             'length: 0.2, link: tool0, pose: {xyz: [0, 0, 0.1]}}]')
    _, model, _, _ = example_model('ur5', scene=scene)
    checked = {pair(*owners) for owners in model.pair_owners}
    assert pair('table', 'shoulder_link') not in checked
    assert pair('table', 'upper_arm_link') in checked
    assert pair('tool', 'table') in checked
    assert pair('tool', 'wrist_3_link') not in checked  # fixed on the same body
    assert 'allowed_links of the scene object: shoulder_link - table' in model.left_out_text()


def dense_first_contact(checker: CollisionChecker, generator, state, goal, padding):
    """Return the first dense sample (0.5 mm apart) closer than padding, by coal on all pairs."""
    Q, _ = generator.samples(state, goal, checker.model.motion_weights, 5e-4, 200000)
    for k, q in enumerate(Q):
        distances = [contact.distance for contact in
                     checker.exact_many(q, range(checker.pair_count))]
        if min(distances) < padding:
            return k
    return None


@needs_example_robots
def test_motion_checks_agree_with_a_brute_force_dense_check():
    """Check free/blocked verdicts of sampled motions against coal at every 0.5 mm."""
    kinematics, model, _, _ = example_model('ur5')
    padding = 0.0
    checker = CollisionChecker(model, padding, 0.01)
    chain = kinematics.chain
    n = chain.n_joints
    generator = OnlineGenerator(MotionLimits(chain.lower, chain.upper, np.full(n, 1.5),
                                             np.full(n, 5.0), np.full(n, 50.0)))
    rng = np.random.default_rng(3)
    home = np.array([0.0, -1.57, 1.57, -1.57, -1.57, 0.0])
    verdicts = []
    for _ in range(12):
        goal = home + rng.uniform(-1.2, 1.2, n)
        state = MotionState.at_rest(home)
        contact = checker.first_contact(*generator.samples(
            state, goal, model.motion_weights, checker.spacing, 20000))
        dense = dense_first_contact(checker, generator, state, goal, padding)
        if dense is not None:
            assert contact is not None  # a blocked motion is never called free
        verdicts.append(contact is None)
    assert any(verdicts) and not all(verdicts)


@needs_example_robots
def test_clearance_bounds_kept_from_coal_never_exceed_the_clearance():
    """
    Check the bounds that coal's last measures leave against coal at nearby configurations.

    Panda over the floor: every pair measured at ``q_0``; there the bound is coal's
    clearance, and at configurations up to 0.3 rad per joint away it is never above coal's
    clearance (a second checker measures); each bound is ``max(proxy,
    d_0 - W_p . |q - q_0|)``, above the proxy for some pairs 0.02 rad away (farther, the
    shapes' separating-axis gaps mostly beat it).
    """
    _, model, _, _ = example_model('panda')
    checker = CollisionChecker(model, 0.0, 0.01)
    reference = CollisionChecker(model, 0.0, 0.01)
    pairs = np.arange(checker.pair_count)
    home = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
    rng = np.random.default_rng(5)
    raised = 0
    for _ in range(30):
        q_0 = home + rng.uniform(-0.8, 0.8, len(home))
        measured = np.array([contact.distance for contact in checker.exact_many(q_0, pairs)])
        for step in (0.3, 0.02):
            # the face gap of a link over the floor is coal's clearance, to rounding
            assert checker.clearance_bounds(q_0, np.inf) == pytest.approx(measured, abs=1e-9)
            q = q_0 + rng.uniform(-step, step, len(home))
            bounds = checker.clearance_bounds(q, np.inf).copy()
            exact = np.array([contact.distance for contact in reference.exact_many(q, pairs)])
            assert np.all(bounds <= exact + 1e-9)
            proxy = reference.proxy_clearances(q, np.inf)[0]
            kept = measured - model.pair_weights @ np.abs(q - q_0)
            assert bounds == pytest.approx(np.fmax(proxy, kept), abs=1e-12)
            raised += int(np.sum(bounds > proxy + 1e-9))
    assert raised > 0


def sphere_gaps(model: CollisionModel, world_ends: np.ndarray,
                world_box: np.ndarray) -> np.ndarray:
    """
    Return each pair's bounding-sphere gap (m), in numpy, from placed elements.

    A capsule's sphere: its axis midpoint, half its axis length plus its radius; a box's:
    its center, its half diagonal. Against a box: the box's signed distance at the other
    sphere's center, less that sphere's radius.
    """
    kind, radius, half = (model.kernel_elements[1], model.kernel_elements[3],
                          model.kernel_elements[5])
    is_box = kind == BOX
    centers = np.where(is_box[:, None], world_box[:, :, 3], world_ends.mean(axis=1))
    reach = np.where(is_box, np.linalg.norm(half, axis=1),
                     radius + 0.5 * np.linalg.norm(world_ends[:, 1] - world_ends[:, 0], axis=1))
    gaps = []
    for a, b in zip(model.pair_a, model.pair_b):
        if is_box[a]:
            a, b = b, a
        if is_box[b]:
            R, p = world_box[b, :, :3], world_box[b, :, 3]
            local = np.abs(R.T @ (centers[a] - p)) - half[b]
            box_distance = (np.linalg.norm(np.maximum(local, 0.0))
                            + min(local.max(), 0.0))
            gaps.append(box_distance - reach[a])
        else:
            gaps.append(np.linalg.norm(centers[b] - centers[a]) - reach[a] - reach[b])
    return np.array(gaps)


@needs_example_robots
@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0), min_size=7, max_size=7),
       st.sampled_from([-np.inf, 0.0, 0.05, 0.3]))
def test_a_pair_beyond_the_cutoff_gets_its_sphere_gap_and_never_more_than_its_proxy(
        offsets, cutoff):
    """
    Check the proxy clearances with a cutoff against a numpy reference and the exact ones.

    Panda over the floor (capsules and a box): a pair whose bounding spheres are at least
    ``cutoff`` apart gets the sphere gap (:func:`sphere_gaps`), any other pair its exact
    proxy clearance (cutoff inf); either is at most the exact one.
    """
    _, model, _, _ = example_model('panda')
    checker = CollisionChecker(model, 0.0, 0.01)
    q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]) + np.array(offsets)
    exact = checker.proxy_clearances(q, np.inf)[0]
    with_cutoff = checker.proxy_clearances(q, cutoff)[0]
    checker.clearance_bounds(q, np.inf)  # places the elements at q
    gaps = sphere_gaps(model, checker._world_ends, checker._world_box)
    beyond = gaps >= cutoff
    np.testing.assert_allclose(with_cutoff[beyond], gaps[beyond], atol=1e-12)
    np.testing.assert_array_equal(with_cutoff[~beyond], exact[~beyond])
    assert np.all(with_cutoff <= exact + 1e-12)


@needs_example_robots
def test_the_hulls_gap_raises_two_capsules_proxy_clearance():
    """
    Check a capsule pair's proxy clearance against the capsules' distance alone.

    Panda (mesh hulls in every capsule), 20 random configurations: the proxy clearance is
    never below the capsules' distance (the max of it and the hulls' gap along the line
    between the capsules' closest points) and above it for most pairs (a capsule fitted
    around a link stands proud of the mesh).
    """
    _, model, _, _ = example_model('panda')
    checker = CollisionChecker(model, 0.0, 0.01)
    kind, radius = model.kernel_elements[1], model.kernel_elements[3]
    home = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
    rng = np.random.default_rng(11)
    raised = compared = 0
    for _ in range(20):
        q = home + rng.uniform(-0.8, 0.8, len(home))
        proxy = checker.proxy_clearances(q, np.inf)[0]
        checker.clearance_bounds(q, np.inf)  # places the elements at q
        ends = checker._world_ends
        for p, (a, b) in enumerate(zip(model.pair_a, model.pair_b)):
            if kind[a] == BOX or kind[b] == BOX:
                continue
            capsules = capsule_capsule_distance(ends[a, 0], ends[a, 1], radius[a], ends[b, 0],
                                                ends[b, 1], radius[b], np.empty(3),
                                                np.empty(3))
            assert proxy[p] >= capsules - 1e-12
            compared += 1
            raised += int(proxy[p] > capsules + 1e-6)
    assert raised > compared // 2


@needs_example_robots
def test_configurations_in_collision_have_negative_clearance_named():
    """Check a UR5 folded into the floor gives the floor pair, negative, named."""
    _, model, _, _ = example_model('ur5')
    checker = CollisionChecker(model, 0.0, 0.01)
    low = np.array([0.0, 0.6, 0.0, 0.0, 0.0, 0.0])  # shoulder lifted down: the arm dives
    contact = checker.nearest(low)
    assert contact.distance < 0.0 and 'floor' in contact.owners


@needs_example_robots
def test_normal_rates_match_finite_differences():
    """
    Check n^T J_p of points fixed on each body of a UR5 against central differences.

    One call for every body (the damper's rows in one pass), each with its own normal.
    """
    _, model, _, _ = example_model('ur5')
    checker = CollisionChecker(model, 0.0, 0.01)
    q = np.array([0.3, -1.1, 1.4, -0.9, 0.7, 0.2])
    rng = np.random.default_rng(3)
    bodies = list(range(model.kinematics.n_joints + 1))
    points = rng.uniform(-0.6, 0.6, (len(bodies), 3))
    normals = rng.normal(size=(len(bodies), 3))
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    checker._walk_chain(q)
    local = [np.linalg.solve(checker._bodies[body][:, :3], point - checker._bodies[body][:, 3])
             for body, point in zip(bodies, points)]  # each point in its body's frame

    def moved(q_moved: np.ndarray) -> np.ndarray:
        """Return the points (k, 3) fixed on their bodies, at ``q_moved``."""
        checker._walk_chain(q_moved)
        return np.array([checker._bodies[body][:, :3] @ p + checker._bodies[body][:, 3]
                         for body, p in zip(bodies, local)])
    h = 1e-6
    velocities = np.stack([(moved(q + h * e) - moved(q - h * e)) / (2.0 * h)
                           for e in np.eye(len(q))], axis=2)  # (k, 3, n)
    expected = np.einsum('kc,kcj->kj', normals, velocities)
    assert expected[0] == pytest.approx(0.0) and np.abs(expected[-1]).max() > 0.1
    assert checker.normal_rates(q, bodies, points, normals) == pytest.approx(expected, abs=1e-6)


@needs_example_robots
def test_clearance_rates_are_the_derivatives_of_the_clearances(monkeypatch):
    """
    Check each contact's row against central differences of its coal clearance (UR5).

    Self and floor pairs within 0.3 m, apart by more than 5 mm (smooth there). The rows
    are kept for the joints: asked again at the same joints, none is computed; another
    measure of a pair (other witness arrays) or other joints compute them anew.
    """
    _, model, _, _ = example_model('ur5')
    checker = CollisionChecker(model, 0.0, 0.01)
    q = np.array([-0.1, -0.81, 2.21, -1.02, -1.74, -0.01])
    contacts = [contact for contact in checker.contacts(q, 0.3) if contact.distance > 0.005]
    rows = checker.clearance_rates(q, contacts)
    reference = CollisionChecker(model, 0.0, 0.01)
    pairs = [contact.pair for contact in contacts]

    def clearances(q_moved: np.ndarray) -> np.ndarray:
        return np.array([contact.distance for contact in reference.exact_many(q_moved, pairs)])
    h = 1e-4
    expected = np.stack([(clearances(q + h * e) - clearances(q - h * e)) / (2.0 * h)
                         for e in np.eye(len(q))], axis=1)
    assert len(contacts) > 5 and np.abs(expected).max() > 0.1
    assert rows == pytest.approx(expected, abs=1e-6)
    computed = []
    normal_rates = checker.normal_rates
    monkeypatch.setattr(checker, 'normal_rates',
                        lambda *args: computed.append(len(args[2])) or normal_rates(*args))
    assert np.array_equal(checker.clearance_rates(q, contacts[::-1]), rows[::-1])
    assert not computed
    again = replace(contacts[0], p_a=contacts[0].p_a.copy())
    assert checker.clearance_rates(q, [again]) == pytest.approx(rows[:1], abs=1e-12)
    assert computed == [2]  # its two witness points
    q_other = q + 0.01
    assert checker.clearance_rates(q_other, checker.exact_many(q_other, pairs)).shape == rows.shape
    assert computed == [2, 2 * len(pairs)]


@needs_example_robots
def test_the_lazy_damper_equals_the_damper_with_every_row():
    """
    Check rows built only where they may bind give the solution with every pair's row.

    UR5 over the floor, random configurations near it and random velocities (from rest to
    2 rad/s): the velocity, and the pairs at or near the stop distance, agree.
    """
    _, model, _, _ = example_model('ur5')
    checker = CollisionChecker(model, 0.005, 0.01)
    rule = DamperRule(0.02, 0.15, 0.26, checker.padding)
    certain_above = 0.022
    rng = np.random.default_rng(11)
    home = np.array([0.0, -1.57, 1.57, -1.57, -1.57, 0.0])
    lazy_rows = all_rows = 0
    for _ in range(150):
        q = home + rng.uniform(-1.0, 1.0, 6)
        qdot = rng.uniform(-1.0, 1.0, 6) * rng.choice([0.0, 1e-3, 0.1, 2.0])
        J = rng.normal(size=(6, 6))
        H = J.T @ J + 0.01 * np.eye(6)
        x, contacts = damped_velocity(checker, q, qdot, H, rule, certain_above)
        every = checker.contacts(q, rule.slowdown_distance)
        A, b = damper_rows(checker, q, every, rule)
        expected = constrained_velocity(qdot, H, A, b)
        assert x == pytest.approx(expected, abs=1e-9)
        near = {contact.pair for contact in every if contact.distance <= certain_above}
        assert near <= {contact.pair for contact in contacts}
        lazy_rows, all_rows = lazy_rows + len(contacts), all_rows + len(every)
    assert all_rows > 0 and lazy_rows < all_rows  # rows were needed, and some were not


def model_over_table(urdf: str, tip_link: str, table_xyz) -> CollisionModel:
    """Return the collision model of ``urdf`` (base link ``base``) over a 1 x 1 x 0.1 m table."""
    scene = ('objects: [{name: table, type: box, size: [1.0, 1.0, 0.1], '
             f'pose: {{xyz: [{", ".join(str(value) for value in table_xyz)}]}}}}]')
    kinematics = ChainKinematics(load_urdf_string(urdf, 'base', tip_link))
    model, _ = build_collision_model(urdf, kinematics, '', parse_scene(scene),
                                     search_path_packages([]))
    return model


@settings(max_examples=60, deadline=None)
@given(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))
def test_proxy_clearances_of_primitives_never_exceed_coal(angle_1, angle_2):
    """
    Check the proxies of a box, a cylinder and a sphere over a table against coal.

    A two-joint arm: its proxy clearances (capsules raised to the separating-axis gaps of
    the box's corners and the prism around the cylinder) are never above coal's clearance,
    and never positive where coal finds the shapes in collision.
    """
    urdf = ('<robot name="r"><link name="base"/>'
            '<link name="upper"><collision><origin xyz="0 0 0.2"/><geometry>'
            '<cylinder radius="0.05" length="0.4"/></geometry></collision></link>'
            '<link name="lower"><collision><origin xyz="0.15 0 0"/><geometry>'
            '<box size="0.3 0.06 0.04"/></geometry></collision><collision>'
            '<origin xyz="0.32 0 0"/><geometry><sphere radius="0.04"/></geometry>'
            '</collision></link>'
            '<joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>'
            '<origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>'
            '<limit lower="-3" upper="3" velocity="1" effort="1"/></joint>'
            '<joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/>'
            '<origin xyz="0 0 0.4"/><axis xyz="0 1 0"/>'
            '<limit lower="-3" upper="3" velocity="1" effort="1"/></joint></robot>')
    model = model_over_table(urdf, 'lower', [0.4, 0.0, 0.05])
    checker = CollisionChecker(model, 0.0, 0.01)
    q = np.array([angle_1, angle_2])
    proxies = checker.proxy_clearances(q, np.inf)[0]
    exact = [contact.distance for contact in
             CollisionChecker(model, 0.0, 0.01).exact_many(q, np.arange(len(model.pairs)))]
    assert len(model.pairs) == 3
    # in collision a proxy only has to say so: coal measures the depth
    assert np.all(proxies <= np.maximum(exact, 0.0) + 1e-9)


def test_a_cylinder_standing_over_a_table_is_cleared_at_its_height():
    """Check the prism around a cylinder: upright over a table its gap is coal's clearance."""
    urdf = ('<robot name="r"><link name="base"/><link name="post"><collision>'
            '<geometry><cylinder radius="0.05" length="0.4"/></geometry></collision></link>'
            '<joint name="lift" type="prismatic"><parent link="base"/><child link="post"/>'
            '<axis xyz="0 0 1"/><limit lower="0" upper="1" velocity="1" effort="1"/>'
            '</joint></robot>')
    checker = CollisionChecker(model_over_table(urdf, 'post', [0.0, 0.0, -0.3]), 0.0, 0.01)
    for height in (0.0, 0.03, 0.2):  # the post's end 0.2 m below its origin, table top -0.25
        proxy = checker.proxy_clearances(np.array([height]), np.inf)[0, 0]
        assert proxy == pytest.approx(0.05 + height, abs=1e-9)  # the capsule: 0.05 lower
        assert proxy == pytest.approx(checker.exact(np.array([height]), 0).distance, abs=1e-6)


def test_scene_without_robot_geometry_checks_nothing():
    """Check a URDF without collision elements gives no pairs (nothing can collide)."""
    urdf = ('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
            '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint></robot>')
    kinematics = ChainKinematics(load_urdf_string(urdf, 'a', 'b'))
    model, _ = build_collision_model(urdf, kinematics, '', parse_scene(FLOOR_SCENE),
                                     search_path_packages([]))
    assert isinstance(model, CollisionModel) and model.pairs == []
    assert CollisionChecker(model, 0.0, 0.01).nearest(np.zeros(1)) is None


def test_a_mesh_that_cannot_be_found_is_a_clear_error(tmp_path):
    """Check a URDF naming a missing mesh fails with the link and file named."""
    urdf = ('<robot name="r"><link name="a"/><link name="b"><collision><geometry>'
            '<mesh filename="package://nowhere/b.stl"/></geometry></collision></link>'
            '<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>'
            '</robot>')
    kinematics = ChainKinematics(load_urdf_string(urdf, 'a', 'b'))
    with pytest.raises(GeometryError, match='package "nowhere" not found'):
        build_collision_model(urdf, kinematics, '', [], search_path_packages([str(tmp_path)]))


def ur5_over_the_floor():
    """Return the example UR5 (full pose), its collision model over a floor, the reference."""
    arm_files = example_arm('ur5')
    text = open(arm_files.urdf_path, encoding='utf-8').read()
    arm = ControlledArm.from_urdf(text, 'base_link', 'tool0', 'x y z rx ry rz')
    model, _ = build_collision_model(text, arm.kinematics,
                                     open(arm_files.srdf_path, encoding='utf-8').read(),
                                     parse_scene(FLOOR_SCENE), search_path_packages([
                                         mesh_search_folder()]))
    reference = ReferenceCollisions(arm_files.urdf_path, arm_files.srdf_path,
                                    mesh_search_folder(), arm.chain.joint_names)
    return arm, model, reference


def follow_target(controller, arm, reference, q, now, T_target):
    """
    Cycle a perfect arm at 100 Hz until the target is reached or refused (8 s at most).

    Every command is checked with the reference. Returns (outcome, q, now): outcome
    'reached', 'refused' (the message names a pair) or 'timed out'.
    """
    controller.set_target('', T_target[:3, 3], matrix_to_quaternion(T_target[:3, :3]), 'pose')
    for _ in range(800):
        now += 0.01
        command = controller.cycle(now).command
        if command is not None:
            q = command.q
            assert reference.colliding(q) == [], q
        controller.update_joint_state(arm.chain.joint_names, q, now)
        message = controller.status.message
        if message.startswith('target refused'):
            assert ' into ' in message
            return 'refused', q, now
        e_p, e_o = pose_error(T_target, arm.kinematics.tip_pose(q))
        if np.linalg.norm(e_p) < 1e-3 and np.linalg.norm(e_o) < 1e-2 and not np.any(
                command.velocity):
            return 'reached', q, now
    return 'timed out', q, now


@needs_example_robots
def test_solve_mode_never_commands_a_collision_on_random_free_targets():
    """
    Check the controller on the example UR5 over a floor, targets from free configurations.

    A perfect arm follows every command; the reference (Pinocchio + coal on the meshes, the
    SRDF, the floor) checks every one of them. Each target is reached or refused with the
    pair named.
    """
    arm, model, reference = ur5_over_the_floor()
    controller = IkController(arm, Settings(solve_time_budget=0.02), collision=CollisionGuard(
        CollisionChecker(model, 0.0, 0.01)))
    q = np.array([0.0, -1.57, 1.57, -1.57, -1.57, 0.0])
    now = 0.0
    controller.update_joint_state(arm.chain.joint_names, q, now)
    rng = np.random.default_rng(5)
    lower, upper = arm.chain.sampling_bounds()
    outcomes = []
    while len(outcomes) < 12:
        q_target = rng.uniform(lower, upper)
        if reference.colliding(q_target):
            continue
        outcome, q, now = follow_target(controller, arm, reference, q, now,
                                        arm.kinematics.tip_pose(q_target))
        outcomes.append(outcome)
    assert 'timed out' not in outcomes
    assert outcomes.count('reached') >= 10


@needs_example_robots
def test_solve_mode_checks_the_motion_not_only_the_solution():
    """
    Check a free target whose straight motions cross the floor is never commanded into it.

    From ``UR5_FLOOR_CROSSING``'s start the nearest solutions' straight motions sweep the
    wrist through the floor: motions are found blocked, and the target is reached another
    way (another solution, a detour) or refused naming a pair, with no command in contact.
    """
    arm, model, reference = ur5_over_the_floor()
    guard = CollisionGuard(CollisionChecker(model, 0.0, 0.01))
    blocked = []
    checked_goal_contact = guard.goal_contact
    guard.goal_contact = lambda *args: blocked.append(checked_goal_contact(*args)) or \
        blocked[-1]
    controller = IkController(arm, Settings(solve_time_budget=0.02), collision=guard)
    q, q_goal = (np.array(q) for q in UR5_FLOOR_CROSSING)
    assert reference.colliding(q) == reference.colliding(q_goal) == []
    controller.update_joint_state(arm.chain.joint_names, q, 0.0)
    outcome, _, _ = follow_target(controller, arm, reference, q, 0.0,
                                  arm.kinematics.tip_pose(q_goal))
    assert outcome in ('reached', 'refused')
    assert any(contact is not None and 'floor' in contact.text() for contact in blocked)
