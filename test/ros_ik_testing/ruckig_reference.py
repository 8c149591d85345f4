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
Ruckig, the trajectory generator MoveIt 2 uses, as a reference for tests and benchmarks.

Ruckig (``pip install ruckig``) is never a runtime dependency: importing this module works
without it; :func:`rest_to_rest_duration` raises ImportError then.
"""

import numpy as np

from ros_ik.trajectory.motion_limits import MotionLimits


def rest_to_rest_duration(limits: MotionLimits, start: np.ndarray, target: np.ndarray) -> float:
    """Return Ruckig's time-synchronised duration (s) from rest at ``start`` to ``target``."""
    from ruckig import InputParameter, Ruckig, Trajectory
    n = limits.n_joints
    parameters = InputParameter(n)
    parameters.current_position, parameters.target_position = list(start), list(target)
    parameters.max_velocity = list(limits.velocity)
    parameters.max_acceleration = list(limits.acceleration)
    parameters.max_jerk = list(limits.jerk)
    trajectory = Trajectory(n)
    Ruckig(n).calculate(parameters, trajectory)
    return float(trajectory.duration)
