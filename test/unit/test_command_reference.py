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

"""The reference a simulated driver follows between commands: extrapolated or smoothed."""

from hypothesis import given, strategies
import numpy as np
import pytest
from ros_ik.physics.mujoco_arm import PhysicsOptions
from ros_ik.physics.servo_gains import ServoGains
from ros_ik.sim.command_reference import (CommandReference, MAX_EXTRAPOLATION, SMOOTHING,
                                          spanning, VELOCITY_WINDOW)
from test_physics import pendulum_urdf, simulation_of

BOUNDS = (np.array([-10.0]), np.array([10.0]))  # rad
PERIOD, SPEED = 0.002, 1.0  # s, rad/s: a 500 Hz stream of a ramp


def jittered_ramp(seconds: float, jitter: float, seed: int):
    """Return ``(arrival, position)`` of a ramp's samples, each delivered up to ``jitter`` late."""
    rng = np.random.default_rng(seed)
    samples = [(k * PERIOD + rng.uniform(0.0, jitter), SPEED * k * PERIOD)
               for k in range(1, int(seconds / PERIOD))]
    return sorted(samples)


def test_spanning_keeps_the_shortest_tail_before_the_time_that_spans_the_span():
    """Check the tail from the newest entry ``span`` old; all when none is; none after."""
    entries = [(t, np.array([t])) for t in (0.0, 0.03, 0.05, 0.08, 0.1)]
    assert [t for t, _ in spanning(entries, 0.1, 0.05)] == [0.05, 0.08]
    assert [t for t, _ in spanning(entries, 0.1, 0.5)] == [0.0, 0.03, 0.05, 0.08]
    assert spanning(entries, 0.0, 0.01) == []


def test_a_command_with_velocity_moves_on_with_it_then_stops():
    """Check ``q_cmd + v_cmd min(t - t_cmd, MAX_EXTRAPOLATION)`` and ``v_ref`` then 0."""
    reference = CommandReference(np.zeros(1), 0.0)
    reference.take(np.array([1.0]), np.array([2.0]), 1.0)
    q, v = reference.at(1.05, BOUNDS)
    assert q[0] == pytest.approx(1.1) and v[0] == 2.0
    q, v = reference.at(1.0 + 3 * MAX_EXTRAPOLATION, BOUNDS)
    assert q[0] == pytest.approx(1.0 + 2.0 * MAX_EXTRAPOLATION) and v[0] == 0.0
    assert reference.at(1.0 + 100.0, (np.array([-1.0]), np.array([1.1])))[0][0] == 1.1


def test_commands_arriving_closer_than_the_velocity_window_give_no_speed():
    """
    Check a stream's first commands and a burst after a gap: no speed from microseconds.

    Commands queued through a stall arrive microseconds apart; their quotient (1 rad in
    5e-324 s gave inf, and a NaN reference) is no speed: the reference converges onto
    the newest command at rest until the arrivals span ``VELOCITY_WINDOW``.
    """
    reference = CommandReference(np.zeros(1), 0.0)
    for arrival, position in ((0.0, 0.0), (5e-324, 1.0), (1e-6, 1.001)):
        reference.take_positions(np.array([position]), arrival, BOUNDS)
        assert reference.velocity[0] == 0.0
        assert np.all(np.isfinite(reference.at(arrival + 0.01, BOUNDS)))
    reference.take_positions(np.array([1.021]), VELOCITY_WINDOW, BOUNDS)
    assert reference.velocity[0] == pytest.approx(1.021 / VELOCITY_WINDOW)
    late = 1.0  # a gap longer than MAX_EXTRAPOLATION: the old arrivals are dropped
    for offset, position in ((0.0, 2.0), (1e-5, 2.01)):
        reference.take_positions(np.array([position]), late + offset, BOUNDS)
        assert reference.velocity[0] == 0.0


@given(strategies.lists(strategies.tuples(strategies.floats(0.0, 0.03),
                                          strategies.floats(-1.0, 1.0)),
                        min_size=1, max_size=40))
def test_position_only_commands_never_make_the_reference_jump(commands):
    """Check continuity at every arrival and ``v_ref`` = the derivative of ``q_ref``."""
    reference = CommandReference(np.zeros(1), 0.0)
    arrival = 0.0
    for interval, position in commands:
        arrival += interval
        before = reference.at(arrival, BOUNDS)[0]
        reference.take_positions(np.array([position]), arrival, BOUNDS)
        assert reference.at(arrival, BOUNDS)[0] == pytest.approx(before, abs=1e-12)
        for after in (1e-4, 0.5 * SMOOTHING, 2.0 * MAX_EXTRAPOLATION):
            step = 1e-7
            q_minus, q_plus = (reference.at(arrival + after + sign * step, BOUNDS)[0]
                               for sign in (-1.0, 1.0))
            velocity = reference.at(arrival + after, BOUNDS)[1]
            assert (q_plus - q_minus) / (2 * step) == pytest.approx(velocity, abs=1e-5)


def test_a_jittered_stream_gives_a_steady_reference_close_behind_it():
    """
    Check a 500 Hz ramp at 1 rad/s delivered up to 2 ms late (as over DDS on a quiet machine).

    After the velocity window, ``v_ref`` stays within 20 % of the speed (held positions
    gave 0 to 1.5 times it) and the reference behind the ramp by at most the speed times
    the latest delivery (2 mrad).
    """
    reference = CommandReference(np.zeros(1), 0.0)
    samples = jittered_ramp(0.5, 0.002, seed=3)
    index, velocities, errors = 0, [], []
    for time in np.arange(0.0, 0.5, 2e-4):
        while index < len(samples) and samples[index][0] <= time:
            reference.take_positions(np.array([samples[index][1]]), samples[index][0], BOUNDS)
            index += 1
        q, v = reference.at(time, BOUNDS)
        if time > 5 * VELOCITY_WINDOW:
            velocities.append(v[0])
            errors.append(SPEED * time - q[0])
    assert min(velocities) > 0.8 * SPEED and max(velocities) < 1.2 * SPEED
    assert max(np.abs(errors)) < SPEED * 0.002  # behind by the delivery delay


def starved_ramp(seconds: float, stall: float, seed: int):
    """
    Return ``(arrival, position, sent)`` of the ramp through a driver starved every 0.2 s.

    Each sample is delivered up to 1 ms late, in order; those due while the driver's
    process is starved (``stall`` s from 0.3 s on, every 0.2 s) arrive together at its end.
    """
    rng = np.random.default_rng(seed)
    sent = np.arange(1, int(seconds / PERIOD)) * PERIOD
    arrivals = np.maximum.accumulate(sent + rng.uniform(0.0, 0.001, len(sent)))
    for start in np.arange(0.3, seconds, 0.2):
        queued = (arrivals >= start) & (arrivals < start + stall)
        arrivals[queued] = start + stall + 1e-6 * np.arange(queued.sum())
    return list(zip(arrivals, SPEED * sent, sent))


def test_commands_queued_through_a_starved_driver_are_dated_when_they_were_sent():
    """
    Check a 500 Hz ramp whose driver is starved for 15 ms every 0.2 s (its commands burst).

    Each command of a burst lies on the stream's line: dated within 3 ms of when it was
    sent (by its arrival, up to 15 ms late), and ``v_ref`` stays within 20 % of the speed
    (dated by arrival, it swung from -0.46 to 1.08 times it).
    """
    reference = CommandReference(np.zeros(1), 0.0)
    samples = starved_ramp(1.5, 0.015, seed=1)
    index, velocities, datings = 0, [], []
    for time in np.arange(0.0, 1.5, 1e-3):
        while index < len(samples) and samples[index][0] <= time:
            arrival, position, sent = samples[index]
            reference.take_positions(np.array([position]), arrival, BOUNDS)
            datings.append(reference.time - sent)
            index += 1
        if time > 0.2:
            velocities.append(reference.at(time, BOUNDS)[1][0])
    assert max(np.abs(datings[100:])) < 0.003
    assert min(velocities) > 0.8 * SPEED and max(velocities) < 1.2 * SPEED


def test_a_gap_in_the_stream_is_carried_through_at_its_speed_then_stops():
    """Check a stream that stops: on at its speed for ``MAX_EXTRAPOLATION`` s, then still."""
    reference = CommandReference(np.zeros(1), 0.0)
    for arrival, position in jittered_ramp(0.2, 0.0, seed=0):
        reference.take_positions(np.array([position]), arrival, BOUNDS)
    last = reference.time
    q, v = reference.at(last + 0.5 * MAX_EXTRAPOLATION, BOUNDS)
    assert v[0] == pytest.approx(SPEED, rel=0.01)
    q, v = reference.at(last + MAX_EXTRAPOLATION + 20 * SMOOTHING, BOUNDS)
    assert v[0] == pytest.approx(0.0, abs=1e-6)
    assert q[0] == pytest.approx(SPEED * (last + MAX_EXTRAPOLATION), abs=2e-3)


def test_hold_stops_at_once_and_forgets_the_stream():
    """Check a fault's hold: the reference is the held position from then on, speed 0."""
    reference = CommandReference(np.zeros(1), 0.0)
    for arrival, position in jittered_ramp(0.1, 0.0, seed=0):
        reference.take_positions(np.array([position]), arrival, BOUNDS)
    reference.hold(np.array([0.05]), 0.1)
    q, v = reference.at(0.15, BOUNDS)
    assert q[0] == 0.05 and v[0] == 0.0
    reference.take_positions(np.array([0.05]), 0.2, BOUNDS)  # a stream's first: no speed
    assert reference.at(0.21, BOUNDS)[1][0] == 0.0


def peak_effort_following(take, samples) -> float:
    """
    Return the drive's peak |effort| (N m) after 0.1 s, a 500 Hz loop stepping the pendulum.

    ``take(reference, position, arrival)`` hands each sample over as it arrives; every
    loop the simulation follows the reference from the last loop's ``(q, v)`` to its own.
    """
    simulation = simulation_of(pendulum_urdf(effort=1000.0), 'base', 'tip', [0.0],
                               ServoGains(np.array([2000.0]), np.array([40.0])),
                               options=PhysicsOptions(gravity=(0.0, 0.0, 0.0)))
    reference = CommandReference(np.zeros(1), 0.0)
    start, index, peak = reference.at(0.0, BOUNDS), 0, 0.0
    for loop in range(1, int(samples[-1][0] / PERIOD)):
        time = loop * PERIOD
        while samples[index][0] <= time:
            take(reference, np.array([samples[index][1]]), samples[index][0])
            index += 1
        end = reference.at(time, BOUNDS)
        simulation.advance_between(start, end, 2)
        start = end
        if time > 0.1:
            peak = max(peak, abs(simulation.effort[0]))
    return peak


def test_a_drive_following_a_jittered_position_stream_needs_little_effort():
    """
    Check the pendulum's drive on the jittered ramp (1 rad/s, no gravity, kd 40).

    Smoothed: the effort stays under 10 N m (kd times the velocity ripple); each position
    held with zero velocity instead, the feed-forward's swings need over 20 N m.
    """
    samples = jittered_ramp(0.5, 0.002, seed=5)
    smoothed = peak_effort_following(
        lambda reference, q, arrival: reference.take_positions(q, arrival, BOUNDS), samples)
    held = peak_effort_following(
        lambda reference, q, arrival: reference.take(q, np.zeros(1), arrival), samples)
    assert smoothed < 10.0 < 20.0 < held, (smoothed, held)
