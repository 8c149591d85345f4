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
The arm a controller drives, built once from a URDF: one chain, one kinematics, two solvers.

The IK solver and the servo step share the same :class:`ChainKinematics` (read-only
precomputed data), as Pinocchio's algorithms share one ``Model``.
"""

from dataclasses import dataclass
from typing import Tuple

from ros_ik.kinematics.chain import Chain
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.ik_solver import IkSolver
from ros_ik.kinematics.servo_step import ServoController
from ros_ik.kinematics.task_rank import exact_tracking_axes, generic_rank
from ros_ik.kinematics.task_space import axes_text, mask_of_rows, rows_of_axes
from ros_ik.kinematics.urdf_loader import load_urdf_string


@dataclass(frozen=True)
class ControlledArm:
    """
    Chain, kinematics, IK solver, servo step and controlled task rows of one arm.

    ``task_rank``: how many independent directions of the task rows the chain reaches
    (:func:`generic_rank`); below ``len(task_rows)`` targets have a closest pose rather
    than a solution.
    """

    chain: Chain
    kinematics: ChainKinematics
    solver: IkSolver
    servo: ServoController
    task_rows: Tuple[int, ...]
    task_rank: int

    @classmethod
    def from_chain(cls, chain: Chain, task_axes: str) -> 'ControlledArm':
        """Build the arm for ``chain``, controlling the space-separated ``task_axes``."""
        kinematics = ChainKinematics(chain)
        task_rows = rows_of_axes(task_axes.split())
        return cls(chain=chain, kinematics=kinematics, solver=IkSolver(kinematics),
                   servo=ServoController(kinematics), task_rows=task_rows,
                   task_rank=generic_rank(kinematics, task_rows))

    @classmethod
    def from_urdf(cls, urdf_text: str, base_link: str, tip_link: str,
                  task_axes: str) -> 'ControlledArm':
        """Parse the URDF (raising ``UrdfError`` subclasses) and build the arm."""
        return cls.from_chain(load_urdf_string(urdf_text, base_link, tip_link), task_axes)

    def task_mask(self, position_only: bool) -> Tuple[bool, ...]:
        """Return the 6-row mask of controlled axes (only x, y, z for a point target)."""
        return mask_of_rows(self.task_rows, position_only)

    @property
    def reaches_every_task_direction(self) -> bool:
        """Return whether the chain moves the tip in every direction of the task rows."""
        return self.task_rank == len(self.task_rows)

    def reachability_note(self) -> str:
        """Return what to tell a user whose chain cannot reach arbitrary task targets."""
        if self.reaches_every_task_direction:
            return ''
        chain = self.chain
        suggestion = axes_text(exact_tracking_axes(self.kinematics, self.task_rows))
        return (f'the chain has {chain.n_joints} joints and moves the tip in only '
                f'{self.task_rank} of the {len(self.task_rows)} task axes '
                f'"{axes_text(self.task_rows)}": it cannot reach arbitrary targets; a target '
                'off its reachable poses is taken to the closest pose (least squares, '
                'rotation weighted by orientation_weight) and reported. To track targets '
                f'exactly, set task_axes to at most {self.task_rank} axes, e.g. '
                f'task_axes:="{suggestion}"')
