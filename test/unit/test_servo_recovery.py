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
A servo that always arrives: escapes from singular configurations, fallbacks from local minima.

The progress watch and the realized fraction against closed forms; then the ROS-free
controller in servo mode in a deterministic closed loop (:mod:`ros_ik_testing.reach_loop`:
a perfect arm at 100 Hz, simulated time, seeded targets), every stream checked against the
velocity, acceleration and jerk limits from its command stamps.
"""

import argparse
from dataclasses import replace
import re
from typing import Callable, List, Sequence

import numpy as np
import pytest
from ros_ik.control.controller import IkController
from ros_ik.control.servo_recovery import (PROGRESS_WINDOW, ProgressWatch, REALIZED_MIN,
                                           RESUME_SIGMA_FACTOR, STILL_TARGET_WINDOW)
from ros_ik.demo.closed_loop import clear_of_collisions
from ros_ik.demo.segments import JOG_LEAD, jog_segments, plan_segments
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS
from ros_ik.kinematics.manipulability import manipulability, task_jacobian
from ros_ik.kinematics.servo_step import ServoOptions
from ros_ik.kinematics.transforms import matrix_to_quaternion, pose_error
from ros_ik.tools.arm_selection import add_arm_arguments, load_selected_arm
from ros_ik_testing.reach_loop import (bundled_controller, bundled_guard,
                                       random_configurations, reach, ReachRun,
                                       SINGULAR_STARTS)

PERIOD = 0.01


def assert_within_limits(run: ReachRun) -> None:
    """Check the run's stream: every peak within its limit, every command inside the range."""
    assert run.peak_ratio <= 1.0 + 1e-6, run.peak_ratio
    assert run.beyond_bounds <= 1e-12, run.beyond_bounds


def random_runs(arm_name: str, start: np.ndarray, count: int, seed: int) -> List[ReachRun]:
    """Return servo runs (20 s each) from ``start`` to ``count`` seeded reachable targets."""
    runs = []
    chain = bundled_controller(arm_name).arm.chain
    for q_target in random_configurations(chain, count, seed):
        controller = bundled_controller(arm_name, mode='servo')
        runs.append(reach(controller, start, controller.arm.kinematics.tip_pose(q_target),
                          20.0, position_only=arm_name == 'so101'))
    return runs


def run_demo_segments(controller: IkController, arm_name: str, labels: Sequence[str],
                      clear: Callable[[np.ndarray], bool] = lambda q: True) -> ReachRun:
    """
    Run the demo's segments ``labels`` in order from home, 15 s each; return the last run.

    Each must be reached with the stream within the limits. ``clear``: as the demo plans
    them (:func:`plan_segments`).
    """
    q = np.array(BUNDLED_ARMS[arm_name].home)
    segments = {segment.label: segment for segment in plan_segments(
        controller.arm.kinematics, q, controller.arm.task_rows, clear=clear)}
    for index, label in enumerate(labels):
        segment = segments[label]
        run = reach(controller, q, segment.T_base_target, 15.0, segment.position_only,
                    start=15.0 * index)
        assert run.reached, (label, run.messages[-3:])
        assert_within_limits(run)
        q = controller.joints.positions()
    return run


def test_the_realized_fraction_is_one_for_a_free_step_and_zero_along_a_stretched_arm():
    """
    Check ``<J qdot, W v> / (c |W v|^2)`` on the planar arm (L1 = 2 m, L2 = 1.5 m).

    Stretched along x (theta2 = 0) both columns ``z x (x_end - p)`` point along y: a target
    straight toward the base asks for a twist along -x that no joint velocity gives (0). At
    theta2 = 90 deg (det J = 3) the undamped step realizes any twist (1).
    """
    controller = bundled_controller('planar_2link')
    servo, options = controller.arm.servo, ServoOptions(mask=controller.arm.task_mask(True))
    T_toward_base = np.eye(4)
    T_toward_base[:3, 3] = [3.0, 0.0, 0.0]
    stretched = servo.step(np.zeros(2), T_toward_base, options)
    assert stretched.sigma_min == pytest.approx(0.0, abs=1e-12)
    assert stretched.realized_fraction(stretched.velocity) == pytest.approx(0.0, abs=1e-9)
    bent = np.array([0.0, np.pi / 2])
    T_near = controller.arm.kinematics.tip_pose(bent)
    T_near[:3, 3] += [0.01, 0.005, 0.0]  # within the error scale: no damping
    step = servo.step(bent, T_near, options)
    assert step.realized_fraction(step.velocity) == pytest.approx(1.0, abs=1e-6)
    assert step.realized_fraction(np.zeros(2)) == 0.0


def test_the_progress_watch_tells_a_stuck_step_from_a_slow_or_tracking_one():
    """Check both of its conditions: a step realizing too little, a still target's chatter."""
    watch = ProgressWatch()
    times = np.arange(0.0, 2.0, PERIOD)
    stuck_at = [t for t in times if watch.stuck(0.5, 0.1, 0.5, t, False)]
    assert stuck_at[0] == pytest.approx(PROGRESS_WINDOW + PERIOD)  # realizes 0.1 < REALIZED_MIN
    watch.reset(0.0)  # realizing, closing in as asked (0.5 m/s): never stuck
    assert not any(watch.stuck(1.0 - 0.5 * t, 1.0, 0.5, t, False) for t in times)
    watch.reset(0.0)  # realizing, a moving target followed at a constant lag: never stuck
    assert not any(watch.stuck(0.1, 1.0, 0.5, t, True) for t in times)
    watch.reset(0.0)  # realizing but chattering: the still target gets no closer
    chatter = [t for t in times if watch.stuck(0.2 + 0.01 * np.sin(30 * t), REALIZED_MIN,
                                               0.5, t, False)]
    assert chatter[0] == pytest.approx(STILL_TARGET_WINDOW + PERIOD)


@pytest.mark.parametrize('arm_name', list(BUNDLED_ARMS))
def test_the_servo_reaches_random_targets_from_home(arm_name):
    """Check every seeded reachable target reached from home, the stream within its limits."""
    runs = random_runs(arm_name, np.array(BUNDLED_ARMS[arm_name].home), 8, seed=7)
    assert [run.reached for run in runs] == [True] * 8, [run.messages[-1] for run in runs]
    for run in runs:
        assert_within_limits(run)


@pytest.mark.parametrize('arm_name, start_name', [
    (arm_name, start_name) for arm_name, starts in SINGULAR_STARTS.items()
    for start_name in starts])
def test_the_servo_leaves_an_exactly_singular_start_for_random_targets(arm_name, start_name):
    """Check targets reached from a start with sigma_min ~ 0, the stream within its limits."""
    start = np.array(SINGULAR_STARTS[arm_name][start_name])
    controller = bundled_controller(arm_name)
    J = controller.arm.kinematics.jacobian(start)
    assert manipulability(task_jacobian(J, controller.arm.task_rows)).sigma_min < 1e-6
    runs = random_runs(arm_name, start, 6, seed=11)
    assert [run.reached for run in runs] == [True] * 6, [run.messages[-1] for run in runs]
    for run in runs:
        assert_within_limits(run)


def test_a_stretched_ur5_escapes_toward_a_target_along_its_singular_direction():
    """
    Check the UR5 upright with its elbow straight, a target 0.2 m straight down.

    The only way down is to fold the elbow, the direction the stretched arm cannot move the
    tool in: the damped step realizes none of it. The servo escapes (the status and the
    log say so and why), reaches the target and says it servos again.
    """
    controller = bundled_controller('ur5', mode='servo')
    start = np.array(SINGULAR_STARTS['ur5']['elbow straight'])
    T_below = controller.arm.kinematics.tip_pose(start)
    T_below[2, 3] -= 0.2
    notices = []
    cycle = controller.cycle
    controller.cycle = lambda now: notices.extend((result := cycle(now)).notices) or result
    run = reach(controller, start, T_below, 5.0)
    assert run.reached and run.recoveries == ('escape',)
    assert_within_limits(run)
    assert any(message.startswith('servo escaping a singular configuration (sigma_min ')
               for message in run.messages), run.messages
    assert [notice.key for notice in notices if notice.key.startswith('servo:')] == [
        'servo:escape', 'servo:resume']
    assert 'from the target at a singular configuration' in notices[0].message


def test_a_new_target_at_a_singular_configuration_is_escaped_at_once_then_servoed():
    """
    Check the UR5 with its elbow straight and a far target with the elbow folded up (+2.94).

    Servoed from there, the straight tool line folded the elbow the other way (a seeded
    case found to): the servo ended at the elbow's lower limit short of the target and its
    escape swung the elbow through a whole turn (8.2 s against solve mode's 1.9 s). Now
    the new target's first cycle escapes toward the nearest IK solution (the status and the
    log say so), and the servo takes over once sigma_min is twice the threshold, far from
    the target; the elbow moves less than half a turn in all and the target is reached.
    """
    controller = bundled_controller('ur5', mode='servo')
    q_target = random_configurations(controller.arm.chain, 12, 7)[11]
    assert q_target[2] > 2.9  # the elbow folded up
    notices, elbow = [], []
    cycle = controller.cycle

    def recorded(now: float):
        result = cycle(now)
        notices.extend((notice, controller.joints.positions()) for notice in result.notices)
        elbow.append(result.command.q[2])
        return result

    controller.cycle = recorded
    T_target = controller.arm.kinematics.tip_pose(q_target)
    run = reach(controller, np.array(SINGULAR_STARTS['ur5']['elbow straight']), T_target, 20.0)
    assert run.reached, run.messages[-3:]
    assert_within_limits(run)
    assert run.messages[0].startswith('servo escaping a singular configuration ('), run.messages
    (escape, _), (resume, q_resumed) = [item for item in notices
                                        if item[0].key.startswith('servo:')][:2]
    assert escape.key == 'servo:escape' and escape.message.startswith('servo starting ')
    assert resume.key == 'servo:resume' and 'clear of the singular configuration' in resume.message
    e_p, _ = pose_error(T_target, controller.arm.kinematics.tip_pose(q_resumed))
    assert np.linalg.norm(e_p) > 0.5  # the servo moves the tool the rest of the way
    assert np.abs(np.diff(elbow)).sum() < np.pi, np.abs(np.diff(elbow)).sum()


def test_the_demos_stretched_panda_leaves_for_pose_b():
    """
    Check the demo's Panda case: pose A, the stretch near a singularity, then pose B.

    It stayed 0.197 m short of pose B with the damping at its maximum before the servo
    could recover; now every segment is reached within the limits.
    """
    controller = bundled_controller('panda', mode='servo', velocity_scale=0.5)
    run_demo_segments(controller, 'panda', ('reach pose A', 'position-only goal',
                                            'stretch to near-singular', 'leave it for pose B'))


def test_a_so101_stretch_by_its_base_is_left_on_a_loaded_machine():
    """
    Check the SO-101 stretch the demo once took, with collisions and a tenth of the budget.

    That stretch (chosen without collision checks) put the gripper 4 cm into the base. The
    servo stalls at a local minimum with the gripper a few mm over the base; the IK
    solutions nearest it put the gripper into the base. A loaded CI machine gave each solve
    too little time to find the free ones, and after 20 solves the target was refused
    ("the motion would bring base_link into gripper_link"). Now solutions in collision
    themselves are passed over before motions are checked, and a target is given up only
    after as many restarts as a quiet machine searches: the stretch is reached.
    """
    controller = bundled_controller('so101', mode='servo', velocity_scale=0.5,
                                    solve_time_budget=0.0005)
    controller.set_collision_guard(bundled_guard(controller, 'so101'))
    run = run_demo_segments(controller, 'so101', ('reach pose A', 'position-only goal',
                                                  'back to pose A', 'stretch to near-singular'))
    assert run.recoveries == ('fallback',), run.messages  # the stretch needed the fallback


@pytest.mark.parametrize('seed', range(6))
def test_the_demos_so101_stretch_keeps_clear_of_the_base_and_needs_no_recovery(seed):
    """
    Check the demo's SO-101 stretch, chosen clear of collisions, from starts near pose A.

    Its near-singular pose keeps ``STRETCH_CLEARANCE`` from every collision, so the servo,
    which stops ``collision_stop_distance`` short of one, gets there. With the stretch by
    the base, every one of these starts (pose A moved by 0.05 rad per joint, seeded) needed
    the fallback, and 2 of 12 such starts at velocity scales of 0.3-1 were refused after
    it (every motion to a solution blocked, detours too), as once in CI ("base_link into
    gripper_link"); now every one is reached without a recovery.
    """
    parser = argparse.ArgumentParser()
    add_arm_arguments(parser)
    clear = clear_of_collisions(load_selected_arm(parser.parse_args(['--arm', 'so101'])),
                                bundled_controller('so101').arm.kinematics)
    rng = np.random.default_rng(seed)
    pose_a = bundled_controller('so101', mode='servo')
    run_demo_segments(pose_a, 'so101', ('reach pose A',))
    start = pose_a.joints.positions() + rng.normal(0.0, 0.05, pose_a.arm.chain.n_joints)
    controller = bundled_controller('so101', mode='servo', velocity_scale=0.5,
                                    solve_time_budget=0.0005)
    controller.set_collision_guard(bundled_guard(controller, 'so101'))
    home = np.array(BUNDLED_ARMS['so101'].home)
    stretch = next(segment for segment in plan_segments(
        controller.arm.kinematics, home, controller.arm.task_rows, clear=clear)
        if segment.label == 'stretch to near-singular')
    run = reach(controller, start, stretch.T_base_target, 15.0, stretch.position_only)
    assert run.reached and run.recoveries == (), run.messages[-3:]
    assert_within_limits(run)


def test_a_local_minimum_is_left_by_a_fallback_that_says_why():
    """Check a Panda target the servo alone stalls short of: a fallback, then reached."""
    chain = bundled_controller('panda').arm.chain
    q_target = random_configurations(chain, 2, 7)[1]  # a seeded case found to need one
    controller = bundled_controller('panda', mode='servo')
    run = reach(controller, np.array(BUNDLED_ARMS['panda'].home),
                controller.arm.kinematics.tip_pose(q_target), 20.0)
    assert run.reached and run.recoveries == ('fallback',)
    assert_within_limits(run)
    assert any(message.startswith('servo leaving a local minimum of the error: ')
               for message in run.messages), run.messages


@pytest.mark.parametrize('arm_name', ['ur5', 'panda'])
def test_a_target_moving_across_a_singular_region_is_tracked_there_and_reached(arm_name):
    """
    Check a target moving at 0.1 m/s along the demo's jog line through a singular pose.

    The servo follows it within 5 cm all the way (through the region where sigma_min is
    smallest) and reaches it where it stops, the stream within its limits.
    """
    controller = bundled_controller(arm_name, mode='servo')
    kinematics = controller.arm.kinematics
    first, jog = jog_segments(kinematics, controller.arm.solver,
                              np.array(BUNDLED_ARMS[arm_name].home), controller.arm.task_rows,
                              seed=3)
    start = controller.arm.solver.solve(first.T_base_target, jog.q_singular, replace(
        controller.arm.solver.options, time_budget=0.5, solution_choice='closest'))
    assert start.success
    direction = jog.jog_velocity / np.linalg.norm(jog.jog_velocity)
    duration = 2 * JOG_LEAD / 0.1

    def moving(t: float) -> np.ndarray:
        T = first.T_base_target.copy()
        T[:3, 3] += 0.1 * min(t, duration) * direction
        return T

    errors, sigmas = [], []
    cycle = controller.cycle

    def watched(now: float):
        result = cycle(now)
        q = result.command.q
        T_now = moving(now)
        errors.append(np.linalg.norm(kinematics.tip_pose(q)[:3, 3] - T_now[:3, 3]))
        J = task_jacobian(kinematics.jacobian(q), controller.arm.task_rows)
        sigmas.append(manipulability(J).sigma_min)
        return result

    controller.cycle = watched
    run = reach(controller, start.q, moving(duration), duration + 4.0, moving=moving)
    assert run.reached
    assert_within_limits(run)
    assert max(errors) < 0.05
    assert min(sigmas) < 0.5 * controller.settings.singular_value_threshold


def test_a_target_the_solver_cannot_reach_is_an_error_after_the_recovery_tries():
    """
    Check the planar arm (reach 0.5..3.5 m) and a target 0.2 m from its base.

    Not provably out of reach by distance (the outer bound), the servo folds toward it and
    is stuck; the recovery's IK fails every attempt: ERROR, saying so and why the servo
    stopped, the arm held, every command within the limits. The next, reachable target is
    taken from its first cycle: the arm stopped folded at a singular configuration, so the
    servo escapes from it at once (not the refusal of the last target) and reaches it.
    """
    controller = bundled_controller('planar_2link', mode='servo')
    T_inside = np.eye(4)
    T_inside[:3, 3] = [0.2, 0.0, 0.0]
    run = reach(controller, np.array(BUNDLED_ARMS['planar_2link'].home), T_inside, 8.0,
                position_only=True)
    assert not run.reached
    assert_within_limits(run)
    assert controller.status.level == 'ERROR'
    assert re.match(r'IK failed \d+ times \(', controller.status.message), run.messages
    assert '(the servo was stuck at ' in controller.status.message
    assert controller.is_at_rest()
    T_reachable = controller.arm.kinematics.tip_pose(np.array([0.3, 1.2]))
    q = controller.joints.positions()
    J = controller.arm.kinematics.jacobian(q)
    assert manipulability(task_jacobian(J, controller.arm.task_rows)).sigma_min < (
        controller.settings.singular_value_threshold)
    next_run = reach(controller, q, T_reachable, 8.0, position_only=True, start=8.0)
    assert next_run.reached and next_run.recoveries == ('escape',)
    assert next_run.messages[0].startswith('servo escaping a singular configuration (')
    assert_within_limits(next_run)


def test_a_recovery_goes_on_for_a_target_moving_on_and_ends_for_another_target():
    """
    Check the escape of the stretched UR5 across target changes.

    While it escapes, a target 1 mm on from the last (a dragged marker) keeps the joint
    motion going (solved anew); a target 0.3 m away ends it at once: the servo takes it,
    escaping toward that target the singular configuration it finds the arm at and
    servoing as soon as the arm is out of it.
    """
    controller = bundled_controller('ur5', mode='servo')
    names = controller.arm.chain.joint_names
    q = np.array(SINGULAR_STARTS['ur5']['elbow straight'])
    T_below = controller.arm.kinematics.tip_pose(q)
    T_below[2, 3] -= 0.2
    now = 0.0
    notices = []

    def cycle_at(T_base_target: np.ndarray) -> str:
        nonlocal q, now
        controller.set_target('base_link', T_base_target[:3, 3],
                              matrix_to_quaternion(T_base_target[:3, :3]), 'pose', now)
        controller.update_joint_state(names, q, now)
        result = controller.cycle(now)
        notices[:] = result.notices
        q, now = result.command.q, now + PERIOD
        return controller.status.values['servo_recovery']

    kinds = [cycle_at(T_below) for _ in range(100)]
    assert 'escape' in kinds
    while cycle_at(T_below) != 'escape':  # back into the escape after the first one ends
        assert now < 5.0
    T_on = T_below.copy()
    T_on[2, 3] -= 0.001
    assert cycle_at(T_on) == 'escape'
    assert controller.status.message.startswith('servo escaping a singular configuration')
    T_away = controller.arm.kinematics.tip_pose(np.array(BUNDLED_ARMS['ur5'].home))
    assert cycle_at(T_away) == 'escape'
    assert [notice.key for notice in notices] == ['servo:escape']
    assert notices[0].message.startswith('servo starting ')
    while cycle_at(T_away) == 'escape':
        assert now < 10.0
    assert [notice.key for notice in notices] == ['servo:resume']
    assert 'clear of the singular configuration' in notices[0].message
    J = controller.arm.kinematics.jacobian(controller.joints.positions())
    assert manipulability(task_jacobian(J, controller.arm.task_rows)).sigma_min >= (
        RESUME_SIGMA_FACTOR * controller.settings.singular_value_threshold)


def test_a_brake_for_stale_joint_states_does_not_count_as_the_servo_making_no_progress():
    """
    Check the watch counts only cycles the servo was asked: a moving target, a 0.6 s outage.

    The UR5 tracks a target moving at 0.1 m/s; its joint states stop for 0.6 s (over
    ``joint_state_timeout``: the stream brakes to rest and holds) and come back. The servo
    then catches up again as a servo: no recovery, and it reaches the target where it stops.
    """
    controller = bundled_controller('ur5', mode='servo')
    names = controller.arm.chain.joint_names
    q = np.array(BUNDLED_ARMS['ur5'].home)
    T_start = controller.arm.kinematics.tip_pose(q)
    kinds = set()
    for index in range(600):
        now = index * PERIOD
        T_target = T_start.copy()
        T_target[0, 3] += 0.1 * min(now, 4.0)
        controller.set_target('base_link', T_target[:3, 3],
                              matrix_to_quaternion(T_target[:3, :3]), 'pose', now)
        if not 2.0 <= now < 2.6:  # the outage: no joint states
            controller.update_joint_state(names, q, now)
        q = controller.cycle(now).command.q
        kinds.add(controller.status.values.get('servo_recovery', 'none'))  # none: braking
    assert kinds == {'none'}
    e_p, _ = pose_error(T_target, controller.arm.kinematics.tip_pose(q))
    assert np.linalg.norm(e_p) < 1e-3
