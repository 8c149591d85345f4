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
The physics layer against closed forms: inertia folding, gains, sag, saturation, contact.

A pendulum (one hinge about y, a point-like mass ``m`` at ``l`` along x, gravity -z) has the
gravity torque ``m g l cos q`` about its joint: a position loop of stiffness ``kp`` alone
holds it ``m g l / kp`` rad low at q = 0; with gravity compensation it holds it exactly.
"""

import math

import mujoco
import numpy as np
import pytest
from ros_ik.collision.collision_setup import build_collision_model
from ros_ik.collision.scene import parse_scene
from ros_ik.collision.shapes import search_path_packages
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_urdf_path, gains_beside,
                                            srdf_beside)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_loader import load_urdf_string, parse_robot
from ros_ik.physics.arm_simulation import ArmSimulation, Contact
from ros_ik.physics.drive_monitor import DriveMonitor
from ros_ik.physics.link_inertia import BodyInertia, combined_inertia, link_inertia
from ros_ik.physics.mujoco_arm import (build_arm_model, joint_drives, joint_inertia,
                                       PhysicsOptions)
from ros_ik.physics.servo_gains import (derived_gains, gains_with_file, GainsError,
                                        parse_gains, ServoGains)
from ros_ik_testing.example_arms import example_arm, mesh_search_folder

G = 9.81
MASS, LEVER = 2.0, 0.5  # kg, m: the pendulum's bob
NO_PAIRS_SRDF = '<robot name="pendulum"/>'


def pendulum_urdf(effort: float = 50.0) -> str:
    """Return the pendulum's URDF: base -> hinge (about y) -> arm (bob at LEVER) -> tip."""
    return (
        '<robot name="pendulum"><link name="base"/>'
        '<link name="arm"><inertial><origin xyz="0.5 0 0"/><mass value="2.0"/>'
        '<inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial>'
        '<collision><origin xyz="0.5 0 0"/><geometry><sphere radius="0.05"/></geometry>'
        '</collision></link><link name="tip"/>'
        '<joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/>'
        f'<axis xyz="0 1 0"/><limit lower="-3" upper="3" velocity="2" effort="{effort}"/>'
        '</joint><joint name="tool" type="fixed"><parent link="arm"/><child link="tip"/>'
        '<origin xyz="0.5 0 0"/></joint></robot>')


def simulation_of(urdf: str, base: str, tip: str, q, gains: ServoGains = None,
                  scene: str = '', srdf: str = NO_PAIRS_SRDF,
                  options: PhysicsOptions = PhysicsOptions(),
                  package_directory=lambda package: None) -> ArmSimulation:
    """Return a simulation of ``urdf`` at rest at ``q`` (derived gains unless given)."""
    kinematics = ChainKinematics(load_urdf_string(urdf, base, tip))
    collision, _ = build_collision_model(urdf, kinematics, srdf,
                                         parse_scene(scene) if scene else [],
                                         package_directory)
    robot = parse_robot(urdf)
    drives = joint_drives(robot, kinematics.chain)
    arm = build_arm_model(robot, collision, drives, options)
    q = np.asarray(q, dtype=float)
    return ArmSimulation(arm, gains or derived_gains(joint_inertia(arm, q)), drives.effort, q)


def hold(simulation: ArmSimulation, q_ref, seconds: float) -> None:
    """Step the simulation toward a fixed reference for ``seconds`` simulated seconds."""
    q_ref = np.asarray(q_ref, dtype=float)
    steps = int(round(seconds / simulation.arm.model.opt.timestep))
    simulation.advance(q_ref, np.zeros_like(q_ref), steps)


def test_parallel_axis_two_point_masses():
    """Check two 1 kg points at x = +-d: centre 0, I_yy = I_zz = 2 d^2, I_xx = 0."""
    d = 0.3
    parts = [BodyInertia(1.0, np.array([sign * d, 0.0, 0.0]), np.zeros((3, 3)))
             for sign in (1.0, -1.0)]
    body = combined_inertia(parts)
    assert body.mass == 2.0
    np.testing.assert_allclose(body.com, 0.0, atol=1e-15)
    np.testing.assert_allclose(body.inertia, np.diag([0.0, 2 * d * d, 2 * d * d]), atol=1e-15)
    assert combined_inertia([]) is None


def test_link_inertia_is_rotated_into_the_body_frame():
    """Check a rod inertia (I_zz small) turned 90 deg about x: its axis becomes -y."""
    class Values:
        ixx, iyy, izz, ixy, ixz, iyz = 2.0, 2.0, 0.5, 0.0, 0.0, 0.0

    class Origin:
        xyz, rpy = [0.0, 0.0, 0.1], [math.pi / 2, 0.0, 0.0]

    class Inertial:
        mass, inertia, origin = 3.0, Values(), Origin()

    T_body_link = np.eye(4)
    T_body_link[:3, 3] = [1.0, 0.0, 0.0]
    part = link_inertia(Inertial(), T_body_link)
    np.testing.assert_allclose(part.com, [1.0, 0.0, 0.1])
    np.testing.assert_allclose(part.inertia, np.diag([2.0, 0.5, 2.0]), atol=1e-12)
    assert link_inertia(None, T_body_link) is None


def test_derived_gains_closed_form():
    """Check kp = I (2 pi f)^2 and kd = 2 zeta I (2 pi f)."""
    gains = derived_gains(np.array([2.0, 0.5]), bandwidth=3.0, damping_ratio=0.7)
    omega = 2 * math.pi * 3.0
    np.testing.assert_allclose(gains.kp, [2.0 * omega ** 2, 0.5 * omega ** 2])
    np.testing.assert_allclose(gains.kd, [2 * 0.7 * 2.0 * omega, 2 * 0.7 * 0.5 * omega])


def test_gains_file_overrides_named_joints_and_rejects_bad_ones():
    """Check the ros2_control format: named joints replaced, others derived, errors named."""
    derived = ServoGains(np.array([1.0, 2.0]), np.array([0.1, 0.2]))
    gains, left = gains_with_file(derived, ('a', 'b'),
                                  parse_gains('gains:\n  b: {p: 50.0, d: 3.0}\n', 'f'), 'f')
    np.testing.assert_allclose(gains.kp, [1.0, 50.0])
    np.testing.assert_allclose(gains.kd, [0.1, 3.0])
    assert left == ['a']
    for text, words in (('gains: 3', 'no "gains:"'), ('gains:\n  a: {d: 1}', 'needs at least p'),
                        ('gains:\n  a: {p: -1, d: 1}', 'p > 0'), ('[', 'not YAML'),
                        ('gains:\n  a: {p: x}', 'not a number')):
        with pytest.raises(GainsError, match=words):
            parse_gains(text, 'f')
    with pytest.raises(GainsError, match='not in the chain: c'):
        gains_with_file(derived, ('a', 'b'), {'c': (1.0, 0.0)}, 'f')


@pytest.mark.parametrize('name', sorted(BUNDLED_ARMS))
def test_bundled_arm_model_matches_its_urdf(name):
    """Check joints, ranges, effort limits, masses and shapes of each bundled arm's model."""
    arm = BUNDLED_ARMS[name]
    path = bundled_urdf_path(name)
    urdf = open(path, encoding='utf-8').read()
    srdf = open(srdf_beside(path), encoding='utf-8').read()
    simulation = simulation_of(urdf, arm.base_link, arm.tip_link, arm.home, srdf=srdf)
    model = simulation.arm.model
    chain = load_urdf_string(urdf, arm.base_link, arm.tip_link)
    robot = parse_robot(urdf)
    assert model.njnt == chain.n_joints == model.nu
    np.testing.assert_allclose(model.jnt_range[:, 0], chain.lower)
    np.testing.assert_allclose(model.jnt_range[:, 1], chain.upper)
    efforts = [robot.joint_map[joint].limit.effort for joint in chain.joint_names]
    np.testing.assert_allclose(model.actuator_forcerange[:, 1], efforts)
    moving_links = [joint.child for joint in robot.joints if joint.child != arm.base_link
                    and joint.child != robot.get_root()]
    urdf_mass = sum(robot.link_map[link].inertial.mass for link in moving_links
                    if robot.link_map[link].inertial is not None)
    assert model.body_mass[1:].sum() == pytest.approx(urdf_mass, rel=1e-9)
    assert simulation.arm.links_without_inertial == ()
    assert model.ngeom == sum(len(robot.link_map[link].collisions) for link in robot.link_map)


@pytest.mark.parametrize('name', sorted(BUNDLED_ARMS))
def test_bundled_gains_files_name_every_joint(name):
    """Check each bundled arm ships gains for exactly its joints."""
    arm = BUNDLED_ARMS[name]
    path = gains_beside(bundled_urdf_path(name))
    chain = load_urdf_string(open(bundled_urdf_path(name), encoding='utf-8').read(),
                             arm.base_link, arm.tip_link)
    assert sorted(parse_gains(open(path, encoding='utf-8').read(), path)) == sorted(
        chain.joint_names)


@pytest.mark.parametrize('name', ['panda', 'ur5'])
def test_held_pose_under_gravity_stays_within_a_millimetre(name):
    """Check the home pose held for 2 s with the shipped gains: the tool moves < 1 mm."""
    arm = BUNDLED_ARMS[name]
    path = bundled_urdf_path(name)
    urdf = open(path, encoding='utf-8').read()
    gains_file = gains_beside(path)
    chain = load_urdf_string(urdf, arm.base_link, arm.tip_link)
    gains, _ = gains_with_file(ServoGains(np.zeros(chain.n_joints), np.zeros(chain.n_joints)),
                               chain.joint_names,
                               parse_gains(open(gains_file, encoding='utf-8').read(), ''), '')
    simulation = simulation_of(urdf, arm.base_link, arm.tip_link, arm.home, gains=gains,
                               srdf=open(srdf_beside(path), encoding='utf-8').read())
    kinematics = ChainKinematics(chain)
    start = kinematics.tip_pose(np.array(arm.home))[:3, 3]
    drift = []
    for _ in range(20):
        hold(simulation, arm.home, 0.1)
        drift.append(np.linalg.norm(kinematics.tip_pose(simulation.q)[:3, 3] - start))
    assert max(drift) < 1e-3
    assert simulation.contacts() == []


def test_sag_without_gravity_compensation_is_weight_over_stiffness():
    """Check a PD loop alone holds the pendulum m g l / kp low; compensated, at the goal."""
    kp = 2000.0
    gains = ServoGains(np.array([kp]), np.array([40.0]))
    sagging = simulation_of(pendulum_urdf(), 'base', 'tip', [0.0], gains,
                            options=PhysicsOptions(gravity_compensation=False))
    hold(sagging, [0.0], 2.0)
    assert sagging.q[0] == pytest.approx(MASS * G * LEVER / kp, rel=0.01)
    compensated = simulation_of(pendulum_urdf(), 'base', 'tip', [0.0], gains)
    hold(compensated, [0.0], 2.0)
    assert abs(compensated.q[0]) < 1e-6
    assert compensated.effort[0] == pytest.approx(-MASS * G * LEVER, rel=1e-3)


def test_a_weak_drive_saturates_and_the_arm_falls():
    """Check an effort limit below the weight's torque: the drive saturates, the arm sags."""
    limit = 0.5 * MASS * G * LEVER
    simulation = simulation_of(pendulum_urdf(effort=limit), 'base', 'tip', [0.0])
    hold(simulation, [0.0], 0.3)
    assert simulation.saturation()[0] == pytest.approx(1.0)
    assert abs(simulation.effort[0]) == pytest.approx(limit)
    assert simulation.q[0] > 0.1  # falls with the weight: +y rotation takes x down


def test_velocity_feed_forward_tracks_a_ramp():
    """Check a constant-speed reference: error ~0 with v_ref, kd v / kp without it."""
    kp, kd, speed = 2000.0, 40.0, 0.5
    simulation = simulation_of(pendulum_urdf(), 'base', 'tip', [0.0],
                               ServoGains(np.array([kp]), np.array([kd])),
                               options=PhysicsOptions(gravity=(0.0, 0.0, 0.0)))
    period = 0.002
    for k in range(500):  # 1 s of a ramp updated every 2 ms, as the node's loop does
        simulation.advance(np.array([speed * k * period]), np.array([speed]), 2)
    assert abs(speed * 500 * period - simulation.q[0]) < 0.01 * kd * speed / kp


@pytest.mark.parametrize('chunk_steps', [2, 50])
def test_a_reference_given_in_late_chunks_is_followed_along_its_curve(chunk_steps):
    """
    Check ``advance_between``: an accelerating reference given every 2 ms or every 50 ms.

    ``q(t) = a t^2 / 2`` (a = 5 rad/s^2) for 0.6 s, the loop handing over the reference
    where the last chunk ended and the reference now (a starved loop sees 50 ms chunks): the
    arm stays within 2 mrad of the reference at every chunk's end in both cases (a reference
    extrapolated from the chunk's end instead leads by the speed times the chunk, 0.15 rad).
    """
    acceleration, timestep = 5.0, 0.001
    simulation = simulation_of(pendulum_urdf(), 'base', 'tip', [0.0],
                               ServoGains(np.array([2000.0]), np.array([40.0])),
                               options=PhysicsOptions(gravity=(0.0, 0.0, 0.0)))

    def reference(t: float):
        return np.array([0.5 * acceleration * t * t]), np.array([acceleration * t])
    errors = []
    for chunk in range(int(0.6 / (chunk_steps * timestep))):
        start, end = (reference(chunk_steps * timestep * k) for k in (chunk, chunk + 1))
        simulation.advance_between(start, end, chunk_steps)
        errors.append(abs(end[0][0] - simulation.q[0]))
    assert max(errors) < 2e-3, max(errors)


def test_contact_with_a_scene_box_is_reported_and_stops_the_arm():
    """Check a box in the swing: the bob stops on it and the contact names both."""
    scene = ('objects:\n  - {name: block, type: box, size: [0.1, 0.1, 0.1], '
             'pose: {xyz: [0.354, 0.0, 0.354]}}\n')  # on the bob's arc, 45 deg up
    simulation = simulation_of(pendulum_urdf(), 'base', 'tip', [0.0], scene=scene)
    hold(simulation, [-math.pi / 2], 1.5)  # -y rotation takes x up, toward +z
    contacts = simulation.contacts()
    assert contacts and {contacts[0].first, contacts[0].second} == {'arm', 'block'}
    assert contacts[0].force > 1.0
    assert 0.3 < -simulation.q[0] < math.pi / 4  # stopped on the block, below its centre


def test_contacts_between_pairs_the_srdf_disables_are_not_simulated():
    """Check a disabled pair: a box on the base the bob passes through never touches it."""
    urdf = pendulum_urdf().replace(
        '<link name="base"/>', '<link name="base"><collision><origin xyz="0.5 0 0"/>'
        '<geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>')
    srdf = ('<robot name="pendulum"><disable_collisions link1="base" link2="arm" '
            'reason="Never"/></robot>')
    simulation = simulation_of(urdf, 'base', 'tip', [0.3], srdf=srdf)
    hold(simulation, [0.0], 0.5)
    assert abs(simulation.q[0]) < 1e-3 and simulation.contacts() == []


def test_new_scene_keeps_the_joint_state():
    """Check replacing the model (a new scene) keeps positions and velocities."""
    simulation = simulation_of(pendulum_urdf(), 'base', 'tip', [0.2])
    simulation.advance(np.array([0.4]), np.array([1.0]), 50)
    q, velocity = simulation.q, simulation.velocity
    other = simulation_of(pendulum_urdf(), 'base', 'tip', [0.0], scene=(
        'objects:\n  - {name: far, type: sphere, radius: 0.1, pose: {xyz: [3, 0, 0]}}\n'))
    simulation.replace_model(other.arm)
    np.testing.assert_allclose(simulation.q, q)
    np.testing.assert_allclose(simulation.velocity, velocity)
    assert 'far' in simulation.arm.geom_owners


def test_meshes_of_a_real_arm_become_hull_geoms():
    """Check example-robot-data's UR5 (package:// STL meshes, inertials) builds and holds."""
    arm = example_arm('ur5')
    if arm is None:
        pytest.skip('example-robot-data is not installed')
    folder = mesh_search_folder()
    urdf = open(arm.urdf_path, encoding='utf-8').read()
    start = np.array([0.0, -1.2, 1.2, -1.5, -1.5, 0.0])
    simulation = simulation_of(urdf, arm.base_link, arm.tip_link, start,
                               srdf=open(arm.srdf_path, encoding='utf-8').read(),
                               package_directory=search_path_packages([folder]))
    model = simulation.arm.model
    assert model.nmesh > 0
    assert (model.geom_type == mujoco.mjtGeom.mjGEOM_MESH).sum() == model.nmesh
    hold(simulation, start, 1.0)
    assert np.abs(simulation.q - start).max() < 1e-3


def test_drive_monitor_counts_contact_events_and_keeps_peaks():
    """Check a touch that lasts is one event, a new one another; peaks per window and run."""
    monitor = DriveMonitor(2)
    touch = [Contact('arm', 'table', 5.0)]
    assert monitor.sample(np.array([0.1, -0.3]), 0.01, np.array([0.2, 1.0]), touch) == touch
    assert monitor.sample(np.zeros(2), 0.0, np.zeros(2), [Contact('arm', 'table', 9.0)]) == []
    monitor.sample(np.zeros(2), 0.0, np.zeros(2), [])
    monitor.sample(np.zeros(2), 0.0, np.zeros(2), touch)
    assert monitor.contact_events == 2
    window = monitor.take_window()
    np.testing.assert_allclose(window.joint_error, [0.1, 0.3])
    assert window.contact_force == {('arm', 'table'): 9.0}
    assert list(monitor.saturated_joints(window)) == [1]
    assert monitor.take_window().tool_error == 0.0 and monitor.run.tool_error == 0.01


def test_gravity_is_given_in_the_base_frame():
    """Check gravity along base +x on the bob held up (at +z): it sags m g l / kp toward +x."""
    kp = 2000.0
    up = -math.pi / 2  # -y rotation takes the bob from +x up to +z
    simulation = simulation_of(pendulum_urdf(), 'base', 'tip', [up],
                               ServoGains(np.array([kp]), np.array([40.0])),
                               options=PhysicsOptions(gravity=(G, 0.0, 0.0),
                                                      gravity_compensation=False))
    hold(simulation, [up], 2.0)
    assert simulation.q[0] - up == pytest.approx(MASS * G * LEVER / kp, rel=0.01)
