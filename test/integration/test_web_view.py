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
The web view end to end in a real browser: headless Chromium (Debian's) driven by Playwright.

sim_arm, ik_node and ros_ik_web run as processes over DDS; the test opens the page, checks
the robot is drawn (the arm's own colours in the screenshot), drags the gizmo's x arrow with
the mouse and checks that the IK node received the target the page published and that the
arm reached it; then that the gizmo follows another program's target and that the page's
mode switch sets the node's mode. Skipped where Chromium or Playwright is missing (CI
installs both).
"""

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped
from loop_messages import ik_status, status_values
import numpy as np
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path, load_bundled_chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.transforms import pose_error, pose_matrix
from ros_ik.node.messages import pose_message
from ros_ik.web.page import arm_reach, GIZMO_SCALE, project_to_page
from ros_ik_testing.headless_browser import (CHROMIUM_FLAGS, chromium_path, free_port,
                                             GIZMO_ARROW_COLOURS, nearest_pixel, page_image)
from sensor_msgs.msg import JointState

CHROMIUM = chromium_path()
playwright_api = pytest.importorskip('playwright.sync_api')
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason='no Chromium browser installed')
WIDTH, HEIGHT = 1000, 700
UR5 = BUNDLED_ARMS['ur5']
ORANGE = np.array([255, 128, 26])  # the UR5 URDF's "orange" material
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)


def test_page_shows_the_arm_and_a_drag_moves_it(peer, processes, tmp_path):
    """
    Check the page draws the arm, a drag of the gizmo sends a target, the arm reaches it.

    Then a target from another program: the gizmo follows the arm there (before, it stayed
    where it was dragged and the next small drag yanked the arm back); and the page's mode
    switch sets the node's mode (before, ``mode`` was read-only and the switch never worked).
    """
    path = bundled_urdf_path('ur5')
    model = {'robot_description_file': path, 'base_link': UR5.base_link,
             'tip_link': UR5.tip_link}
    home = '[' + ', '.join(repr(float(v)) for v in UR5.home) + ']'
    port = free_port()
    # Not strict: this test is about the page; the command stream's limits are checked by
    # the closed-loop tests (a strict arm faults when a busy machine stalls the node).
    processes.start('sim_arm', {**model, 'initial_positions': home},
                    str(tmp_path / 'sim.log'), ['-r', 'joint_commands:=/ros_ik/joint_commands'])
    processes.start('ik_node', {**model, 'mode': 'solve'}, str(tmp_path / 'ik.log'))
    web = processes.start('ros_ik_web', {**model, 'port': port}, str(tmp_path / 'web.log'))
    targets, states, status = [], [], [None]
    node = peer.node
    node.create_subscription(PoseStamped, '/ros_ik/target_pose', targets.append, RELIABLE)
    node.create_subscription(JointState, '/joint_states', states.append, RELIABLE)
    node.create_subscription(DiagnosticArray, '/diagnostics',
                             lambda message: status.__setitem__(
                                 0, ik_status(message, status[0])), RELIABLE)
    other_program = node.create_publisher(PoseStamped, '/ros_ik/target_pose', RELIABLE)
    assert peer.spin_until(lambda: states and status[0] is not None
                           and f':{port}' in web.output(), 60.0), web.output()
    kinematics = ChainKinematics(load_bundled_chain('ur5'))
    T_tool = kinematics.tip_pose(np.array(UR5.home))

    def reached(T_target: np.ndarray) -> bool:
        e_p, e_o = pose_error(T_target, kinematics.tip_pose(np.array(states[-1].position)))
        return np.linalg.norm(e_p) <= 1e-3 and np.linalg.norm(e_o) <= 1e-2
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={'width': WIDTH, 'height': HEIGHT})
            page.goto(f'http://127.0.0.1:{port}')
            page.wait_for_selector('canvas', timeout=30000)
            image = None

            def arm_drawn() -> bool:
                nonlocal image
                image = page_image(page)
                orange = np.all(np.abs(image - ORANGE) < 40, axis=2)
                return orange.sum() > 200
            assert peer.spin_until(arm_drawn, 30.0), 'the arm is not drawn'
            page.screenshot(path=str(tmp_path / 'page.png'))
            axis, handle, direction = gizmo_arrow(peer, page, kinematics, T_tool)
            assert handle is not None, f'no arrow {axis} near the tool'
            page.mouse.move(float(handle[0]), float(handle[1]))
            page.mouse.down()
            for step in range(1, 11):
                u, v = handle + direction * 4.0 * step
                page.mouse.move(float(u), float(v))
                peer.spin_for(0.03)
            page.mouse.up()
            assert peer.spin_until(lambda: targets, 10.0), 'the page sent no target'
            peer.spin_for(0.5)  # the last target of the drag
            last = targets[-1]
            p, q = last.pose.position, last.pose.orientation
            T_target = pose_matrix((p.x, p.y, p.z), (q.x, q.y, q.z, q.w))
            moved = T_target[:3, 3] - T_tool[:3, 3]
            assert moved @ T_tool[:3, axis] > 0.01  # along the arrow dragged
            assert last.header.frame_id == UR5.base_link
            assert peer.spin_until(lambda: reached(T_target), 30.0), status[0].message
            # another program's target: the gizmo follows the arm there
            # (the tool raised high: 135 px from home on the page, the gizmo's arrows ~40 px)
            T_other = kinematics.tip_pose(np.array(UR5.home) + np.array(
                [0.0, -0.4, -1.0, 0.0, 0.0, 0.0]))
            message = PoseStamped(pose=pose_message(T_other))
            message.header.frame_id = UR5.base_link
            other_program.publish(message)
            assert peer.spin_until(lambda: reached(T_other), 30.0), status[0].message
            assert peer.spin_until(lambda: gizmo_drawn_at(page, kinematics, T_other), 20.0)
            page.screenshot(path=str(tmp_path / 'followed.png'))
            assert not gizmo_drawn_at(page, kinematics, T_target)  # not left where dragged
            # the mode switch, with the arm at rest
            boxes = page.get_by_role('combobox')
            mode_box = next(boxes.nth(k) for k in range(boxes.count())
                            if boxes.nth(k).input_value() in ('servo', 'solve'))
            assert peer.spin_until(lambda: not mode_box.is_disabled()
                                   and mode_box.input_value() == 'solve', 10.0)
            mode_box.click()
            page.get_by_role('option', name='servo', exact=True).click()
            assert peer.spin_until(lambda: status_values(status[0]).get('mode') == 'servo',
                                   10.0), status_values(status[0])
        finally:
            browser.close()


def gizmo_arrow(peer, page, kinematics: ChainKinematics, T_gizmo: np.ndarray) -> tuple:
    """
    Return (axis, pixel, screen direction) of the gizmo's arrow drawn at ``T_gizmo``.

    The arrow (x or z) longer on the screen (the other may point at the camera); the pixel
    is None when that arrow is not found within 20 s.
    """
    gizmo_length = GIZMO_SCALE * arm_reach(kinematics)
    centre = project_to_page(T_gizmo[:3, 3], kinematics, WIDTH, HEIGHT)[0]
    tips = {axis: project_to_page(T_gizmo[:3, 3] + 0.6 * gizmo_length * T_gizmo[:3, axis],
                                  kinematics, WIDTH, HEIGHT)[0]
            for axis in GIZMO_ARROW_COLOURS}
    axis = max(tips, key=lambda a: np.linalg.norm(tips[a] - centre))
    handle = None

    def arrow_found() -> bool:
        nonlocal handle
        handle = nearest_pixel(page_image(page), GIZMO_ARROW_COLOURS[axis], tips[axis], 40.0)
        return handle is not None
    peer.spin_until(arrow_found, 20.0)
    return axis, handle, (tips[axis] - centre) / np.linalg.norm(tips[axis] - centre)


def gizmo_drawn_at(page, kinematics: ChainKinematics, T_gizmo: np.ndarray) -> bool:
    """
    Return whether both gizmo arrows' colours are drawn within 50 px of ``T_gizmo``'s point.

    Not where each arrow points: three.js's transform controls flip an arrow toward the
    camera.
    """
    centre = project_to_page(T_gizmo[:3, 3], kinematics, WIDTH, HEIGHT)[0]
    image = page_image(page)
    return all(nearest_pixel(image, colour, centre, 50.0) is not None
               for colour in GIZMO_ARROW_COLOURS.values())
