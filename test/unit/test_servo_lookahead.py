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
A far servo's goal ahead of its step: closed forms, the generator's own stop, a closed loop.

:mod:`ros_ik.control.servo_lookahead` against closed forms (arrival, bounds, the tool's
part of a velocity), the turning scale against a field whose acceleration is known, the
stopping lookahead against the generator's hardest stop; then the ROS-free controller
driving the Panda at the parameters' default acceleration and jerk limits (no
joint_limits.yaml) toward a far target: the joints now run faster than a goal ``1 / K`` s
ahead would let them (the generator brakes to rest at its goal), the stream stays within
its limits and the target is reached.
"""

import numpy as np
import pytest
from ros_ik.control.servo_lookahead import (arrival_time, bounds_lookahead, drawn_back,
                                            lookahead, LOOKAHEAD_MARGIN, passes_target,
                                            stopping_lookahead, tool_motion,
                                            TURN_ACCELERATION_SHARE, turning_scale)
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, load_bundled_chain
from ros_ik.kinematics.urdf_loader import load_urdf_string
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.online_generator import MotionState, OnlineGenerator
from ros_ik_testing.reach_loop import controller_of, reach
from ros_ik_testing.small_chains import POLAR_ARM_URDF

GAIN = 5.0  # 1/s


def limits_of(n: int, acceleration: float = 1.0, jerk: float = 10.0,
              bound: float = np.inf) -> MotionLimits:
    """Return ``n`` joints' limits: 2 rad/s, the given acceleration, jerk and bounds."""
    return MotionLimits(np.full(n, -bound), np.full(n, bound), np.full(n, 2.0),
                        np.full(n, acceleration), np.full(n, jerk))


def test_the_motion_arrives_with_its_soonest_part():
    # capped parts arrive after |e| / cap: 1 m at 0.5 m/s, 3 rad at 1.5 rad/s
    assert arrival_time((1.0, 3.0), (0.5, 1.5), GAIN) == pytest.approx(2.0)
    assert arrival_time((1.0, 1.5), (0.5, 1.5), GAIN) == pytest.approx(1.0)
    # an uncapped part (K |e| = 0.25 rad/s under 1.5) is the linearised solution's: 1 / K
    assert arrival_time((1.0, 0.05), (0.5, 1.5), GAIN) == pytest.approx(1.0 / GAIN)
    # a part without error (masked or reached) does not bound it
    assert arrival_time((1.0, 0.0), (0.5, 1.5), GAIN) == pytest.approx(2.0)
    assert arrival_time((0.0, 0.0), (0.5, 1.5), GAIN) == pytest.approx(1.0 / GAIN)


def test_the_turning_scale_keeps_the_fields_acceleration_within_its_share():
    # A linear field qdot(q) = A q accelerates the joints by A qdot along itself.
    rng = np.random.default_rng(4)
    A = rng.normal(size=(3, 3))
    q = rng.normal(size=3)
    velocity = A @ q
    probe = 1e-6
    acceleration = np.array([0.5, 1.0, 2.0])
    scale = turning_scale(velocity, A @ (q + probe * velocity), probe, acceleration)
    turning = np.abs(A @ velocity)
    assert np.all(scale ** 2 * turning <= TURN_ACCELERATION_SHARE * acceleration * (1 + 1e-6))
    assert np.max(scale ** 2 * turning / acceleration) == pytest.approx(
        min(TURN_ACCELERATION_SHARE, np.max(turning / acceleration)), rel=1e-4)
    # a field that does not turn (a straight joint motion) is followed at full speed
    assert turning_scale(velocity, velocity, probe, acceleration) == 1.0


@pytest.mark.parametrize('seed', range(20))
def test_the_goal_lies_beyond_the_generators_hardest_stop(seed: int):
    rng = np.random.default_rng(seed)
    limits = limits_of(3, rng.uniform(0.5, 10.0), rng.uniform(5.0, 500.0))
    velocity = rng.uniform(-2.0, 2.0, size=3)  # the step's velocity (rad/s)
    scale = rng.uniform(0.1, 1.0)
    tau = stopping_lookahead(velocity, scale, limits)
    # followed at scale: each joint at scale * velocity, no acceleration yet
    state = MotionState(np.zeros(3), scale * velocity, np.zeros(3))
    stop = OnlineGenerator(limits).stopping_positions(state)
    assert np.all(np.abs(stop) <= np.abs(velocity) * tau / LOOKAHEAD_MARGIN + 1e-9)
    # and not far beyond it at the leading joint (the bound is exact above v = a^2 / j)
    lead = int(np.argmax(np.abs(velocity)))
    speed = scale * abs(velocity[lead])
    if speed >= limits.acceleration[lead] ** 2 / limits.jerk[lead]:
        assert abs(stop[lead]) == pytest.approx(abs(velocity[lead]) * tau / LOOKAHEAD_MARGIN,
                                                rel=1e-3)


def test_the_goal_stays_inside_the_bounds_in_its_direction():
    limits = limits_of(2, bound=1.0)
    q = np.array([0.5, -0.8])
    velocity = np.array([1.0, -0.1])  # the first joint reaches its bound after 0.5 s
    assert bounds_lookahead(q, velocity, limits) == pytest.approx(0.5)
    assert bounds_lookahead(q, np.zeros(2), limits) == np.inf
    assert bounds_lookahead(np.array([1.0, 0.0]), velocity, limits) == 0.0  # at its bound


def test_no_lookahead_where_the_goal_needs_none():
    limits = limits_of(2, acceleration=100.0, jerk=1e4)  # stops within 1 / K at 1 rad/s
    velocity = np.array([1.0, 0.5])
    assert lookahead(np.zeros(2), velocity, 1.0, 2.0, GAIN, limits) is None
    slow = limits_of(2)  # 1 rad/s^2: stopping from 1 rad/s takes 0.55 s
    tau = lookahead(np.zeros(2), velocity, 1.0, 2.0, GAIN, slow)
    assert tau == pytest.approx(stopping_lookahead(velocity, 1.0, slow))
    assert lookahead(np.zeros(2), velocity, 1.0, 0.3, GAIN, slow) == pytest.approx(0.3)
    assert lookahead(np.zeros(2), velocity, 1.0, 1.0 / GAIN, GAIN, slow) is None


def test_a_far_servo_runs_faster_than_a_goal_one_step_ahead_lets_it():
    # The Panda without joint_limits.yaml: the parameters' 1 rad/s^2 and 10 rad/s^3.
    home = np.array(BUNDLED_ARMS['panda'].home)
    controller = controller_of(load_bundled_chain('panda'), 'x y z rx ry rz', mode='servo')
    q_target = home + np.array([1.2, 0.5, -0.6, 0.8, 1.0, -0.6, 0.9])
    run = reach(controller, home, controller.arm.kinematics.tip_pose(q_target), 30.0)
    assert run.reached, run.messages
    assert run.peak_ratio <= 1.0 + 1e-6 and run.beyond_bounds <= 1e-12
    # A goal |qdot_j| / K ahead caps a joint's speed v where it can stop within it:
    # v (v / a + a / j) / 2 = v_max / K.
    limits = controller.command_limits
    a, j, v_max = limits.acceleration, limits.jerk, limits.velocity
    braked = (-a ** 2 / j + np.sqrt(a ** 4 / j ** 2 + 8.0 * a * v_max / GAIN)) / 2.0
    assert np.max(np.array(run.peak_speeds) / braked) > 1.2


def test_the_tool_motion_is_the_part_the_jacobian_sees():
    rng = np.random.default_rng(5)
    J = rng.normal(size=(6, 7))
    velocity = rng.normal(size=7)
    moving = tool_motion(velocity, J)
    np.testing.assert_allclose(J @ moving, J @ velocity, atol=1e-12)  # the same twist
    np.testing.assert_allclose(moving, np.linalg.pinv(J) @ (J @ velocity), atol=1e-12)
    assert tool_motion(velocity, np.zeros((6, 7))) is None  # no rank: no lookahead
    # no more joints than task rows: no null space, the whole velocity moves the tool
    np.testing.assert_array_equal(tool_motion(velocity[:2], J[:, :2]), velocity[:2])


def test_a_goal_whose_error_points_back_has_passed_the_target():
    twist = np.array([0.3, -0.4, 0.0, 0.5])
    assert not passes_target(twist, 0.2 * twist)  # short of the target
    assert passes_target(twist, -0.1 * twist)  # past it
    assert not passes_target(twist, np.array([0.4, 0.3, 0.0, 0.0]))  # beside the line


def test_a_goal_past_the_target_is_drawn_halfway_back():
    assert drawn_back(2.0, lambda tau: tau > 0.7, GAIN) == 0.5  # 2 -> 1 -> 0.5
    assert drawn_back(2.0, lambda tau: False, GAIN) == 2.0
    assert drawn_back(0.3, lambda tau: True, GAIN) is None  # 0.15 is under 1 / K
    assert drawn_back(8.0, lambda tau: True, GAIN) is None  # still past after the halvings
    assert drawn_back(None, lambda tau: True, GAIN) is None


def test_a_polar_arms_wheel_does_not_pass_its_solution():
    """A straight tool line's joint path is curved: the linearised arrival lies past it."""
    chain = load_urdf_string(POLAR_ARM_URDF, 'base', 'tip')
    controller = controller_of(chain, 'x y', mode='servo')
    q_solution = np.array([2 * np.pi - 3.0, 0.3])  # the wheel through pi, the short way
    run = reach(controller, np.array([3.0, 0.2]), controller.arm.kinematics.tip_pose(
        q_solution), 5.0, position_only=True)
    assert run.reached, run.messages
    assert run.highest[0] <= q_solution[0] + 1e-4, run.highest[0] - q_solution[0]
    assert run.peak_ratio <= 1.0 + 1e-6
