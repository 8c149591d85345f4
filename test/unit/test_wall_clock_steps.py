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

"""The simulation steps due in wall-clock time: bookkeeping, skips, a drive on a ramp."""

from hypothesis import given, strategies
import numpy as np
import pytest
from ros_ik.physics.mujoco_arm import PhysicsOptions
from ros_ik.physics.servo_gains import ServoGains
from ros_ik.physics.wall_clock_steps import paired_reading, WallClockSteps
from test_physics import pendulum_urdf, simulation_of

TIMESTEP, MAX_CATCH_UP = 0.001, 0.05  # s: physics_arm's defaults


@given(strategies.lists(strategies.floats(0.0, 0.2), min_size=1, max_size=50))
def test_the_steps_end_lag_before_the_wall_time_or_a_stall_is_skipped(periods):
    """Check ``t0 + S + lag = t`` after every loop; a stall over the cap skips to that."""
    clock = WallClockSteps(TIMESTEP, MAX_CATCH_UP, started=10.0)
    wall = 10.0
    for period in periods:
        wall += period
        simulated, started = clock.simulated, clock.started
        due = clock.due(wall)
        assert 0.0 <= due.lag < TIMESTEP + 1e-12
        assert abs(clock.started + clock.simulated + due.lag - wall) < 1e-9
        assert abs(clock.simulated - simulated - due.steps * TIMESTEP) < 1e-12
        behind = wall - started - simulated
        assert due.skipped == (behind > MAX_CATCH_UP)
        assert due.steps == (int(MAX_CATCH_UP / TIMESTEP) if due.skipped
                             else int(behind / TIMESTEP))


def test_a_drive_stepped_at_irregular_instants_tracks_a_ramp_at_its_speed():
    """
    Check a ramp ``q = v t`` (0.5 rad/s) sampled at the steps' end, loops 0.5-3 ms apart.

    The loop of physics_arm: each loop takes the steps due and drives them along the curve
    from the last loop's reference to the reference at the time the steps reach. The
    drive's speed stays within 0.1 % of the ramp's (measured: 1e-14; sampled at the loop's
    wall time instead, the speed swung by 7 %, a one-step loop after a long one driving up
    to twice the motion through its step).
    """
    speed = 0.5
    simulation = simulation_of(pendulum_urdf(), 'base', 'tip', [0.0],
                               ServoGains(np.array([2000.0]), np.array([40.0])),
                               options=PhysicsOptions(gravity=(0.0, 0.0, 0.0)))
    random = np.random.default_rng(7)
    clock = WallClockSteps(TIMESTEP, MAX_CATCH_UP, started=0.0)
    wall, reference = 0.0, (np.zeros(1), np.array([speed]))
    simulation.place(*reference)
    speeds = []
    while wall < 1.0:
        wall += random.uniform(0.0005, 0.003)
        due = clock.due(wall)
        end = (np.array([speed * (wall - due.lag)]), np.array([speed]))
        if due.steps:
            simulation.advance_between(reference, end, due.steps)
            reference = end
        speeds.append(simulation.velocity[0])
    assert np.max(np.abs(np.array(speeds) - speed)) < 1e-3 * speed


class PreemptedClocks:
    """Two clocks at one true time; the first ``preempted`` readings lose 5 ms in between."""

    def __init__(self, preempted: int) -> None:
        """Start at true time 1.0 s; the other clock reads true time + 100 s."""
        self.time, self.preempted = 1.0, preempted

    def wall(self) -> float:
        """Read the wall clock; time moves on 10 us per reading."""
        self.time += 1e-5
        return self.time

    def other(self) -> float:
        """Read the other clock; a preempted reading is followed by a 5 ms gap."""
        reading = self.time + 100.0
        if self.preempted > 0:
            self.preempted -= 1
            self.time += 0.005
        return reading


def test_a_paired_reading_retries_a_preempted_pair():
    """Check that a pair read across a preemption is read again; both at one instant."""
    clocks = PreemptedClocks(preempted=2)
    other, wall = paired_reading(clocks.other, clocks.wall)
    assert clocks.preempted == 0
    assert abs(other - 100.0 - wall) <= 1e-5 + 1e-12


def test_a_paired_reading_gives_up_after_its_tries():
    """Check that a pair preempted on every try is still returned after ``tries``."""
    clocks = PreemptedClocks(preempted=10)
    other, wall = paired_reading(clocks.other, clocks.wall, tries=3)
    assert clocks.preempted == 7
    assert abs(other - 100.0 - wall) == pytest.approx(0.0025, abs=2e-5)
