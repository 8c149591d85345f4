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
Jogging benchmark: the tool jogged at 0.1 m/s straight through a singular configuration.

For the UR5 and the Panda, the demo's jog line (:func:`ros_ik.demo.segments.jog_segments`:
through the tool point of a configuration with sigma_min ~ 0 sampled near the home pose,
in the direction the tool moves most easily there, reachable both ways), the ROS-free
controller jogs the tool from JOG_LEAD before the singular point to JOG_LEAD past it,
with a perfect arm at 100 Hz, starting from the IK solution nearest the singular
configuration. Per arm it prints: the slowest tool progress over any 0.1 s
(a halt shows as 0), the peak commanded joint speed and acceleration over the limits (from
the command times), and the largest deviation of the tool from the line before and after
the 5 cm around the singular point (goal: under 5 mm), and inside them, and the lowest
sigma_min passed (m/rad): how close to the singularity the jog went.

Run: ``.venv/bin/python bench/bench_jog.py``.
"""

from dataclasses import replace
import os
import sys

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPOSITORY)

import numpy as np  # noqa: E402
from ros_ik.control.arm import ControlledArm  # noqa: E402
from ros_ik.control.controller import IkController  # noqa: E402
from ros_ik.control.parameters import Settings  # noqa: E402
from ros_ik.demo.segments import JOG_LEAD, jog_segments  # noqa: E402
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS,  # noqa: E402
                                            bundled_joint_limits_path, load_bundled_chain)
from ros_ik.kinematics.manipulability import manipulability  # noqa: E402
from ros_ik.kinematics.task_space import axes_text  # noqa: E402
from ros_ik.trajectory.stream_check import stream_peaks  # noqa: E402

SPEED = 0.1  # m/s
SECONDS = 2 * JOG_LEAD / SPEED
PERIOD = 0.01
NEAR = 0.025  # m either side of the singular point counted as its region


def run(arm_name: str) -> str:
    """Jog one arm through its singular pose; return the table row."""
    chain = load_bundled_chain(arm_name)
    axes = axes_text(BUNDLED_ARMS[arm_name].task_rows)
    settings = Settings.from_values({'base_link': chain.base_link, 'tip_link': chain.tip_link,
                                     'task_axes': axes,
                                     'joint_limits_file': bundled_joint_limits_path(arm_name)})
    controller = IkController(ControlledArm.from_chain(chain, axes), settings)
    kinematics = controller.arm.kinematics
    home = np.array(BUNDLED_ARMS[arm_name].home)
    segments = jog_segments(kinematics, controller.arm.solver, home, controller.arm.task_rows,
                            seed=3)
    if not segments:
        return f'{arm_name:<8}no singular configuration with a reachable line found'
    T_start, jog = segments[0].T_base_target, segments[1]
    direction = jog.jog_velocity / np.linalg.norm(jog.jog_velocity)
    # The start in the singular configuration's branch (a redundant arm started elsewhere
    # may pass the line far from any singularity).
    start = controller.arm.solver.solve(T_start, jog.q_singular, replace(
        controller.arm.solver.options, time_budget=0.5, solution_choice='closest'))
    if not start.success:
        return f'{arm_name:<8}no IK solution at the jog start: {start.reason}'
    q, names = start.q, chain.joint_names
    times, positions = [], []
    for index in range(int(SECONDS / PERIOD)):
        now = index * PERIOD
        controller.set_twist(chain.base_link, SPEED * direction, (0.0, 0.0, 0.0), now)
        controller.update_joint_state(names, q, now)
        command = controller.cycle(now).command
        q = command.q
        times.append(command.time)
        positions.append(q)
    tips = np.array([kinematics.tip_pose(q)[:3, 3] for q in positions])
    along = (tips - tips[0]) @ direction
    offsets = tips - tips[0] - np.outer(along, direction)
    deviation = np.linalg.norm(offsets, axis=1)
    near = np.abs(along - JOG_LEAD) < NEAR
    window = int(0.1 / PERIOD)
    slowest = float(np.min(along[window + 50:] - along[50:-window])) / 0.1  # after start-up
    limits = controller.command_limits
    ratios = stream_peaks(np.array([times[0] - 0.02, times[0] - 0.01] + times),
                          np.array([start.q, start.q] + positions), limits.lower,
                          limits.upper).ratios(limits.velocity, limits.acceleration,
                                               limits.jerk)
    inside = deviation[near].max() if near.any() else float('nan')
    rows = list(controller.arm.task_rows)
    sigma_min = min(manipulability(kinematics.jacobian(q)[rows]).sigma_min for q in positions)
    return (f'{arm_name:<8}{slowest:>12.4f}{ratios[0]:>9.3f}{ratios[1]:>9.3f}'
            f'{1e3 * deviation[~near].max():>13.3f}{1e3 * inside:>11.3f}'
            f'{along[-1]:>10.3f}{sigma_min:>11.4f}')


def main() -> None:
    """Print the table."""
    print(f'tool jogged at {SPEED} m/s through a singular pose ({JOG_LEAD} m lead-in, '
          f'{SECONDS} s, 100 Hz)')
    print(f'{"arm":<8}{"min m/s":>12}{"peak v":>9}{"peak a":>9}{"dev out mm":>13}'
          f'{"dev in mm":>11}{"path m":>10}{"min sigma":>11}')
    for arm_name in ('ur5', 'panda'):
        print(run(arm_name), flush=True)


if __name__ == '__main__':
    from bench_report import run_documented
    run_documented('bench_jog', main)
