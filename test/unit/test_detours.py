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

"""Solve mode's detours: the via configurations, the search, a planar arm around a post."""

import time

import numpy as np
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_setup import build_collision_model
from ros_ik.collision.scene import parse_scene
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.controller import IkController
from ros_ik.control.detours import DetourSearch, joint_group_vias
from ros_ik.control.parameters import Settings

LINK_RADIUS = 0.02  # m, the planar arm's capsules
POST = np.array([1.645, 0.95])  # m: on the stretched arm's sweep, off the folded arm's
POST_RADIUS = 0.05
START = np.array([0.0, 0.2])


def planar_arm_urdf() -> str:
    """
    Return a planar 2-link arm (1 m links along x, joints about z) with capsule geometry.

    The shoulder turns from -0.5 rad only: no solution reaches (-1, 1) clockwise.
    """
    def link(name: str) -> str:
        return (f'<link name="{name}"><collision><origin xyz="0.5 0 0" rpy="0 1.5708 0"/>'
                f'<geometry><cylinder radius="{LINK_RADIUS}" length="1.0"/></geometry>'
                '</collision></link>')

    def joint(name: str, parent: str, child: str, x: float, lower: float) -> str:
        return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/>'
                f'<child link="{child}"/><origin xyz="{x} 0 0"/><axis xyz="0 0 1"/>'
                f'<limit lower="{lower}" upper="3.2" effort="1" velocity="2"/></joint>')

    return ('<robot name="planar"><link name="base"/>' + link('upper') + link('fore')
            + '<link name="tool"/>' + joint('shoulder', 'base', 'upper', 0.0, -0.5)
            + joint('elbow', 'upper', 'fore', 1.0, -3.2)
            + '<joint name="tool_joint" type="fixed"><parent link="fore"/><child link="tool"/>'
            '<origin xyz="1 0 0"/></joint></robot>')


def post_clearance(q: np.ndarray) -> float:
    """Return the distance (m) from the post's surface to the arm's capsules at ``q``."""
    elbow = np.array([np.cos(q[0]), np.sin(q[0])])
    tool = elbow + np.array([np.cos(q[0] + q[1]), np.sin(q[0] + q[1])])
    distances = []
    for a, b in ((np.zeros(2), elbow), (elbow, tool)):
        s = np.clip((POST - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
        distances.append(np.linalg.norm(POST - (a + s * (b - a))))
    return min(distances) - LINK_RADIUS - POST_RADIUS


def test_vias_move_one_joint_group_and_skip_the_ends():
    """Check the base-side and tool-side groups, and vias equal to an end left out."""
    start, goal = np.zeros(3), np.array([1.0, 2.0, 3.0])
    vias = joint_group_vias(start, goal)
    expected = [[1, 0, 0], [1, 2, 0], [0, 0, 3], [0, 2, 3]]
    assert [via.tolist() for via in vias] == expected
    assert [via.tolist() for via in joint_group_vias(start, np.array([0.0, 2.0, 3.0]))] == [
        [0, 2, 0], [0, 0, 3]]
    assert [via.tolist() for via in joint_group_vias(start, np.array([0.0, 0.0, 3.0]))] == []


def test_the_search_returns_the_first_free_detour_and_remembers_the_last_blocked_leg():
    """Check the order (nearest goal first), one check past the deadline, exhaustion."""
    start = np.zeros(2)
    goals = [np.array([1.0, 1.0]), np.array([2.0, -1.0])]
    search = DetourSearch(start, goals)
    assert search.total == 4
    checked = []

    def first_leg(via):
        checked.append(via.tolist())
        return 'blocked' if len(checked) < 4 else None

    found = search.search(first_leg, lambda via, goal: None, time.perf_counter() - 1.0)
    assert found is None and checked == [[1.0, 0.0]]  # past the deadline: one checked
    assert search.blocked == 'blocked' and not search.exhausted
    via, goal = search.search(first_leg, lambda via, goal: None, time.perf_counter() + 10.0)
    assert checked == [[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [0.0, -1.0]]
    assert via.tolist() == [0.0, -1.0] and goal.tolist() == [2.0, -1.0]
    assert search.exhausted
    assert search.search(first_leg, lambda via, goal: None, time.perf_counter() + 10.0) is None


def test_solve_mode_takes_a_detour_around_a_post_the_straight_motions_hit():
    """
    Check a planar arm folds first, then swings around a post, never touching it.

    Target (-1, 1): the solutions (pi/2, pi/2) and (pi, -pi/2); both straight motions from
    the nearly stretched arm (0, 0.2) sweep the forearm through the post. Folding the elbow
    first keeps the forearm within 1 m of the elbow, which is farther from the post; the
    folded swing stays within sqrt(2) m of the base.
    """
    urdf = planar_arm_urdf()
    arm = ControlledArm.from_urdf(urdf, 'base', 'tool', 'x y')
    scene = ('objects: [{name: post, type: sphere, radius: 0.05, '
             f'pose: {{xyz: [{POST[0]}, {POST[1]}, 0.0]}}}}]')
    model, _ = build_collision_model(urdf, arm.kinematics, '', parse_scene(scene), [])
    for goal in (np.array([np.pi / 2, np.pi / 2]), np.array([np.pi, -np.pi / 2])):
        assert min(post_clearance(START + s * (goal - START))
                   for s in np.linspace(0, 1, 200)) < 0.0
    controller = IkController(arm, Settings(solve_time_budget=0.02), collision=CollisionGuard(
        CollisionChecker(model, 0.0, 0.01)))
    q, now = START.copy(), 0.0
    controller.update_joint_state(arm.chain.joint_names, q, now)
    controller.set_target('', (-1.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0), 'point')
    messages = set()
    for _ in range(2000):
        now += 0.01
        command = controller.cycle(now).command
        if command is not None:
            q = command.q
            assert post_clearance(q) > 0.0, q
        controller.update_joint_state(arm.chain.joint_names, q, now)
        messages.add(controller.status.message)
        tool = arm.kinematics.tip_pose(q)[:2, 3]
        if np.linalg.norm(tool - [-1.0, 1.0]) < 1e-3 and not np.any(command.velocity):
            break
    else:
        raise AssertionError(f'not reached: {sorted(messages)}')
    assert 'moving to the IK solution by a detour' in messages
    assert any(message.startswith('every straight motion to an IK solution is blocked')
               for message in messages)
