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
Jog mode's goal: the commanded twist or joint velocities, through the velocity damper.

The jog's joint velocity (:func:`ros_ik.control.jogging.jog_velocity`, the singularity
damping at ``JOG_DAMPING_FRACTION``) goes through the velocity damper
(:meth:`MotionStepper.damped_velocity`; a joint jog's metric is the weighted task Jacobian
at the commanded joints) and becomes the goal ``q + qdot T`` with each joint's speed capped
at ``|qdot_j|`` (:func:`ros_ik.control.jogging.jog_goal`). A jog with no new command for
``jog_timeout`` s is over: the arm brakes to rest. A twist in a TF frame whose transform is
lost (stale, gone) brakes to rest, saying why.
"""

from typing import Dict, List

import numpy as np

from ros_ik.control.arm import ControlledArm
from ros_ik.control.cycle_types import Goal, GoalChoice, HOLD, Notice
from ros_ik.control.differential_options import DifferentialOptions, JOG_DAMPING_FRACTION
from ros_ik.control.inputs import ControllerInputs
from ros_ik.control.jogging import describe, jog_goal, jog_velocity
from ros_ik.control.motion_step import MotionStepper
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.transform_buffer import FrameError


class JogGoals:
    """The goal of the active jog (see the module docstring)."""

    def __init__(self, arm: ControlledArm, stepper: MotionStepper,
                 options: DifferentialOptions) -> None:
        """Keep the arm, the motion step (its generator's limits, the damper), the options."""
        self.arm, self.stepper, self.options = arm, stepper, options

    def choose(self, inputs: ControllerInputs, q: np.ndarray, now: float, dt: float,
               settings: Settings, notices: List[Notice],
               values: Dict[str, object]) -> GoalChoice:
        """Return the goal of the inputs' jog at the commanded joints ``q`` at ``now`` (s)."""
        jog, path = inputs.jog, inputs.jog_path
        values.update(describe(jog))
        if now - jog.receive_time > settings.jog_timeout:
            path.reset()
            return GoalChoice('OK', 'jog over (no command for jog_timeout): at rest', HOLD)
        R_base_frame = None
        if jog.kind == 'twist':
            try:
                R_base_frame = inputs.base_from(jog.frame, q)[:3, :3]
            except FrameError as error:
                message = f'jog twist in "{jog.frame}" not followed: {error}; braking to rest'
                notices.append(Notice('warn', 'jog:tf_' + error.kind, message))
                return GoalChoice('ERROR', message, HOLD)
        options = self.options.of(settings, self.arm.task_mask(False), JOG_DAMPING_FRACTION)
        velocity = jog_velocity(self.arm, options, q, jog, R_base_frame,
                                (settings.jog_linear_scale, settings.jog_angular_scale),
                                path, dt)
        J_task = velocity.task_jacobian
        if J_task is None and self.stepper.guard is not None:  # the damper's metric
            J_task = self.arm.servo.task_jacobian(q, options)
        qdot, stopping = self.stepper.damped_velocity(q, velocity.qdot, J_task,
                                                      velocity.damping,
                                                      options.velocity_limits, settings)
        values['damping'] = velocity.damping
        goal = Goal(jog_goal(self.stepper.generator(settings).limits, q, qdot),
                    velocity_caps=np.abs(qdot))
        if stopping is not None:
            return GoalChoice('WARN', 'jog stopped before a collision: it would bring '
                              f'{stopping.text()}', goal)
        if velocity.at_position_limit:
            return GoalChoice('WARN', 'jogging along a joint limit', goal)
        return GoalChoice('OK', 'jogging', goal)
