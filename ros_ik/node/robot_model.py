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
The IK node's robot model: the URDF its parameters name, and the controller built from it.

``robot_description`` (the XML), else ``robot_description_file`` (a URDF or ``.xacro``
expanded with ``xacro_args``); with neither, the node waits for the latched
``robot_description`` topic. The controller gets the chain between ``base_link`` and
``tip_link``, its motion limits (URDF, ``joint_limits_file``, per-joint overrides, the
``default_max_*`` parameters) and the collision checks; the log names the chain's joints,
the limits that fell back to defaults and what a chain with fewer joints than task axes
cannot do.
"""

from typing import Callable, Dict, Optional

from rclpy.node import Node
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.controller import IkController
from ros_ik.control.frame_source import FrameSource
from ros_ik.control.motion_limit_sources import LimitDefaults, resolve_motion_limits
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.urdf_loader import read_robot_description
from ros_ik.node.collision_wiring import CollisionWiring, ConfigurationError


def robot_description_of(settings: Settings) -> str:
    """Return the URDF XML the parameters give ('' when they give none: wait for the topic)."""
    path = settings.robot_description_file
    if settings.robot_description or not path:
        return settings.robot_description
    try:
        return read_robot_description(path, settings.xacro_args)
    except OSError as error:
        raise ConfigurationError(
            f'cannot read robot_description_file "{path}": {error.strerror}') from error


def build_controller(node: Node, urdf_text: str, settings: Settings,
                     joint_limit_overrides: Dict[str, Dict[str, float]],
                     collision: CollisionWiring,
                     use_guard: Callable[[CollisionGuard], None],
                     frames: Optional[FrameSource]) -> IkController:
    """
    Parse the URDF (raising ``UrdfError``) and build the controller; announce the chain.

    ``use_guard(guard)``: hands the controller a new collision guard later (a new scene).
    """
    arm = ControlledArm.from_urdf(urdf_text, settings.base_link, settings.tip_link,
                                  settings.task_axes)
    resolved = resolve_motion_limits(arm.chain, settings.joint_limits_file,
                                     LimitDefaults.of(settings), joint_limit_overrides)
    guard = collision.guard(urdf_text, arm, settings, use_guard)
    controller = IkController(arm, settings, resolved.limits, guard, frames)
    chain = arm.chain
    logger = node.get_logger()
    logger.info(f'chain {chain.base_link} -> {chain.tip_link}: {", ".join(chain.joint_names)}; '
                f'mode {settings.mode}, commands as {settings.command_type}')
    if resolved.warning():
        logger.warning(resolved.warning())
    if arm.reachability_note():
        logger.warning(arm.reachability_note())
    return controller
