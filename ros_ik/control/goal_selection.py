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
Goal selection: what the arm moves toward this cycle (target, jog or hold; solve or servo).

In order, at the measured joints and the commanded state:

1. joint states older than ``joint_state_timeout``: brake to rest and hold (ERROR);
2. the arm lags the commands (:mod:`ros_ik.control.arm_lag`): brake and wait for it
   (WARN); an arm stopped away from them restarts the stream at the measured joints;
3. a jog (:mod:`ros_ik.control.jog_goals`), a Cartesian path
   (:mod:`ros_ik.control.path_goals`: whatever ``mode``; in the base frame once) or a
   target, expressed in the base frame once (:meth:`ControllerInputs.target_in_base`; in
   servo mode a TF frame's latest transform every cycle: a target whose frame is lost
   brakes to rest), in ``mode`` ``servo`` (:mod:`ros_ik.control.servo_goals`) or ``solve``
   (:mod:`ros_ik.control.solve_goals`);
4. no input: hold (OK).

A running path brakes along itself where the others brake to rest (1 and 2) and goes on
from there; a jog or target that replaces it takes the motion over at once.
"""

from typing import Callable, Dict, List

import numpy as np

from ros_ik.control.arm import ControlledArm
from ros_ik.control.arm_lag import LAGS, LagWatch, STOPPED_AWAY
from ros_ik.control.command_stream import CommandStream
from ros_ik.control.cycle_types import GoalChoice, HOLD, Notice
from ros_ik.control.differential_options import DifferentialOptions
from ros_ik.control.inputs import ControllerInputs
from ros_ik.control.jog_goals import JogGoals
from ros_ik.control.motion_step import MotionStepper
from ros_ik.control.parameters import Settings
from ros_ik.control.path_goals import PathGoals
from ros_ik.control.servo_goals import ServoGoals
from ros_ik.control.servo_recovery import RECOVERY_SPREAD, ServoRecovery
from ros_ik.control.solve_goals import SolveGoals
from ros_ik.kinematics.transform_buffer import FrameError
from ros_ik.trajectory.motion_limits import MotionLimits


class GoalSelection:
    """The goal stage of the cycle (see the module docstring)."""

    def __init__(self, arm: ControlledArm, limits: MotionLimits, inputs: ControllerInputs,
                 stream: CommandStream, stepper: MotionStepper,
                 restart: Callable[[np.ndarray, float], None]) -> None:
        """
        Keep the inputs, the stream and the motion step; build the mode stages.

        ``restart(q_measured, time)``: restart the stream at the measured joints (the
        controller's, which also resets the stages that follow the commanded motion).
        """
        self.arm, self.inputs, self.stream = arm, inputs, stream
        self.lag = LagWatch()
        self._restart = restart
        options = DifferentialOptions(limits)
        recovery = ServoRecovery(SolveGoals(arm, stepper, local_spread=RECOVERY_SPREAD))
        self.servo = ServoGoals(arm, stepper, options, recovery)
        self.solve = SolveGoals(arm, stepper)
        self.jog = JogGoals(arm, stepper, options)
        self.path = PathGoals(arm, stepper, self.solve)

    def choose(self, q_measured: np.ndarray, age: float, now: float, dt: float,
               settings: Settings, notices: List[Notice],
               values: Dict[str, object]) -> GoalChoice:
        """
        Return this cycle's goal; ``age``: of the joint states (s); ``now``: the clock (s).

        ``dt``: the step to the command (s). Adds the lag, the input and the mode's values
        to ``values``.
        """
        inputs, state, time = self.inputs, self.stream.state, self.stream.last_time
        if age > settings.joint_state_timeout:
            message = (f'joint states are stale ({age:.2f} s old, timeout '
                       f'{settings.joint_state_timeout} s); braking to rest and holding')
            notices.append(Notice('warn', 'joint_states:stale', message))
            return self._hold('ERROR', message, 'stale joint states', settings, notices, values)
        lag = values['lag'] = self.stream.history.lag(q_measured)
        verdict = self.lag.verdict(q_measured, lag, self.stream, settings)
        if verdict == STOPPED_AWAY:
            notices.append(Notice('info', 'command:restart', 'the arm is not where the '
                                  f'commands left it ({lag:.3g} away); continuing from '
                                  'the measured joints'))
            self._restart(q_measured, self.stream.last_time)
        elif verdict == LAGS:
            message = (f'the arm lags the commands by {lag:.3g} (max_tracking_error '
                       f'{settings.max_tracking_error}); braking and waiting for it')
            notices.append(Notice('warn', 'command:lag', message))
            return self._hold('WARN', message, 'the arm lags', settings, notices, values)
        if inputs.path is None and self.path.is_running():
            self.path.drop('a jog' if inputs.jog is not None else 'a target')
        if inputs.jog is not None or inputs.path is not None or settings.mode != 'servo':
            self.servo.recovery.stop()  # a servo's recovery ends with its targets
        if inputs.jog is not None:
            return self.jog.choose(inputs, state.position, now, dt, settings, notices, values)
        if inputs.path is not None:
            if inputs.path is not self.path.taken:
                self.path.take(inputs.path_in_base(state.position), state)
            return self.path.choose(state, time, dt, settings, notices, values)
        values['input'] = 'target' if inputs.target is not None else 'none'
        if inputs.target is None:
            return GoalChoice('OK', 'no target', HOLD)
        try:
            inputs.followed_target(settings)
        except FrameError as error:
            message = (f'the target\'s frame "{inputs.target.frame_id}" is lost: {error}; '
                       'braking to rest')
            notices.append(Notice('warn', 'target:tf_' + error.kind, message))
            return GoalChoice('ERROR', message, HOLD)
        target = inputs.target_in_base(state.position, settings)
        mask = self.arm.task_mask(target.position_only)
        if settings.mode == 'servo':
            choice = self.servo.choose(target, mask, state, self.stream.last_time, dt,
                                       settings, notices, values)
        else:
            choice = self.solve.choose(target, mask, state, settings, notices, values)
        return GoalChoice(choice.level, choice.message, choice.goal,
                          (q_measured, target.T_base_target, np.array(mask)))

    def _hold(self, level: str, message: str, why: str, settings: Settings,
              notices: List[Notice], values: Dict[str, object]) -> GoalChoice:
        """Brake to rest and hold: along a running path, else by the generator."""
        if not self.path.is_running():
            return GoalChoice(level, message, HOLD)
        self.path.brake(why)
        choice = self.path.choose(self.stream.state, self.stream.last_time, 0.0, settings,
                                  notices, values, hold=True)
        return GoalChoice(level, message, choice.goal)
