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
The demo's plot: manipulability, damping, the controller's joint speed and acceleration.

The bottom panel replays the singular stretch offline, damped (as the node does) and with
an undamped pseudo-inverse, whose joint speeds spike; with the physics arm two more panels
show the tracking error at the tool and each drive's effort / limit.
"""

from typing import List, Optional

import numpy as np
from ros_ik.demo.driver import Outcome, Recording
from ros_ik.demo.path_runner import PathRecording
from ros_ik.demo.segments import (replay_jog, replay_servo, singular_replay_target,
                                  undamped_options)
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.servo_step import ServoOptions
from ros_ik.kinematics.task_space import mask_of_rows
from ros_ik.tools.arm_selection import SelectedArm

VELOCITY_SCALE = 0.5  # the demo's ik_node velocity_scale


def write_plot(path: str, arm: SelectedArm, recording: Recording, outcomes: List[Outcome],
               stretch_start: np.ndarray, jog: Optional[tuple],
               square: Optional[PathRecording] = None) -> None:
    """
    Plot the run and offline damped / undamped replays toward a singular pose.

    ``jog``: (joints at the jog's start, the jog segment), replayed the same way;
    ``square``: the Cartesian path segment's commanded tool (two more panels).
    """
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot
    kinematics = ChainKinematics(arm.chain)
    mask = mask_of_rows(arm.task_rows)
    options = ServoOptions(velocity_scale=VELOCITY_SCALE)
    stretch = singular_replay_target(kinematics, stretch_start, arm.task_rows)
    damped = replay_servo(kinematics, stretch_start, stretch, options, arm.task_rows, 4.0,
                          0.01, mask)
    undamped = replay_servo(kinematics, stretch_start, stretch, undamped_options(options),
                            arm.task_rows, 4.0, 0.01, mask)
    physics = bool(recording.drive_time)
    drawn = square is not None and len(square.following()[0]) > 1
    count = 5 + 2 * physics + 2 * drawn
    figure, axes = pyplot.subplots(count, 1, figsize=(10, 2.6 * count), sharex=False)
    t = np.array(recording.time)
    for axis, values, label in ((axes[0], recording.manipulability, 'manipulability w'),
                                (axes[1], recording.damping, 'damping lambda [m/rad]'),
                                (axes[2], recording.speed_fraction,
                                 'setpoint joint speed / limit'),
                                (axes[3], recording.acceleration_fraction,
                                 'setpoint joint accel. / limit')):
        axis.plot(t, values)
        axis.set_xlim(0.0, max(float(t[-1]) if len(t) else 0.0, 1.0))  # from the demo's start
        axis.set_ylabel(label)
        for start, outcome in zip(recording.segment_starts, outcomes):
            axis.axvline(start, color='grey', linestyle=':')
            axis.text(start, axis.get_ylim()[1], ' ' + outcome.segment.label, fontsize=7,
                      va='top', rotation=90)
    axes[2].axhline(VELOCITY_SCALE, color='red', linestyle='--', label='velocity_scale')
    axes[2].legend(loc='upper right')
    axes[3].axhline(1.0, color='red', linestyle='--', label='acceleration limit')
    axes[3].legend(loc='upper right')
    axes[3].set_xlabel('time [s] (closed loop over DDS)')
    axes[4].semilogy(damped.time, np.maximum(damped.peak_speed_fraction, 1e-6),
                     label='damped least squares (ros_ik)')
    axes[4].semilogy(undamped.time, np.maximum(undamped.peak_speed_fraction, 1e-6),
                     label='undamped pseudo-inverse, no speed limit')
    if jog is not None:
        jog_start, jog_segment = jog
        # The damped jog thick and solid, the undamped one dotted over it: where
        # they coincide (far from the singular pose) both stay visible.
        for replay_options, label, style in (
                (options, 'jog through singular: damped (ros_ik)',
                 {'color': 'tab:green', 'linewidth': 2.5, 'zorder': 3}),
                (undamped_options(options), 'jog: undamped',
                 {'color': 'tab:red', 'linewidth': 1.2, 'linestyle': ':', 'zorder': 4})):
            replay = replay_jog(kinematics, jog_start, jog_segment,
                                ServoOptions(**{**replay_options.__dict__, 'mask': mask}), 0.01)
            axes[4].semilogy(replay.time, np.maximum(replay.peak_speed_fraction, 1e-6),
                             label=label, **style)
    axes[4].set_ylabel('peak joint speed / limit')
    axes[4].set_xlabel('time [s] (offline replays: from the stretch start toward an exactly '
                       'singular pose; the jog through a singular pose)')
    axes[4].legend(loc='upper right')
    if physics:
        _plot_drives(axes[5], axes[6], arm, recording)
    if drawn:
        _plot_square(axes[-2], axes[-1], square)
    figure.suptitle(f'ros_ik demo: {arm.label}' + (' on MuJoCo physics' if physics else ''))
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    pyplot.close(figure)


def _plot_square(path_axis, speed_axis, square: PathRecording) -> None:
    """Plot the commanded tool path against the square, and the tool speed against its cap."""
    stamps, tool = square.following()
    corners = square.corners
    path_axis.plot(1e3 * (corners[:, 0] - corners[0, 0]), 1e3 * (corners[:, 1] - corners[0, 1]),
                   color='grey', linewidth=6, alpha=0.4, label='the square (waypoints)')
    path_axis.plot(1e3 * (tool[:, 0] - corners[0, 0]), 1e3 * (tool[:, 1] - corners[0, 1]),
                   color='tab:orange', linewidth=1, label='commanded tool (setpoint every 2 ms)')
    path_axis.set_aspect('equal', adjustable='datalim')
    path_axis.set_xlabel('base x [mm] from the first corner')
    path_axis.set_ylabel('base y [mm]')
    result = square.result
    deviation = (f'; largest deviation {1e3 * result.max_deviation:.2g} mm'
                 if result is not None else '')
    path_axis.set_title('Cartesian path: the tool draws a square' + deviation, fontsize=9)
    path_axis.legend(loc='upper right', fontsize=7)
    speed_axis.plot(stamps[1:] - stamps[0], square.speeds(),
                    label='commanded tool speed (setpoint)')
    speed_axis.axhline(square.speed_cap, color='red', linestyle='--',
                       label="the path's speed cap")
    speed_axis.set_ylabel('tool speed [m/s]')
    speed_axis.set_xlabel("time [s] from the path's first setpoint (rests at each corner)")
    speed_axis.legend(loc='upper right', fontsize=7)


def _plot_drives(error_axis, effort_axis, arm: SelectedArm, recording: Recording) -> None:
    """Plot the physics arm's tracking error at the tool and each drive's effort / limit."""
    t = np.array(recording.drive_time)
    error_axis.plot(t, 1e3 * np.array(recording.tool_error))
    error_axis.set_ylabel('tracking error at\nthe tool [mm]')
    fractions = np.array(recording.effort_fraction).reshape(len(t), -1)
    for index, name in enumerate(arm.chain.joint_names):
        effort_axis.plot(t, fractions[:, index], label=name)
    effort_axis.axhline(1.0, color='red', linestyle='--', label='effort limit')
    effort_axis.set_ylabel('drive effort / limit\n(peak per report)')
    effort_axis.set_xlabel('time [s] (physics_arm reports, closed loop over DDS)')
    effort_axis.legend(loc='upper right', fontsize=7, ncol=2)
    for axis in (error_axis, effort_axis):
        for start in recording.segment_starts:
            axis.axvline(start, color='grey', linestyle=':')
