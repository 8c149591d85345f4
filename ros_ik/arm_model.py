"""Everything the node computes with for one arm, built once from the URDF (no ROS imports)."""

from dataclasses import dataclass
from typing import Sequence, Tuple

import numpy as np

from ros_ik.bundled_arms import TASK_AXES
from ros_ik.chain import Chain
from ros_ik.joint_state_input import JointStateCache
from ros_ik.kinematics import ChainKinematics
from ros_ik.servo import ServoController
from ros_ik.solver import IkSolver
from ros_ik.urdf_loader import load_urdf_string

AXIS_ROWS = {axis: row for row, axis in enumerate(TASK_AXES)}


@dataclass
class ArmModel:
    """Chain, kinematics, solvers and latest joint positions of the controlled arm."""

    chain: Chain
    kinematics: ChainKinematics
    solver: IkSolver
    servo: ServoController
    joints: JointStateCache
    task_rows: Tuple[int, ...]

    @classmethod
    def from_urdf(cls, urdf_text: str, base_link: str, tip_link: str,
                  task_axes: Sequence[str]) -> 'ArmModel':
        """Parse the URDF (raising ``UrdfError`` subclasses) and build the model."""
        chain = load_urdf_string(urdf_text, base_link, tip_link)
        kinematics = ChainKinematics(chain)
        return cls(chain=chain, kinematics=kinematics, solver=IkSolver(chain),
                   servo=ServoController(kinematics), joints=JointStateCache(chain.joint_names),
                   task_rows=tuple(sorted(AXIS_ROWS[axis] for axis in set(task_axes))))

    def task_mask(self, position_only: bool) -> Tuple[bool, ...]:
        """Return the 6-row mask of controlled axes (only x, y, z for a point target)."""
        mask = np.zeros(6, dtype=bool)
        mask[list(self.task_rows)] = True
        if position_only:
            mask[3:] = False
        return tuple(bool(value) for value in mask)
