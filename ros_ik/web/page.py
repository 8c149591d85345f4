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
The web page of ``ros_ik_web`` (viser): the robot, the drag gizmo, markers and the panel.

Everything is in the chain's base frame (m; viser's world, z up). Thread-safe: ROS
callbacks update it while viser's own threads serve the browsers.
"""

from typing import Dict, List, Tuple

import numpy as np
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import matrix_to_quaternion, pose_matrix
from ros_ik.web.markers import MarkerDrawing
from ros_ik.web.robot_visuals import VisualShape

JOG_AXES = {'+x': (1, 0, 0), '-x': (-1, 0, 0), '+y': (0, 1, 0), '-y': (0, -1, 0),
            '+z': (0, 0, 1), '-z': (0, 0, -1)}
GIZMO_SCALE = 0.25  # of the arm's reach
CAMERA_FOV = 0.9  # rad, vertical field of view of the page's initial camera


def arm_reach(kinematics: ChainKinematics) -> float:
    """Return the sum of the chain's link offsets (m): a bound on the tool's distance."""
    chain = kinematics.chain
    offsets = [joint.T_prev_joint[:3, 3] for joint in chain.joints] + [chain.T_last_tip[:3, 3]]
    return float(sum(np.linalg.norm(offset) for offset in offsets))


def initial_camera(kinematics: ChainKinematics) -> Tuple[np.ndarray, np.ndarray]:
    """Return the initial camera position and look-at point (base frame, m): front-right, up."""
    reach = max(arm_reach(kinematics), 0.1)
    return np.array([1.6, -1.6, 1.1]) * reach, np.array([0.0, 0.0, 0.3]) * reach


def project_to_page(points: np.ndarray, kinematics: ChainKinematics, width: int,
                    height: int) -> np.ndarray:
    """
    Return the pixels (k, 2) of base-frame points (k, 3) in the page's initial view.

    A pinhole camera at :func:`initial_camera` looking at its point, z up: with ``f``
    the forward, ``r = f x z`` the right and ``d = f x r`` the down unit vectors and
    ``p`` a point relative to the camera, ``u = w / 2 + F (p.r) / (p.f)``,
    ``v = h / 2 + F (p.d) / (p.f)`` with ``F = (h / 2) / tan(CAMERA_FOV / 2)`` pixels.
    """
    position, look_at = initial_camera(kinematics)
    forward = (look_at - position) / np.linalg.norm(look_at - position)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    relative = np.atleast_2d(points) - position
    depth = relative @ forward
    focal = 0.5 * height / np.tan(0.5 * CAMERA_FOV)
    return np.stack([0.5 * width + focal * (relative @ right) / depth,
                     0.5 * height + focal * (relative @ down) / depth], axis=1)


def wxyz(T: np.ndarray) -> Tuple[float, float, float, float]:
    """Return the rotation of a 4x4 transform as viser's (w, x, y, z) quaternion."""
    x, y, z, w = matrix_to_quaternion(T[:3, :3])
    return (float(w), float(x), float(y), float(z))


def rgb(rgba) -> Tuple[int, int, int]:
    """Return an RGBA colour in 0-1 as viser's RGB in 0-255."""
    return tuple(int(round(255 * min(max(v, 0.0), 1.0))) for v in rgba[:3])


def add_visual(scene, name: str, shape: VisualShape):
    """Add one robot shape to the viser scene under ``name`` (its body's frame)."""
    pose = {'position': tuple(shape.T_body_shape[:3, 3]), 'wxyz': wxyz(shape.T_body_shape)}
    colour = rgb(shape.rgba)
    if shape.kind == 'box':
        return scene.add_box(name, colour, tuple(shape.size), **pose)
    if shape.kind == 'sphere':
        return scene.add_icosphere(name, shape.radius, colour, **pose)
    if shape.kind == 'cylinder':
        return scene.add_cylinder(name, shape.radius, shape.length, colour, **pose)
    return scene.add_mesh_simple(name, shape.vertices.astype(np.float32),
                                 shape.faces.astype(np.uint32), color=colour, **pose)


class WebView:
    """The viser page: robot, gizmo, markers, panel. Thread-safe; no ROS in here."""

    def __init__(self, host: str, port: int, kinematics: ChainKinematics,
                 shapes: List[VisualShape]) -> None:
        """Serve the page with the robot at rest (all joints 0 until joint states come)."""
        import viser
        self.server = viser.ViserServer(host=host, port=port, verbose=False)
        self.kinematics = kinematics
        scene = self.server.scene
        scene.set_up_direction('+z')
        reach = max(arm_reach(kinematics), 0.1)
        scene.add_grid('/ground', width=3.0 * reach, height=3.0 * reach, cell_size=0.1)
        position, look_at = initial_camera(kinematics)
        camera = self.server.initial_camera
        camera.position, camera.look_at, camera.fov = tuple(position), tuple(look_at), CAMERA_FOV
        self.bodies = [scene.add_frame(f'/robot/body{index}', show_axes=False)
                       for index in range(kinematics.n_joints + 1)]
        for number, shape in enumerate(shapes):
            add_visual(scene, f'/robot/body{shape.body}/{shape.link}_{number}', shape)
        self.gizmo = scene.add_transform_controls('/target', scale=GIZMO_SCALE * reach)
        self.markers = MarkerDrawing(scene, '/markers')
        gui = self.server.gui
        self.status = gui.add_markdown('**ik_node**: waiting for its status')
        self.mode = gui.add_dropdown('mode', ('servo', 'solve'), initial_value='servo')
        self.notice = gui.add_markdown('')  # why the last mode switch was refused
        with gui.add_folder('jog the tool (base frame)'):
            self.jog_buttons = {axis: gui.add_button(f'jog {axis}') for axis in JOG_AXES}
        self.enable_controls(False)  # until the IK node's status shows it is there
        self.frames_sent = 0  # robot redraws sent to the browsers

    def enable_controls(self, enabled: bool) -> None:
        """Enable or grey out the mode switch and the jog buttons (no IK node: grey)."""
        for control in (self.mode, *self.jog_buttons.values()):
            control.disabled = not enabled

    def show_joints(self, q: np.ndarray) -> None:
        """Place every body at the forward kinematics of ``q`` (one batch of updates)."""
        poses = self.kinematics.link_poses(q)
        with self.server.atomic():
            for frame, T in zip(self.bodies, poses):
                frame.position = tuple(T[:3, 3])
                frame.wxyz = wxyz(T)
        self.frames_sent += 1

    def place_gizmo(self, T_base_tool: np.ndarray) -> None:
        """Put the gizmo on a pose (base frame) without sending a target."""
        self.gizmo.position = tuple(T_base_tool[:3, 3])
        self.gizmo.wxyz = wxyz(T_base_tool)

    def gizmo_pose(self) -> np.ndarray:
        """Return the gizmo's pose (4x4, base frame)."""
        w, x, y, z = self.gizmo.wxyz
        return pose_matrix(self.gizmo.position, (x, y, z, w))

    def show_status(self, level: str, message: str, values: Dict[str, str]) -> None:
        """Write the node's status into the panel."""
        rows = '\n'.join(f'| {key} | {value} |' for key, value in values.items())
        self.status.content = (f'**ik_node: {level}**  \n{message}\n\n| value | |\n|---|---|\n'
                               + rows)

    def show_absence(self, text: str) -> None:
        """Say in the panel what is missing (the IK node, joint states); grey the controls."""
        self.status.content = f'**ik_node: not there**  \n{text}'
        self.enable_controls(False)

    def close(self) -> None:
        """Stop serving the page."""
        self.server.stop()
