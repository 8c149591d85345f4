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
The differential step's options of the current settings: gains, caps, damping.

One home for what the servo, the jog and the solve take from the parameters: the singularity
damping schedule ``lam(sigma_min)`` (``singular_value_threshold`` and ``max_damping``, both
scaled by a fraction: jogs damp with ``JOG_DAMPING_FRACTION``) and the servo step's
:class:`ServoOptions` (``gain`` 1/s, ``max_linear_speed`` m/s, ``max_angular_speed`` rad/s,
the joints' speed caps ``velocity_scale * v_max`` rad/s or m/s, ``orientation_weight`` m/rad,
the task mask).
"""

from typing import Tuple

from ros_ik.control.last_result import LastResult
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.damped_least_squares import DampingSchedule
from ros_ik.kinematics.servo_step import ServoOptions
from ros_ik.trajectory.motion_limits import MotionLimits

# Jogs damp with this fraction of the damping threshold and lam_max: a jog commands a tool
# velocity, the joint speeds are scaled into their limits anyway, and wider damping blocks
# the weak direction so much that the tool cannot be kept on its line near a singularity.
# A servo converging on a target next to a singularity needs the full damping: with less it
# can end exactly singular, where no step leads back.
JOG_DAMPING_FRACTION = 0.25


def damping_schedule(settings: Settings, fraction: float = 1.0) -> DampingSchedule:
    """Return the damping schedule of ``settings`` (threshold and lam_max times ``fraction``)."""
    return DampingSchedule(fraction * settings.singular_value_threshold,
                           fraction * settings.max_damping)


class DifferentialOptions:
    """The servo step's options, kept while the settings, mask and fraction stay the same."""

    def __init__(self, limits: MotionLimits) -> None:
        """Keep the chain's motion limits (their velocities are the speed caps' base)."""
        self.limits = limits
        self._options: LastResult[ServoOptions] = LastResult()

    def of(self, settings: Settings, mask: Tuple[bool, ...],
           damping_fraction: float = 1.0) -> ServoOptions:
        """
        Return the servo step's options of ``settings`` for ``mask`` (jogs use them as well).

        A cycle asks every time: the options are built once per settings object, mask and
        fraction; nothing writes to them.
        """
        inputs = (settings, mask, (damping_fraction,))
        options = self._options.reused(inputs)
        if options is None:
            options = self._options.keep(inputs, ServoOptions(
                gain=settings.gain, max_linear_speed=settings.max_linear_speed,
                max_angular_speed=settings.max_angular_speed,
                velocity_limits=settings.velocity_scale * self.limits.velocity,
                orientation_weight=settings.orientation_weight, mask=mask,
                damping=damping_schedule(settings, damping_fraction)))
        return options
