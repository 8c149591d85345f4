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
One joint's jerk-limited profiles and the bracketed roots they are solved with.

Each profile is integrated segment by segment (exact cubics) and checked against what it
was solved for: the distance it must cover, the time it must take, the peak velocity whose
phase distance ``F`` equals the distance, and the bracket's signs.
"""

from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from ros_ik.trajectory.jerk_profile import (advance, bracketed_root, DISTANCE_TOLERANCE,
                                            fastest_profile, PEAK_DISTANCE, peak_distance,
                                            profile_in_time, ROOT_TOLERANCE, SEGMENTS)

# Round-off of integrating seven cubic segments, relative to the distance (or 1 rad / m).
END_TOLERANCE = 1e-10
# Shorter motions are not stretched to the time asked within 1e-9 s: for a peak velocity
# near 0 the cruise (d - F(peak)) / peak divides round-off by almost nothing (the joint then
# arrives microseconds after the others).
MIN_STRETCHED_TIME = 1e-3


def joint_problem(data):
    """Draw limits ``(V, A, J)``, a start ``(v0, a0)`` within them and a distance."""
    v_max = data.draw(st.floats(0.2, 5.0))
    a_max = data.draw(st.floats(0.5, 30.0))
    j_max = data.draw(st.floats(2.0, 2000.0))
    a0 = data.draw(st.floats(-1.0, 1.0)) * min(a_max, np.sqrt(j_max * v_max))
    ramp_out = a0 * abs(a0) / (2.0 * j_max)
    v0 = data.draw(st.floats(max(-v_max, -v_max - ramp_out), min(v_max, v_max - ramp_out)))
    distance = data.draw(st.floats(-6.0, 6.0))
    return v_max, a_max, j_max, v0, a0, distance


def integrate(v0: float, a0: float, jerks: np.ndarray, durations: np.ndarray):
    """Return ``(p, v, a)`` at the end of a profile started at ``(0, v0, a0)``, its duration."""
    p, v, a = 0.0, v0, a0
    for k in range(SEGMENTS):
        p, v, a = advance(p, v, a, jerks[k], durations[k])
    return (p, v, a), float(durations.sum())


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_fastest_profile_covers_the_distance_to_rest_within_the_limits(data):
    """Check the end (distance, at rest), the peak's F and the reported duration."""
    v_max, a_max, j_max, v0, a0, distance = joint_problem(data)
    jerks, durations = np.zeros(SEGMENTS), np.zeros(SEGMENTS)
    duration, peak = fastest_profile(distance, v0, a0, v_max, a_max, j_max, jerks, durations)
    (p, v, a), total = integrate(v0, a0, jerks, durations)
    scale = max(1.0, abs(distance))
    # a distance within DISTANCE_TOLERANCE of a branch's end takes that end
    assert abs(p - distance) <= DISTANCE_TOLERANCE + END_TOLERANCE * scale
    assert abs(v) <= 1e-9 and abs(a) <= 1e-9
    assert np.all(durations >= 0.0) and total == pytest.approx(duration, rel=1e-12)
    assert np.all(np.abs(jerks) <= j_max)
    if 0.0 < abs(peak) < v_max:  # no cruise: the peak is the root of F(peak) = distance
        scratch_jerks, scratch_durations = np.zeros(SEGMENTS), np.zeros(SEGMENTS)
        covered = peak_distance(v0, a0, peak, a_max, j_max, scratch_jerks, scratch_durations)
        assert abs(covered - distance) <= DISTANCE_TOLERANCE + 4 * ROOT_TOLERANCE * scale


@settings(max_examples=300, deadline=None)
@given(data=st.data(), stretch=st.floats(1.0 + 1e-6, 4.0))
def test_a_stretched_profile_takes_the_common_time_and_not_longer(data, stretch):
    """Check profile_in_time: the distance, at rest, ``T - 1e-9 <= duration <= T`` (ulps)."""
    v_max, a_max, j_max, v0, a0, distance = joint_problem(data)
    jerks, durations = np.zeros(SEGMENTS), np.zeros(SEGMENTS)
    fastest_time, peak = fastest_profile(distance, v0, a0, v_max, a_max, j_max, jerks,
                                         durations)
    if fastest_time < MIN_STRETCHED_TIME:
        return  # see MIN_STRETCHED_TIME
    common_time = stretch * fastest_time
    if not profile_in_time(distance, v0, a0, peak, fastest_time, common_time, a_max, j_max,
                           jerks, durations):
        return  # a joint that cannot arrive later keeps its fastest profile (and waits)
    (p, v, a), total = integrate(v0, a0, jerks, durations)
    assert abs(p - distance) <= 1e-9
    assert abs(v) <= 1e-9 and abs(a) <= 1e-9
    assert common_time - 1e-9 <= total <= common_time * (1.0 + 1e-14)  # summation order
    assert np.all(durations >= 0.0)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), fraction=st.floats(0.0, 1.0))
def test_the_bracketed_root_keeps_the_signs_of_its_ends(data, fraction):
    """Check a root of F(peak) = distance on an increasing branch: signs kept, residual tiny."""
    v_max, a_max, j_max, _, _, _ = joint_problem(data)
    jerks, durations = np.zeros(SEGMENTS), np.zeros(SEGMENTS)
    low, high = 0.0, v_max  # F increases on [0, V] from rest
    at_low = peak_distance(0.0, 0.0, low, a_max, j_max, jerks, durations)
    at_high = peak_distance(0.0, 0.0, high, a_max, j_max, jerks, durations)
    distance = at_low + fraction * (at_high - at_low)
    x_neg, g_neg, x_pos, g_pos = bracketed_root(PEAK_DISTANCE, 1.0, distance, 0.0, 0.0, 0.0,
                                                a_max, j_max, low, at_low - distance, high,
                                                at_high - distance, jerks, durations)
    assert g_neg <= 0.0 and (g_pos > 0.0 or x_pos == x_neg)
    assert low <= x_neg <= high and low <= x_pos <= high
    assert -ROOT_TOLERANCE * max(1.0, distance) <= g_neg
    assert g_neg == peak_distance(0.0, 0.0, x_neg, a_max, j_max, jerks, durations) - distance
    # closed form from rest (Biagiotti and Melchiorri 3.4): each change 0 <-> vp takes
    # T = 2 sqrt(vp / J) if J vp <= A^2, else vp / A + A / J; F(vp) = vp T
    change_time = (2.0 * np.sqrt(x_neg / j_max) if j_max * x_neg <= a_max ** 2
                   else x_neg / a_max + a_max / j_max)
    assert x_neg * change_time == pytest.approx(distance, rel=1e-9, abs=1e-12)
