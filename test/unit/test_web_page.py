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

"""The browser view's parts without a browser: the URDF's visuals, markers, the page's state."""

import numpy as np
import pytest
from ros_ik.collision.shapes import search_path_packages
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path, load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import rpy_to_matrix, transform
from ros_ik.kinematics.urdf_loader import load_urdf_string, parse_robot
from ros_ik.web.markers import MarkerDrawing
from ros_ik.web.page import arm_reach, initial_camera, WebView, wxyz
from ros_ik.web.robot_visuals import visual_shapes
from ros_ik_testing.example_arms import example_arm, mesh_search_folder
from visualization_msgs.msg import Marker

viser = pytest.importorskip('viser')


def test_bundled_visuals_keep_their_bodies_poses_and_colours():
    """Check the UR5's visuals: one per link with a visual, URDF colours, body frames."""
    urdf = open(bundled_urdf_path('ur5'), encoding='utf-8').read()
    arm = BUNDLED_ARMS['ur5']
    chain = load_urdf_string(urdf, arm.base_link, arm.tip_link)
    robot = parse_robot(urdf)
    shapes, problems = visual_shapes(robot, chain, lambda package: None)
    assert problems == []
    assert len(shapes) == sum(len(link.visuals) for link in robot.links)
    assert {shape.body for shape in shapes} == set(range(chain.n_joints + 1))
    assert (1.0, 0.5, 0.1, 1.0) in {shape.rgba for shape in shapes}  # the "orange" material


def test_a_missing_mesh_is_reported_and_the_rest_drawn():
    """Check a visual whose mesh file is missing: one problem line, the other visual kept."""
    urdf = ('<robot name="r"><link name="base"><visual><geometry><box size="1 1 1"/>'
            '</geometry></visual><visual><geometry><mesh filename="package://nowhere/a.stl"/>'
            '</geometry></visual></link><link name="tip"/><joint name="j" type="revolute">'
            '<parent link="base"/><child link="tip"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint></robot>')
    shapes, problems = visual_shapes(parse_robot(urdf), load_urdf_string(urdf, 'base', 'tip'),
                                     lambda package: None)
    assert [shape.kind for shape in shapes] == ['box']
    assert len(problems) == 1 and 'nowhere' in problems[0]


def test_meshes_of_a_real_arm_are_loaded_as_triangles():
    """Check example-robot-data's UR5 visuals (DAE meshes through package://)."""
    arm = example_arm('ur5')
    if arm is None:
        pytest.skip('example-robot-data is not installed')
    urdf = open(arm.urdf_path, encoding='utf-8').read()
    shapes, problems = visual_shapes(parse_robot(urdf),
                                     load_urdf_string(urdf, arm.base_link, arm.tip_link),
                                     search_path_packages([mesh_search_folder()]))
    assert problems == []
    meshes = [shape for shape in shapes if shape.kind == 'mesh']
    assert meshes and all(shape.faces.max() < len(shape.vertices) for shape in meshes)


def test_wxyz_is_the_rotation_of_a_transform():
    """Check viser's (w, x, y, z) of a 90 deg turn about z."""
    w, x, y, z = wxyz(transform(rpy_to_matrix(0.0, 0.0, np.pi / 2), np.zeros(3)))
    np.testing.assert_allclose([w, x, y, z], [np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)],
                               atol=1e-12)


def test_camera_looks_at_the_arm_from_outside_its_reach():
    """Check the initial camera is farther than the arm's reach from the base."""
    kinematics = ChainKinematics(load_bundled_chain('panda'))
    position, look_at = initial_camera(kinematics)
    assert np.linalg.norm(position) > 1.5 * arm_reach(kinematics) > 0.0
    assert look_at[2] > 0.0


def marker(ns: str, marker_id: int, marker_type: int, action: int = Marker.ADD,
           x: float = 0.0) -> Marker:
    """Return a visible marker at (x, 0, 0)."""
    message = Marker(ns=ns, id=marker_id, type=marker_type, action=action)
    message.pose.position.x = x
    message.pose.orientation.w = 1.0
    message.scale.x = message.scale.y = message.scale.z = 0.1
    message.color.a = 1.0
    return message


def test_marker_drawing_adds_replaces_and_removes():
    """Check markers by (ns, id): added, redrawn only when changed, removed when gone."""
    server = viser.ViserServer(host='127.0.0.1', port=0, verbose=False)
    try:
        drawing = MarkerDrawing(server.scene, '/markers')
        drawing.draw([marker('ros_ik', 0, Marker.ARROW), marker('ros_ik', 1, Marker.SPHERE),
                      marker('ros_ik_scene', 3, Marker.CUBE)])
        first = dict(drawing._drawn)
        assert set(first) == {('ros_ik', 0), ('ros_ik', 1), ('ros_ik_scene', 3)}
        moved = marker('ros_ik', 1, Marker.SPHERE, x=0.5)
        drawing.draw([marker('ros_ik', 0, Marker.ARROW), moved])
        assert drawing._drawn[('ros_ik', 0)][1] is first[('ros_ik', 0)][1]  # unchanged
        assert drawing._drawn[('ros_ik', 1)][1] is not first[('ros_ik', 1)][1]  # moved
        assert ('ros_ik_scene', 3) not in drawing._drawn
        drawing.draw([marker('ros_ik', 0, Marker.ARROW, action=Marker.DELETEALL)])
        assert drawing._drawn == {}
    finally:
        server.stop()


def test_page_moves_bodies_by_forward_kinematics():
    """Check a redraw puts each body frame at the chain's link pose."""
    kinematics = ChainKinematics(load_bundled_chain('ur5'))
    view = WebView('127.0.0.1', 0, kinematics, [])
    try:
        q = np.array(BUNDLED_ARMS['ur5'].home) + 0.3
        view.show_joints(q)
        for frame, T in zip(view.bodies, kinematics.link_poses(q)):
            np.testing.assert_allclose(frame.position, T[:3, 3], atol=1e-6)
        assert view.frames_sent == 1
        T_tool = kinematics.tip_pose(q)
        view.place_gizmo(T_tool)
        np.testing.assert_allclose(view.gizmo_pose(), T_tool, atol=1e-6)
    finally:
        view.close()


def test_controls_are_grey_until_the_node_is_there_and_its_absence_is_said():
    """
    Check the page's mode switch and jog buttons: off at start, on with the node, off again.

    Before, with no IK node the page said "waiting for its status" forever and the jog
    buttons and mode switch acted silently.
    """
    kinematics = ChainKinematics(load_bundled_chain('ur5'))
    view = WebView('127.0.0.1', 0, kinematics, [])
    controls = [view.mode, *view.jog_buttons.values()]
    try:
        assert all(control.disabled for control in controls)
        view.enable_controls(True)
        view.show_status('OK', 'target reached', {'mode': 'servo'})
        assert not any(control.disabled for control in controls)
        assert view.status.content.startswith('**ik_node: OK**  \ntarget reached')
        view.show_absence('no status from `ros_ik` on /diagnostics for 3 s')
        assert all(control.disabled for control in controls)
        assert view.status.content == ('**ik_node: not there**  \nno status from `ros_ik` on '
                                       '/diagnostics for 3 s')
    finally:
        view.close()
