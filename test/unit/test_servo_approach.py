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
How fast the servo closes the last of its error: up to the tool's speed caps, not a P-law.

:func:`ros_ik.control.servo_goals.tool_cap_factor` against closed forms, then the ROS-free
controller in servo mode in a deterministic closed loop (:mod:`ros_ik_testing.reach_loop`):
a near target is reached about as fast as the jerk-limited minimum-time motion to its IK
solution (no exponential tail), with the tool within its speed caps and the stream within
its limits; a moving one is followed closer than a P-law's lag.
"""

import numpy as np
import pytest
from ros_ik.control.servo_goals import null_motion_kept, tool_cap_factor
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS
from ros_ik.kinematics.servo_step import ServoOptions, ServoStep
from ros_ik.trajectory.online_generator import MotionState
from ros_ik_testing.reach_loop import bundled_controller, reach

OPTIONS = ServoOptions(gain=5.0, max_linear_speed=0.5, max_angular_speed=1.5)


def step_with_errors(position_error: float, orientation_error: float) -> ServoStep:
    """Return a servo step with these errors (m, rad); nothing else of it is read."""
    return ServoStep(velocity=np.zeros(2), position_error=position_error,
                     orientation_error=orientation_error, sigma_min=1.0, damping=0.0,
                     velocity_scaling=1.0, at_position_limit=False,
                     task_jacobian=np.zeros((2, 2)), task_twist=np.zeros(2))


def test_the_tool_cap_factor_lifts_the_p_law_to_the_tighter_cap():
    # inside both caps: K |e_p| = 0.1 m/s of 0.5, K |e_o| = 0.25 rad/s of 1.5
    assert tool_cap_factor(step_with_errors(0.02, 0.05), OPTIONS) == pytest.approx(5.0)
    assert tool_cap_factor(step_with_errors(0.02, 0.0), OPTIONS) == pytest.approx(5.0)
    assert tool_cap_factor(step_with_errors(0.0, 0.1), OPTIONS) == pytest.approx(3.0)
    # a part at its cap already: the twist is the cap's, nothing to lift
    assert tool_cap_factor(step_with_errors(0.2, 0.05), OPTIONS) == 1.0
    assert tool_cap_factor(step_with_errors(0.0, 0.0), OPTIONS) == 1.0


@pytest.mark.parametrize('seed', range(5))
def test_the_lift_leaves_the_null_space_motion_at_its_own_rate(seed: int):
    """Check ``qdot_t + qdot_0 / factor`` against a projector built from the SVD of J."""
    rng = np.random.default_rng(seed)
    J = rng.normal(size=(6, 7))
    velocity = rng.normal(size=7)
    _, _, Vt = np.linalg.svd(J)
    null = Vt[6:].T @ (Vt[6:] @ velocity)  # the part J maps to zero
    kept = null_motion_kept(velocity, J, 4.0)
    np.testing.assert_allclose(J @ kept, J @ velocity, atol=1e-12)  # the tool's twist
    np.testing.assert_allclose(kept, (velocity - null) + null / 4.0, atol=1e-12)
    # a full-rank square Jacobian has no null space: nothing to keep apart
    square = rng.normal(size=(6, 6))
    np.testing.assert_allclose(null_motion_kept(velocity[:6], square, 4.0), velocity[:6],
                               atol=1e-10)


@pytest.mark.parametrize('arm_name', ['ur5', 'panda'])
@pytest.mark.parametrize('seed', [0, 1, 2])
def test_a_near_target_is_reached_about_as_fast_as_the_jerk_limited_motion_to_it(
        arm_name: str, seed: int):
    # A P-law at gain K closes 1.5-4 cm as exp(-K t): ~1 s to the 0.1 mm tolerance at K 5;
    # the generator's minimum-time motion to the solution takes 0.2-0.3 s.
    home = np.array(BUNDLED_ARMS[arm_name].home)
    offset = np.random.default_rng(seed).uniform(-0.05, 0.05, size=home.shape)
    controller = bundled_controller(arm_name, mode='servo')
    q_target = home + offset
    run = reach(controller, home, controller.arm.kinematics.tip_pose(q_target), 5.0)
    fastest = controller.stepper.generator(controller.settings).step(
        MotionState.at_rest(home), q_target, 0.0).remaining  # s, to rest at the solution
    assert run.reached and not run.recoveries, run.messages
    assert run.seconds <= 1.25 * fastest + 0.02, (run.seconds, fastest)
    settings = controller.settings
    linear, angular = run.tool_speeds
    assert linear <= 1.02 * settings.max_linear_speed, linear
    assert angular <= 1.02 * settings.max_angular_speed, angular
    assert run.peak_ratio <= 1.0 + 1e-6 and run.beyond_bounds <= 1e-12


def test_a_moving_target_is_followed_closer_than_the_p_laws_lag():
    # A P-law lags a target moving at v by v / K: 2 cm at 0.1 m/s and gain 5.
    home = np.array(BUNDLED_ARMS['ur5'].home)
    controller = bundled_controller('ur5', mode='servo')
    start = controller.arm.kinematics.tip_pose(home)
    speed = 0.1  # m/s along the base y axis

    def moving(t: float) -> np.ndarray:
        pose = start.copy()
        pose[1, 3] += speed * t
        return pose

    run = reach(controller, home, moving(3.0), 3.0, moving=moving)
    assert not run.recoveries, run.messages
    assert run.position_error < 0.5 * speed / controller.settings.gain, run.position_error
    assert run.peak_ratio <= 1.0 + 1e-6 and run.beyond_bounds <= 1e-12
