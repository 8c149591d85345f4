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
A MuJoCo arm driven toward a joint reference, reporting what a physical arm reports.

Each :meth:`ArmSimulation.advance` holds a reference ``(q_ref, v_ref)`` taken at the start
of the call and moves it on with its velocity, ``q_ref(t) = q_ref + v_ref t``, for every
MuJoCo step of ``timestep`` s (what a drive does between two updates of its controller).
Positions in rad or m, velocities in rad/s or m/s, efforts in N m or N, chain order.
"""

from dataclasses import dataclass
from typing import List, Tuple

import mujoco
import numpy as np
from ros_ik.physics.mujoco_arm import ArmModel, scene_contact_owners, set_gains
from ros_ik.physics.servo_gains import ServoGains


@dataclass(frozen=True)
class Contact:
    """Two touching links or scene objects and the normal force between them (N)."""

    first: str
    second: str
    force: float


class ArmSimulation:
    """The state of one simulated arm; :meth:`advance` steps it in simulated time."""

    def __init__(self, arm: ArmModel, gains: ServoGains, effort_limits: np.ndarray,
                 q: np.ndarray) -> None:
        """Start at rest at ``q`` (n,) with the drives' ``gains`` and effort limits (n,)."""
        self.arm = arm
        self.gains = gains
        self.effort_limits = np.asarray(effort_limits, dtype=float)
        self.data = mujoco.MjData(arm.model)
        self.data.qpos[arm.qpos] = q
        set_gains(arm, gains.kp, gains.kd)
        mujoco.mj_forward(arm.model, self.data)
        self._lead = gains.kd / gains.kp  # s: the velocity feed-forward folded into ctrl

    @property
    def time(self) -> float:
        """Return the seconds simulated so far."""
        return float(self.data.time)

    @property
    def q(self) -> np.ndarray:
        """Return the joint positions (n,)."""
        return self.data.qpos[self.arm.qpos].copy()

    @property
    def velocity(self) -> np.ndarray:
        """Return the joint velocities (n,)."""
        return self.data.qvel[self.arm.dofs].copy()

    @property
    def effort(self) -> np.ndarray:
        """Return the drives' efforts (n,): position loop plus gravity compensation."""
        return self.data.qfrc_actuator[self.arm.dofs].copy()

    def saturation(self) -> np.ndarray:
        """Return ``|effort| / limit`` (n,): 1 is a saturated drive (0 where unlimited)."""
        return np.abs(self.effort) / self.effort_limits

    def advance(self, q_ref: np.ndarray, v_ref: np.ndarray, steps: int) -> None:
        """Step ``steps`` times toward ``q_ref + v_ref t`` (t from this call's start)."""
        span = steps * self.arm.model.opt.timestep
        self.advance_between((q_ref, v_ref), (q_ref + v_ref * span, v_ref), steps)

    def advance_between(self, start: Tuple[np.ndarray, np.ndarray],
                        end: Tuple[np.ndarray, np.ndarray], steps: int) -> None:
        """
        Step ``steps`` times along the reference from ``start`` to ``end``, each ``(q, v)``.

        The reference is the cubic Hermite curve through the positions (n,) and velocities
        (n,) at this call's start and ``T = steps * timestep`` s later: with ``s = t / T``,
        ``q(t) = h00(s) q0 + h10(s) T v0 + h01(s) q1 + h11(s) T v1`` (a constant velocity
        gives a straight line). Step k drives toward the reference at its own start,
        ``t = k timestep``, plus the velocity feed-forward.
        """
        if steps <= 0:
            return
        model, data = self.arm.model, self.data
        actuators = self.arm.actuators
        (q0, v0), (q1, v1) = start, end
        span = steps * model.opt.timestep
        for step in range(steps):
            s = step / steps
            s2, s3 = s * s, s * s * s
            position = ((2 * s3 - 3 * s2 + 1) * q0 + (s3 - 2 * s2 + s) * span * v0
                        + (3 * s2 - 2 * s3) * q1 + (s3 - s2) * span * v1)
            velocity = ((6 * s2 - 6 * s) * (q0 - q1) / span + (3 * s2 - 4 * s + 1) * v0
                        + (3 * s2 - 2 * s) * v1)
            data.ctrl[actuators] = position + self._lead * velocity
            mujoco.mj_step(model, data)

    def contacts(self) -> List[Contact]:
        """Return the contacts at the current state, largest force first."""
        return [Contact(*entry) for entry in scene_contact_owners(self.arm, self.data)]

    def replace_model(self, arm: ArmModel) -> None:
        """Continue in another model of the same chain (a new scene): same joint state."""
        q, velocity = self.q, self.velocity
        self.arm = arm
        self.data = mujoco.MjData(arm.model)
        set_gains(arm, self.gains.kp, self.gains.kd)
        self.place(q, velocity)

    def place(self, q: np.ndarray, velocity: np.ndarray) -> None:
        """Put the arm at ``q`` moving at ``velocity`` (n,), without simulating the way."""
        self.data.qpos[self.arm.qpos] = q
        self.data.qvel[self.arm.dofs] = velocity
        mujoco.mj_forward(self.arm.model, self.data)
