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

"""Unit tests of the node clock: the system time until ROS time is active, then ROS time."""

import time

from rclpy.clock import ROSClock
from rclpy.clock_type import ClockType
from rclpy.time import Time
from ros_ik.node.node_clock import NO_TIME, NodeClock

SIM_TIME = Time(seconds=42, nanoseconds=5, clock_type=ClockType.ROS_TIME)


def test_a_clock_without_ros_time_reads_the_system_time():
    """Inactive ROS time: the value lies between two reads of the system clock."""
    node_clock = NodeClock(ROSClock())
    before = time.time_ns()
    now = node_clock.now_ns()
    assert before <= now <= time.time_ns()


def test_activating_ros_time_switches_to_it_and_deactivating_switches_back():
    """ROS time activated after the clock was wrapped (use_sim_time set later), then off."""
    clock = ROSClock()
    node_clock = NodeClock(clock)
    clock._set_ros_time_is_active(True)
    clock.set_ros_time_override(SIM_TIME)
    assert node_clock.now_ns() == SIM_TIME.nanoseconds
    clock._set_ros_time_is_active(False)
    before = time.time_ns()
    assert before <= node_clock.now_ns() <= time.time_ns()


def test_a_clock_wrapped_with_ros_time_active_reads_ros_time():
    """ROS time already active when the node starts (use_sim_time at start-up)."""
    clock = ROSClock()
    clock._set_ros_time_is_active(True)
    clock.set_ros_time_override(SIM_TIME)
    assert NodeClock(clock).now_ns() == SIM_TIME.nanoseconds


def test_ros_time_has_no_time_until_the_clock_topic_gives_one():
    """The system time always has one; active ROS time at zero (no /clock yet) has none."""
    clock = ROSClock()
    node_clock = NodeClock(clock)
    assert node_clock.now_ns() != NO_TIME
    clock._set_ros_time_is_active(True)
    assert node_clock.now_ns() == NO_TIME
    clock.set_ros_time_override(SIM_TIME)
    assert node_clock.now_ns() == SIM_TIME.nanoseconds != NO_TIME
