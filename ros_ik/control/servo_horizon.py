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
How far ahead of the arm the servo's goal lies, and how fast the generator may go there.

The servo (:mod:`ros_ik.control.servo_goals`) gives the online generator the goal
``q + qdot h`` (rad or m) and the speed fraction ``max_j |qdot_j| / vmax_j``, with ``qdot``
the servo step's joint velocity toward the twist ``v = K e`` (``K = gain``, 1/s; ``e`` the
task error, m and rad) capped at ``max_linear_speed`` (m/s) and ``max_angular_speed``
(rad/s) part by part. ``h = 1 / K`` with that speed fraction is a P-law: the error closes
as ``exp(-K t)`` near the target, and far from it the generator brakes all the way toward a
goal ``1 / K`` s ahead. These three rules set ``h`` and lift the speed fraction instead.
Pure functions of the step's errors, the options and the limits.
"""

import numpy as np

from ros_ik.kinematics.servo_step import ServoOptions, ServoStep
from ros_ik.trajectory.motion_limits import MotionLimits


def tool_cap_factor(step: ServoStep, options: ServoOptions) -> float:
    """
    Return how much faster than the P-law the tool may approach the step's goal (>= 1).

    Inside the tool's speed caps the step's twist is ``K e`` (``K = gain``, 1/s), and its
    goal ``q + qdot / K`` the linearised solution ``q + J^+ e``. Held to the speed of
    ``qdot`` the generator would close the error as ``exp(-K t)``: a tail of ``ln(e0 /
    tolerance) / K`` s (about 1 s at gain 5 from 2 cm to 0.1 mm). The tool may move toward
    that goal at up to its caps, ``min(v_max / (K |e_p|), w_max / (K |e_o|))`` times faster
    (m/s over m/s, rad/s over rad/s), so the generator, which brakes to rest at the goal
    under the acceleration and jerk limits, ends the motion in finite time; 1 where a part
    of the twist is capped already (far from the target, the tool speed is the cap's).
    """
    caps = ((options.max_linear_speed, step.position_error),
            (options.max_angular_speed, step.orientation_error))
    factors = [cap / (options.gain * error) for cap, error in caps if error > 0.0]
    return max(1.0, min(factors, default=1.0))


def lookahead_time(limits: MotionLimits, speed_fraction: float) -> float:
    """
    Return how far ahead (s of motion) the servo's goal must lie for the joints to cruise.

    A joint at speed ``v`` (``speed_fraction`` of its limit, rad/s) brakes to rest under
    acceleration ``a`` and jerk ``j`` in ``t = v / a + a / j`` s at most, over ``v t / 2``:
    a goal ``v t`` ahead leaves the generator twice its stopping distance, so it cruises
    instead of braking toward a goal that moves on with the arm. The largest ``t`` over the
    joints.
    """
    speeds = speed_fraction * limits.velocity
    return float(np.max(speeds / limits.acceleration + limits.acceleration / limits.jerk,
                        initial=0.0))


def goal_horizon(step: ServoStep, options: ServoOptions, lookahead: float) -> float:
    """
    Return how many seconds of the servo velocity the goal lies ahead: ``q + qdot h``.

    ``h = min(max(lookahead, 1 / K), min_parts max(|e| / cap, 1 / K))``. A part of the
    twist inside its cap is ``v = K e``: ``|e| / |v| = 1 / K``, and while any part is
    inside its cap the goal is the P-law's, ``1 / K`` s ahead (where the linearised
    solution lies for that part). While every part is at its cap (``|v| = v_max`` m/s,
    ``w_max`` rad/s), each would take ``|e| / cap`` s to close its error, and the goal
    lies up to the shortest of those along: the generator cruises at the servo's speed
    instead of braking toward a goal ``1 / K`` s ahead (which holds a joint to about
    ``v <= 2 a / K``), and ``h`` shrinks continuously to ``1 / K`` as the first part comes
    inside its cap, so the goal never lies past the target in any part. (Letting the goal
    run on to the slowest part's time overshot the part that ends first on arms with low
    acceleration limits: measured, 0.26 rad back out on a UR5 at 1 rad/s^2.)
    """
    gain = options.gain
    horizon = np.inf
    for cap, error in ((options.max_linear_speed, step.position_error),
                       (options.max_angular_speed, step.orientation_error)):
        if error > 0.0:
            horizon = min(horizon, max(error / cap, 1.0 / gain))
    return min(max(lookahead, 1.0 / gain), horizon)
