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
Targets, jogs and scene objects in TF frames: the controller with a transform buffer.

The buffer and its frame source are the ones the node feeds from /tf and /tf_static
(:class:`ros_ik.control.frame_source.BufferFrames`); here the test sets the transforms. The
arm's base is mounted in ``world`` 0.5 m up and turned 90 deg about z, as a user's robot on
a table is.
"""

import math
from typing import Callable, List, Optional

import numpy as np
import pytest
from ros_ik.collision.scene import parse_scene
from ros_ik.control.controller import IkController
from ros_ik.control.cycle_types import Command, Notice
from ros_ik.control.frame_source import BufferFrames
from ros_ik.control.scene_placement import needs_placement, placed_scene
from ros_ik.kinematics.transform_buffer import FrameError, TransformBuffer, UNKNOWN_FRAME
from ros_ik.kinematics.transforms import pose_matrix

from ros_ik_testing.reach_loop import bundled_controller
from test_controller import (assert_commands_within_limits, pose_of, tip_error, UR5_GOAL,
                             UR5_HOME)

YAW_90 = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))
T_WORLD_BASE = pose_matrix((0.0, 0.0, 0.5), YAW_90)
ROS_EPOCH = 1000.0  # s: the ROS clock at the controller's time 0
PERIOD = 0.01


class MountedArm:
    """A UR5 controller whose TF has world -> base_link, and a perfect arm in a loop."""

    def __init__(self, **settings) -> None:
        """Mount the base in world (static) and start at the UR5's home."""
        self.buffer = TransformBuffer()
        self.buffer.set_transform('world', 'base_link', 0.0, (0.0, 0.0, 0.5), YAW_90, True)
        self.now = 0.0
        plain = bundled_controller('ur5', **settings)
        self.controller = IkController(
            plain.arm, plain.settings, plain.limits,
            frames=BufferFrames(self.buffer, 'base_link', lambda: ROS_EPOCH + self.now,
                                lambda: self.controller.settings.max_transform_age))
        self.q = UR5_HOME.copy()
        self.commands: List[Command] = []
        self.notices: List[Notice] = []

    def run(self, seconds: float,
            each_cycle: Optional[Callable[[float], None]] = None) -> None:
        """Cycle ``seconds`` at 100 Hz: joint states at the last command, then the cycle."""
        controller = self.controller
        end = self.now + seconds
        while self.now < end - 1e-9:
            if each_cycle is not None:
                each_cycle(self.now)
            controller.update_joint_state(controller.arm.chain.joint_names, self.q, self.now)
            result = controller.cycle(self.now)
            self.notices.extend(result.notices)
            if result.command is not None:
                self.commands.append(result.command)
                self.q = result.command.q
            self.now += PERIOD

    def send(self, frame: str, T_frame_target: np.ndarray, stamp: float = 0.0) -> List[Notice]:
        """Send a pose target in ``frame`` now."""
        return self.controller.set_target(frame, *pose_of(T_frame_target), 'pose', self.now,
                                          stamp)

    def keys(self) -> List[str]:
        """Return the keys of the notices so far."""
        return [notice.key for notice in self.notices]


@pytest.mark.parametrize('mode', ['servo', 'solve'])
def test_a_target_in_world_is_reached_as_the_same_target_in_the_base_frame(mode):
    """Check a world-frame target goes to T_base_target = T_base_world T_world_target."""
    arm = MountedArm(mode=mode)
    T_base_target = arm.controller.arm.kinematics.tip_pose(UR5_GOAL)
    assert arm.send('world', T_WORLD_BASE @ T_base_target) == []
    arm.run(6.0)
    assert tip_error(arm.controller, arm.q, T_base_target) < 1e-3
    assert_commands_within_limits(arm.controller, arm.commands, UR5_HOME)
    assert arm.controller.report().message == 'target reached'


def test_frames_with_a_leading_slash_and_targets_in_the_planning_frame():
    """Check '/world' is world, and an empty frame_id means planning_frame (here world)."""
    T_base_target = pose_of(np.eye(4))  # any pose: only its base-frame value is compared
    for frame, settings in (('/world', {}), ('', {'planning_frame': 'world'})):
        arm = MountedArm(**settings)
        arm.controller.set_target(frame, *T_base_target, 'pose', 0.0)
        arm.run(0.02)
        np.testing.assert_allclose(arm.controller.inputs.target.T_base_target,
                                   np.linalg.inv(T_WORLD_BASE), atol=1e-12)


def test_a_target_waits_for_its_transform_then_is_taken_or_refused_at_the_timeout():
    """
    Check a target in a frame TF does not have yet: nothing moves while it waits.

    Its transform arriving within transform_timeout (0.5 s) starts the motion; a second
    target in another missing frame is refused after the timeout, naming the frames, while
    the running motion goes on.
    """
    arm = MountedArm(mode='servo')
    T_base_target = arm.controller.arm.kinematics.tip_pose(UR5_GOAL)
    T_world_late = pose_matrix((0.3, -0.2, 0.1), (0.0, 0.0, 0.0, 1.0))
    arm.send('late', np.linalg.inv(T_world_late) @ T_WORLD_BASE @ T_base_target)
    arm.run(0.3)
    assert arm.commands == [] and arm.notices == []
    arm.buffer.set_transform('world', 'late', 0.0, (0.3, -0.2, 0.1), (0, 0, 0, 1), True)
    arm.run(0.3)
    assert arm.commands and np.abs(arm.commands[-1].velocity).max() > 0.0
    arm.send('nowhere', np.eye(4))
    arm.run(0.4)
    assert 'target:tf_unknown_frame' not in arm.keys()  # still waiting
    arm.run(0.2)
    refusals = [notice for notice in arm.notices if notice.key == 'target:tf_unknown_frame']
    assert len(refusals) == 1
    assert '"nowhere"' in refusals[0].message and 'transform_timeout' in refusals[0].message
    arm.run(5.0)  # the first target is still the one driving the arm
    assert tip_error(arm.controller, arm.q, T_base_target) < 1e-3
    assert_commands_within_limits(arm.controller, arm.commands, UR5_HOME)


def conveyor(buffer: TransformBuffer, speed: float, until: float) -> Callable[[float], None]:
    """Return a 50 Hz /tf publisher of world -> conveyor moving at ``speed`` m/s along x."""
    def publish(now: float) -> None:
        if now <= until + 1e-9 and round(now / PERIOD) % 2 == 0:
            buffer.set_transform('world', 'conveyor', ROS_EPOCH + now,
                                 (0.1 + speed * now, 0.0, 0.0), (0, 0, 0, 1), False)
    return publish


def test_a_servo_target_on_a_moving_frame_is_followed_until_the_frame_stops():
    """
    Check a servo target fixed on a frame moving at 0.1 m/s: the arm tracks it.

    While the frame moves the tool lags the target by at most ``v / gain`` (2 cm: the servo
    is a proportional tracker) plus one /tf period of motion (2 mm) and 1 mm; after it stops
    the target is reached to 1 mm. Every command within the limits.
    """
    arm = MountedArm(mode='servo')
    T_base_start = arm.controller.arm.kinematics.tip_pose(UR5_HOME)
    T_base_conveyor_0 = np.linalg.inv(T_WORLD_BASE) @ pose_matrix((0.1, 0.0, 0.0),
                                                                  (0, 0, 0, 1))
    T_conveyor_target = np.linalg.inv(T_base_conveyor_0) @ T_base_start
    publish = conveyor(arm.buffer, 0.1, 2.0)
    publish(0.0)
    arm.send('conveyor', T_conveyor_target)
    lags = []

    def track(now: float) -> None:
        publish(now)
        T_base_frame = arm.controller.inputs.frames.base_from('conveyor', 0.0)[0]
        lags.append(tip_error(arm.controller, arm.q, T_base_frame @ T_conveyor_target))
    arm.run(2.0, track)
    bound = 0.1 / arm.controller.settings.gain + 0.1 * 2 * PERIOD + 1e-3
    assert max(lags[50:]) < bound and lags[-1] > 1e-3  # it follows, a little behind
    arm.run(3.0, publish)
    T_base_end = np.linalg.inv(T_WORLD_BASE) @ pose_matrix((0.3, 0.0, 0.0), (0, 0, 0, 1))
    assert tip_error(arm.controller, arm.q, T_base_end @ T_conveyor_target) < 1e-3
    assert_commands_within_limits(arm.controller, arm.commands, UR5_HOME)


def test_a_moving_frame_that_goes_stale_brakes_the_servo_to_rest():
    """Check /tf of the frame stopping mid-motion: ERROR naming it, the arm brakes to rest."""
    arm = MountedArm(mode='servo', max_transform_age=0.2)
    T_conveyor_target = (np.linalg.inv(pose_matrix((0.1, 0.0, 0.0), (0, 0, 0, 1)))
                         @ T_WORLD_BASE @ arm.controller.arm.kinematics.tip_pose(UR5_GOAL))
    publish = conveyor(arm.buffer, 0.0, 0.5)
    arm.run(0.05, publish)
    arm.send('conveyor', T_conveyor_target)
    arm.run(2.5, publish)
    stale = [notice for notice in arm.notices if notice.key == 'target:tf_stale']
    assert stale and '"conveyor"' in stale[0].message
    status = arm.controller.report()
    assert status.level == 'ERROR' and 'stale' in status.message
    assert np.all(arm.commands[-1].velocity == 0.0)
    assert tip_error(arm.controller, arm.q, arm.controller.arm.kinematics.tip_pose(UR5_GOAL)) \
        > 1e-2  # it stopped short: it did not follow a frame it no longer knows
    assert_commands_within_limits(arm.controller, arm.commands, UR5_HOME)


def test_a_solve_target_keeps_the_transform_it_arrived_with():
    """Check solve mode: a frame moving after the target arrived does not move the goal."""
    arm = MountedArm(mode='solve')
    T_base_target = arm.controller.arm.kinematics.tip_pose(UR5_GOAL)
    T_world_conveyor = pose_matrix((0.1, 0.0, 0.0), (0, 0, 0, 1))
    publish = conveyor(arm.buffer, 0.1, 3.0)
    publish(0.0)
    arm.send('conveyor', np.linalg.inv(T_world_conveyor) @ T_WORLD_BASE @ T_base_target)
    arm.run(5.0, publish)
    assert tip_error(arm.controller, arm.q, T_base_target) < 1e-3


def test_a_jog_twist_in_world_moves_the_tool_along_worlds_axis():
    """Check +x in world is -y in the base turned 90 deg: the tool moves along base -y."""
    arm = MountedArm()
    kinematics = arm.controller.arm.kinematics
    start = kinematics.tip_pose(UR5_HOME)[:3, 3]
    arm.run(0.5, lambda now: arm.controller.set_twist('world', (0.05, 0.0, 0.0),
                                                      (0.0, 0.0, 0.0), now))
    moved = kinematics.tip_pose(arm.q)[:3, 3] - start
    assert np.linalg.norm(moved) > 0.005
    np.testing.assert_allclose(moved / np.linalg.norm(moved), [0.0, -1.0, 0.0], atol=0.02)


def test_a_jog_in_a_frame_tf_does_not_know_brakes_with_its_own_warning():
    """Check a twist in an unknown frame: no motion, a 'jog:tf_unknown_frame' warning."""
    arm = MountedArm()
    arm.run(0.3, lambda now: arm.controller.set_twist('nowhere', (0.05, 0.0, 0.0),
                                                      (0.0, 0.0, 0.0), now))
    assert 'jog:tf_unknown_frame' in arm.keys()
    assert all(np.array_equal(command.q, UR5_HOME) for command in arm.commands)


def test_scene_objects_in_a_tf_frame_are_placed_in_the_base_frame():
    """Check a box posed in world lands at T_base_world T_world_box; unknown frames refuse."""
    buffer = TransformBuffer()
    buffer.set_transform('world', 'base_link', 0.0, (0.0, 0.0, 0.5), YAW_90, True)
    frames = BufferFrames(buffer, 'base_link', lambda: 0.0, lambda: 1.0)
    scene = parse_scene('objects:\n'
                        '  - {name: table, type: box, size: [1, 1, 0.1], frame: world,\n'
                        '     pose: {xyz: [0.5, 0, 0.45]}}\n'
                        '  - {name: post, type: sphere, radius: 0.1, pose: {xyz: [0, 1, 0]}}\n')
    assert needs_placement(scene, 'base_link')
    placed = placed_scene(scene, frames, 'base_link')
    assert not needs_placement(placed, 'base_link')
    np.testing.assert_allclose(placed[0].shape.T_frame_shape[:3, 3], [0.0, -0.5, -0.05],
                               atol=1e-12)
    np.testing.assert_array_equal(placed[1].shape.T_frame_shape, scene[1].shape.T_frame_shape)
    with pytest.raises(FrameError) as error:
        placed_scene(parse_scene('objects: [{name: box, type: sphere, radius: 0.1, '
                                 'frame: nowhere}]'), frames, 'base_link')
    assert error.value.kind == UNKNOWN_FRAME and '"box"' in str(error.value)


def test_without_tf_a_frame_outside_the_chain_is_refused_at_once():
    """Check the controller without a frame source: 'world' is an unknown frame."""
    controller = bundled_controller('ur5')
    notices = controller.set_target('world', *pose_of(np.eye(4)), 'pose')
    assert [notice.key for notice in notices] == ['target:frame']
    assert controller.inputs.pending is None
