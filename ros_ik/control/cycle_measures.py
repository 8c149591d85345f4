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
The cycle's measures and status: manipulability at the measured joints, the status level.

The manipulability ``w = sqrt(det(J J^T))``, the singular values and the condition number
of the task Jacobian at the measured joints (:mod:`ros_ik.kinematics.manipulability`) are
computed at most every ``MEASURE_PERIOD`` s: the diagnostics, the singularity warning and
``~/manipulability`` need no more. The status combines the goal stage's level with what the
motion step and the measures saw: ERROR for stale joints or a target out of reach or not
solved, WARN when stopping before a collision, at a joint limit, near a singularity
(``sigma_min < singularity_warning``) or while the arm lags, OK otherwise.
"""

from typing import Dict, Optional, Tuple

import numpy as np

from ros_ik.collision.contact import Contact
from ros_ik.control.arm import ControlledArm
from ros_ik.control.cycle_types import CycleStatus, GoalChoice
from ros_ik.control.last_result import LastResult
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.manipulability import Manipulability, manipulability, task_jacobian

# The manipulability at the measured joints is computed at most this often (s).
MEASURE_PERIOD = 0.01


class CycleMeasures:
    """The manipulability measures of the measured joints, at most every MEASURE_PERIOD."""

    def __init__(self, arm: ControlledArm) -> None:
        """Start with no measures."""
        self.arm = arm
        self._measured: Tuple[float, Optional[Manipulability]] = (0.0, None)
        self._at: LastResult[Manipulability] = LastResult()

    def at(self, q_measured: np.ndarray, now: float,
           measure: bool) -> Tuple[Manipulability, bool]:
        """
        Return the manipulability at the measured joints and whether it was just computed.

        Computed at most every ``MEASURE_PERIOD`` s (a 1 kHz loop reuses it for 10 ms). An
        arm at rest (the same joints, bit for bit) reuses it longer: the same value.
        ``measure`` False: the last measures, if any, whatever their age and joints.
        """
        measured_at, measures = self._measured
        if measures is not None and (not measure or 0.0 <= now - measured_at < MEASURE_PERIOD):
            return measures, False
        inputs = (q_measured.tobytes(),)
        measures = self._at.reused(inputs)
        if measures is None:
            J = self.arm.kinematics.jacobian(q_measured)
            measures = self._at.keep(inputs,
                                     manipulability(task_jacobian(J, self.arm.task_rows)))
        self._measured = (now, measures)
        return measures, True


def measure_values(measures: Manipulability, mode: str) -> Dict[str, object]:
    """Return the diagnostics values every cycle starts with."""
    return {'manipulability': measures.yoshikawa, 'sigma_min': measures.sigma_min,
            'condition_number': measures.condition_number, 'mode': mode}


def cycle_status(choice: GoalChoice, collision_stop: Optional[Contact],
                 measures: Manipulability, settings: Settings,
                 values: Dict[str, object]) -> CycleStatus:
    """Return the status of a cycle that commanded (see the module docstring)."""
    level, message = choice.level, choice.message
    if collision_stop is not None and level != 'ERROR':
        level, message = 'WARN', ('stopping before a collision: the motion would bring '
                                  f'{collision_stop.text()}')
    if level == 'OK' and measures.sigma_min < settings.singularity_warning:
        level, message = 'WARN', (f'near a singularity: sigma_min {measures.sigma_min:.3g} '
                                  f'< {settings.singularity_warning}')
    return CycleStatus(level, message, values, choice.tracking)


def idle_status(age: float, stale: bool, values: Dict[str, object]) -> CycleStatus:
    """Return the status before the first command: stale joint states, or no input yet."""
    if stale:
        return CycleStatus('ERROR', f'joint states are stale ({age:.2f} s old); no commands',
                           values)
    return CycleStatus('OK', 'no target yet', values)
