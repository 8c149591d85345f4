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
A kinematic stand-in for a position-controlled arm: commands in, joint_states out.

Commands, strict faults and joint_states: :class:`ros_ik.sim.commanded_arm.CommandedArm`.
The arm is exactly at the trajectory controller's setpoint while a trajectory is active;
else, every ``1 / rate`` s, it tracks the reference under its velocity and acceleration
limits: with the reference at the end of the step, ``q_ref``, and its velocity ``v_ref``,
the velocity moves toward ``v_ref + sign(e) min(|e| / dt, sqrt(2 a_max |e|))``
(``e = q_ref - q``: close the gap no faster than the acceleration limit can stop) by at
most ``a_max dt`` and stays within ``v_max``; positions stay within the bounds. A fast
default for tests; the physics-backed arm is :mod:`ros_ik.sim.physics_arm`.
"""

import sys
from typing import List, Optional

import numpy as np
from ros_ik.control.motion_limit_sources import JointLimitsError
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.node.run import run_node
from ros_ik.sim.commanded_arm import CommandedArm


class SimArm(CommandedArm):
    """Track commanded positions under velocity and acceleration limits; publish joint_states."""

    def __init__(self, **kwargs) -> None:
        """Start the kinematic arm (parameters: :class:`CommandedArm`)."""
        super().__init__('sim_arm', **kwargs)

    def _step(self) -> None:
        """Track the extrapolated command within velocity, acceleration, position limits."""
        now = self._now()
        setpoint = self._trajectory_setpoint(now)
        if setpoint is not None:  # the arm is exactly at the setpoint
            self.q, self.velocity = self._command.target.copy(), setpoint.velocity.copy()
            self._publish_state(now)
            return
        dt, limits = self._dt, self.limits
        reference, reference_velocity = self._command_reference(now + dt)
        lower, upper = self._position_bounds()
        error = reference - self.q
        # Close the gap no faster than the acceleration limit can stop it (no overshoot).
        closing = np.sign(error) * np.minimum(np.abs(error) / dt,
                                              np.sqrt(2.0 * limits.acceleration * np.abs(error)))
        wanted = np.clip(reference_velocity + closing, -limits.velocity, limits.velocity)
        change = np.clip(wanted - self.velocity, -limits.acceleration * dt,
                         limits.acceleration * dt)
        q_next = np.clip(self.q + (self.velocity + change) * dt, lower, upper)
        self.velocity = (q_next - self.q) / dt
        self.q = q_next
        self._publish_state(now)


def main(args: Optional[List[str]] = None) -> int:
    """Run the simulated arm; return 1 on a bad URDF, limits or parameters."""
    return run_node(SimArm, 'sim_arm', (UrdfError, JointLimitsError, ValueError), args)


if __name__ == '__main__':
    sys.exit(main())
