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
The online trajectory generator: limits, arrival, synchronisation, preemption, optimality.

Property tests draw random limits, start states and targets (hypothesis); the stream is
checked from its samples with the same divided differences a controller would see.
"""

import importlib.util

from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from ros_ik.trajectory.jerk_profile import advance, SEGMENTS
from ros_ik.trajectory.jtc_spline import spline, whole_nanoseconds
from ros_ik.trajectory.motion_limits import MotionLimits
from ros_ik.trajectory.online_generator import (MotionState, OnlineGenerator,
                                                REST_TOLERANCE, SWITCH_MERGE)
from ros_ik.trajectory.stream_check import (divided_differences, stream_peaks,
                                            stream_peaks_from_rest)
from ros_ik_testing.ruckig_reference import rest_to_rest_duration

DT = 0.01
TOLERANCE = 1e-6  # relative, for round-off in the divided differences
BOUND = 4.0


def limits_strategy(n: int):
    """Return a strategy of MotionLimits for n joints with bounds +-BOUND."""
    positive = st.floats(0.2, 5.0)
    return st.tuples(st.lists(positive, min_size=n, max_size=n),
                     st.lists(st.floats(0.5, 30.0), min_size=n, max_size=n),
                     st.lists(st.floats(2.0, 2000.0), min_size=n, max_size=n)).map(
        lambda values: MotionLimits(np.full(n, -BOUND), np.full(n, BOUND),
                                    np.array(values[0]), np.array(values[1]),
                                    np.array(values[2])))


def draw_problem(data, n: int):
    """Draw limits for n joints; return them, their generator and a draw of unit vectors."""
    limits = data.draw(limits_strategy(n))
    unit = st.lists(st.floats(-1.0, 1.0), min_size=n, max_size=n).map(np.array)
    return limits, OnlineGenerator(limits), lambda: data.draw(unit)


def reachable_state(limits: MotionLimits, p: np.ndarray, fraction_v: np.ndarray,
                    fraction_a: np.ndarray) -> MotionState:
    """
    Return a moving state the generator could have produced.

    Within the v and a limits, able to ramp out its acceleration within the velocity limit
    and to stop inside the bounds.
    """
    a = fraction_a * np.minimum(limits.acceleration, np.sqrt(limits.jerk * limits.velocity))
    ramp_out = a * np.abs(a) / (2 * limits.jerk)  # velocity gained while a returns to 0
    low = np.maximum(-limits.velocity, -limits.velocity - ramp_out)
    high = np.minimum(limits.velocity, limits.velocity - ramp_out)
    v = low + 0.5 * (fraction_v + 1.0) * (high - low)
    state = MotionState(p, v, a)
    stop = OnlineGenerator(limits).stopping_positions(state)
    keep = (stop > -BOUND) & (stop < BOUND)
    return MotionState(p, np.where(keep, v, 0.0), np.where(keep, a, 0.0))


def run(generator: OnlineGenerator, state: MotionState, targets, steps_per_target: int,
        dt: float = DT):
    """Step toward each target for the given number of steps; return times and states."""
    times, states = [0.0], [state]
    for target in targets:
        for _ in range(steps_per_target):
            step = generator.step(states[-1], target, dt)
            times.append(times[-1] + dt)
            states.append(step.state)
    return np.array(times), states


def assert_within_limits(limits: MotionLimits, times, states) -> None:
    """Check every sample and the divided differences of the positions against the limits."""
    positions = np.array([state.position for state in states])
    for state in states:
        assert np.all(np.abs(state.velocity) <= limits.velocity * (1 + TOLERANCE) + 1e-12)
        assert np.all(np.abs(state.acceleration) <= limits.acceleration * (1 + TOLERANCE))
    peaks = stream_peaks(times, positions, limits.lower, limits.upper)
    ratios = peaks.ratios(limits.velocity, limits.acceleration, limits.jerk)
    assert np.all(ratios <= 1 + TOLERANCE), ratios
    assert np.all(peaks.beyond_bounds <= 1e-9)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 7))
def test_from_any_reachable_state_every_sample_is_within_the_limits_and_arrives(data, n):
    """Check random limits, moving starts and targets: limits hold, all joints arrive."""
    limits, generator, unit = draw_problem(data, n)
    state = reachable_state(limits, 0.9 * BOUND * unit(), unit(), unit())
    target = 0.9 * BOUND * unit()
    duration = generator.duration(state, target)
    times, states = run(generator, state, [target], int(np.ceil(duration / DT)) + 2)
    assert_within_limits(limits, times, states)
    np.testing.assert_allclose(states[-1].position, target, atol=1e-9)
    assert states[-1].is_at_rest()


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(2, 7))
def test_joints_starting_at_rest_arrive_together(data, n):
    """Check time synchronisation: every joint that moves is still moving until the end."""
    limits, generator, unit = draw_problem(data, n)
    start = MotionState.at_rest(0.9 * BOUND * unit())
    target = 0.9 * BOUND * unit()
    moving = np.abs(target - start.position) > 1e-3
    duration = generator.duration(start, target)
    steps = int(np.floor(duration / DT)) - 1
    if steps < 1 or not moving.any():
        return
    _, states = run(generator, start, [target], steps)
    last = states[-1]
    still_to_go = np.abs(target - last.position)
    assert np.all(still_to_go[moving] > 0.0)
    arrival = np.array([generator.duration(MotionState(last.position[j:j + 1],
                                                       last.velocity[j:j + 1],
                                                       last.acceleration[j:j + 1]),
                                           target[j:j + 1]) for j in range(n)])
    assert np.all(arrival[moving] > 0.0)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(1, 6), switch=st.integers(1, 80))
def test_a_new_target_preempts_with_continuous_velocity_and_acceleration(data, n, switch):
    """Check a target changed mid-motion (and again): no jump in v or a, limits hold."""
    limits, generator, unit = draw_problem(data, n)
    targets = [0.9 * BOUND * unit() for _ in range(3)]
    times, states = run(generator, MotionState.at_rest(np.zeros(n)), targets, switch)
    assert_within_limits(limits, times, states)
    for before, after in zip(states[:-1], states[1:]):
        assert np.all(np.abs(after.velocity - before.velocity)
                      <= limits.acceleration * DT * (1 + TOLERANCE))
        assert np.all(np.abs(after.acceleration - before.acceleration)
                      <= limits.jerk * DT * (1 + TOLERANCE))


@settings(max_examples=30, deadline=None)
@given(data=st.data(), n=st.integers(1, 6))
def test_uneven_steps_keep_the_limits_over_the_stamps(data, n):
    """Check steps of 0.5 ms to 50 ms: the divided differences over the stamps stay in."""
    limits, generator, unit = draw_problem(data, n)
    target = 0.9 * BOUND * unit()
    steps = data.draw(st.lists(st.floats(0.0005, 0.05), min_size=50, max_size=300))
    times, states = [0.0], [MotionState.at_rest(np.zeros(n))]
    for dt in steps:
        states.append(generator.step(states[-1], target, dt).state)
        times.append(times[-1] + dt)
    assert_within_limits(limits, np.array(times), states)


def test_a_joint_starting_outside_its_bounds_moves_in_and_stays_in():
    """Check a joint 3 mrad past its upper bound: moved inside within the limits."""
    limits = MotionLimits(np.array([-1.0]), np.array([1.0]), np.array([1.0]), np.array([5.0]),
                          np.array([50.0]))
    generator = OnlineGenerator(limits)
    times, states = run(generator, MotionState.at_rest(np.array([1.003])), [np.array([2.0])],
                        100)
    positions = np.array([state.position[0] for state in states])
    assert positions[-1] == pytest.approx(1.0) and np.all(np.diff(positions) <= 0.0)
    peaks = stream_peaks(times, positions[:, None], np.array([-1.0]), np.array([1.003]))
    assert np.all(peaks.ratios(limits.velocity, limits.acceleration, limits.jerk) <= 1 + 1e-9)


def test_a_state_at_rest_within_the_rest_tolerance_of_its_target_holds_still():
    """
    Check a goal off by rounding noise leaves the state as it is, and one just beyond moves.

    A servo goal at a reached target differs from the joints by ~1e-16 rad each cycle: the
    arm must not creep by ulps (and its joints must repeat bit for bit).
    """
    limits = MotionLimits(np.array([-1.0, -1.0]), np.array([1.0, 1.0]), np.array([1.0, 1.0]),
                          np.array([5.0, 5.0]), np.array([50.0, 50.0]))
    generator = OnlineGenerator(limits)
    state = MotionState.at_rest(np.array([0.3, -0.2]))
    held = generator.step(state, state.position + [0.9 * REST_TOLERANCE, -1e-16], DT)
    assert held.state is state and held.remaining == 0.0 and held.plan is None
    moving = generator.step(state, state.position + [3.0 * REST_TOLERANCE, 0.0], DT)
    assert moving.state.position[0] > state.position[0] and moving.plan is not None
    in_motion = MotionState(state.position, np.array([1e-3, 0.0]), np.zeros(2))
    assert generator.step(in_motion, in_motion.position, DT).state is not in_motion


def test_a_stalled_stream_is_checked_from_rest_at_the_held_command():
    """
    Check a stall: the stream before it and the one after it from rest at the held command.

    A joint at rest speeds up at 5 rad/s^2 to 0.5 rad/s, cruises, then a 60 ms gap and the
    same again: one stall; the peaks are those of one piece from rest (the stop across the
    gap is the controller holding, not the stream: 14 rad/s^2 read across it); a jump after
    the gap still shows.
    """
    period = 0.01
    speeds = np.concatenate([np.arange(1, 11) * 0.05, np.full(10, 0.5)])  # rad/s per step
    ramp = np.concatenate([[0.0], np.cumsum(speeds * period)])
    before = np.arange(len(ramp)) * period
    after = before[-1] + 0.06 + np.arange(len(ramp)) * period
    times = np.concatenate([before, after])
    positions = np.concatenate([ramp, ramp[-1] + ramp])[:, None]
    bounds = (np.array([-10.0]), np.array([10.0]))
    peaks, stalls = stream_peaks_from_rest(times, positions, np.zeros(1), period, 0.05, *bounds)
    assert stalls == 1
    assert peaks.velocity[0] == pytest.approx(0.5)
    assert peaks.acceleration[0] == pytest.approx(5.0)
    whole = stream_peaks(np.concatenate([[-2 * period, -period], times]),
                         np.vstack([[[0.0], [0.0]], positions]), *bounds)
    assert whole.acceleration[0] > 14.0  # the hold across the gap, read as the stream's
    jumped = positions.copy()
    jumped[len(ramp):] += 0.1
    peaks, _ = stream_peaks_from_rest(times, jumped, np.zeros(1), period, 0.05, *bounds)
    assert peaks.velocity[0] > 9.0  # 0.1 rad in one period


def test_braking_stops_as_hard_as_the_limits_allow():
    """Check the brake reaches rest where stopping_positions says, within the limits."""
    limits = MotionLimits(np.full(2, -10.0), np.full(2, 10.0), np.array([2.0, 1.0]),
                          np.array([4.0, 8.0]), np.array([40.0, 100.0]))
    generator = OnlineGenerator(limits)
    state = MotionState(np.zeros(2), np.array([1.5, -0.8]), np.array([1.0, 2.0]))
    stop = generator.stopping_positions(state)
    times, states = [0.0], [state]
    for _ in range(200):
        states.append(generator.brake_step(states[-1], DT).state)
        times.append(times[-1] + DT)
    np.testing.assert_allclose(states[-1].position, stop, atol=1e-9)
    assert states[-1].is_at_rest()
    # the hardest stop of joint 0 from (1.5, +1.0): a from +1 to -4 at 40/s^3, hold, ramp out
    t1, t3 = 5.0 / 40.0, 4.0 / 40.0
    v_after_ramps = 1.5 + (1.0 - 4.0) / 2 * t1 - 4.0 / 2 * t3
    assert v_after_ramps > 0.0
    p, v, a = advance(0.0, 1.5, 1.0, -40.0, t1)
    p, v, a = advance(p, v, a, 0.0, v_after_ramps / 4.0)
    p, v, a = advance(p, v, a, 40.0, t3)
    assert (v, a) == (pytest.approx(0.0, abs=1e-12), pytest.approx(0.0, abs=1e-12))
    assert stop[0] == pytest.approx(p, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 7))
def test_jtc_spline_through_the_stop_rows_is_the_hardest_stop_itself(data, n):
    """
    Check joint_trajectory_controller's quintic through the stop's rows against the brake.

    The rows sit at the jerk switches (at most 7 per joint), so between two of them every
    joint moves along a cubic that the rows' states fix, and JTC's quintic through them is
    that cubic: at 300 instants its state equals the brake step from the start state that
    long, and no acceleration exceeds its limit. Tolerances: rounding, and the switches
    merged within ``SWITCH_MERGE`` s or moved to whole nanoseconds, where a row's segment
    spans a jerk change (acceleration off by less than ``j_max SWITCH_MERGE``; velocity
    and position over the segment, at most the stop's duration ``T``, accordingly). The
    rows are whole nanoseconds apart. Rows every 2 ms overshot the acceleration limit by
    up to 4 %.
    """
    limits, generator, unit = draw_problem(data, n)
    state = reachable_state(limits, BOUND * 0.5 * unit(), unit(), unit())
    times, positions, velocities, accelerations = generator.stop_samples(state)
    if len(times) == 0:
        assert state.is_at_rest()
        return
    assert len(times) <= SEGMENTS * n and np.all(np.diff(times) >= SWITCH_MERGE)
    assert np.all(velocities[-1] == 0.0) and np.all(accelerations[-1] == 0.0)
    np.testing.assert_array_equal(times, whole_nanoseconds(times))
    rows = np.concatenate([[0.0], times])
    p, v, a = (np.vstack([start, later]) for start, later in (
        (state.position, positions), (state.velocity, velocities),
        (state.acceleration, accelerations)))
    merged = limits.jerk.max() * SWITCH_MERGE  # rad/s^2
    duration = times[-1]
    tolerances = (1e-9 * BOUND + merged * duration ** 2,
                  1e-9 * limits.velocity.max() + merged * duration,
                  1e-9 * limits.acceleration.max() + merged)
    for t in np.linspace(0.0, duration, 300):
        k = min(int(np.searchsorted(rows, t, side='right')) - 1, len(rows) - 2)
        following = (p[k + 1], v[k + 1], a[k + 1])
        setpoint = spline(rows[k], (p[k], v[k], a[k]), rows[k + 1], following, t)
        brake = generator.brake_step(state, t).state
        for got, expected, tolerance in zip(
                (setpoint.position, setpoint.velocity, setpoint.acceleration),
                (brake.position, brake.velocity, brake.acceleration), tolerances):
            np.testing.assert_allclose(got, expected, rtol=0.0, atol=tolerance)
        assert np.all(np.abs(setpoint.acceleration) <= limits.acceleration + tolerances[2])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 7), dt=st.floats(1e-4, 0.02))
def test_a_step_and_its_stop_are_sampled_as_the_step_then_the_stop(data, n, dt):
    """
    Check the step check's samples: the step's start, then the stop's own samples.

    Row 0 the start, its variation ``|v| dt + a_max dt^2 / 2``; then exactly the rows and
    variations :meth:`OnlineGenerator.samples` gives for the hardest stop after the step.
    """
    limits, generator, unit = draw_problem(data, n)
    state = reachable_state(limits, BOUND * 0.5 * unit(), unit(), unit())
    following = generator.step(state, BOUND * 0.5 * unit(), dt).state
    weights = np.abs(unit()) + 0.1
    path = generator.step_and_stop_samples(state, following, dt, weights, 0.01, 20000)
    stop = generator.samples(following, generator.stopping_positions(following), weights,
                             0.01, 20000)
    assert path is not None and stop is not None
    np.testing.assert_array_equal(path[0], np.vstack([state.position, stop[0]]))
    step = np.abs(state.velocity) * dt + 0.5 * limits.acceleration * dt * dt
    np.testing.assert_allclose(path[1], np.vstack([step, stop[1]]), rtol=1e-15, atol=0.0)
    assert generator.step_and_stop_samples(state, following, dt, weights, 0.01, 1) is None


def test_divided_differences_of_a_cubic_are_its_derivatives():
    """Check the stream check on p = t^3 at uneven times: v, a, j means; j exactly 6."""
    times = np.array([0.0, 0.1, 0.25, 0.3, 0.7])
    values = (times ** 3)[:, None]
    np.testing.assert_allclose(divided_differences(times, values, 3), 6.0)
    velocity = divided_differences(times, values, 1)[:, 0]
    np.testing.assert_allclose(velocity, (times[1:] ** 3 - times[:-1] ** 3) / np.diff(times))


@pytest.mark.skipif(importlib.util.find_spec('ruckig') is None,
                    reason='ruckig (test reference) is not installed')
@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 7))
def test_rest_to_rest_duration_matches_ruckig(data, n):
    """Check the synchronised rest-to-rest duration is within 1 % of Ruckig's (time-optimal)."""
    limits, generator, unit = draw_problem(data, n)
    start, target = 0.9 * BOUND * unit(), 0.9 * BOUND * unit()
    if np.abs(target - start).max() < 1e-3:
        return
    ours = generator.duration(MotionState.at_rest(start), target)
    reference = rest_to_rest_duration(limits, start, target)
    assert 0.99 * reference - 1e-9 <= ours <= 1.01 * reference + 1e-9
