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
Build the collision model of a robot: URDF shapes, pairs left out (SRDF or automatic), scene.

Without an SRDF the pairs are left out as MoveIt Setup Assistant does
(:mod:`ros_ik.collision.allowed_pairs`): adjacent links, pairs in collision at the default
configuration and pairs in collision in at least 95 % of ``AUTOMATIC_SAMPLES`` random
configurations (drawn with a fixed seed over each joint range, the scene left out).
"""

from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np
from ros_ik.collision.allowed_pairs import (adjacent_pairs, ALWAYS_FRACTION, Pair, pair,
                                            sampled_pairs, srdf_disabled_pairs)
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.collision.robot_geometry import robot_geometry, RobotGeometry
from ros_ik.collision.scene import check_links, SceneError, SceneObject
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_loader import parse_robot

AUTOMATIC_SAMPLES = 1000
SAMPLING_SEED = 0


def default_configuration(kinematics: ChainKinematics) -> np.ndarray:
    """Return every chain joint at 0, clipped into its limits (Setup Assistant's default)."""
    chain = kinematics.chain
    return np.clip(np.zeros(chain.n_joints), chain.lower, chain.upper)


def automatic_disabled_pairs(kinematics: ChainKinematics, robot: RobotGeometry,
                             samples: int = AUTOMATIC_SAMPLES) -> Dict[Pair, str]:
    """Return ``{pair: reason}`` left out without an SRDF: Adjacent, Default, Always."""
    disabled: Dict[Pair, str] = dict.fromkeys(
        adjacent_pairs(robot.links_with_geometry(), robot.parents), 'Adjacent')
    checker = CollisionChecker(CollisionModel(kinematics, robot, (), disabled), 0.0, 0.0)
    for contact in checker.contacts(default_configuration(kinematics), 0.0):
        disabled.setdefault(pair(*contact.owners), 'Default')
    lower, upper = kinematics.chain.sampling_bounds()
    rng = np.random.default_rng(SAMPLING_SEED)
    Q = rng.uniform(lower, upper, (samples, kinematics.n_joints))
    proxy_hits = checker.proxy_clearances(Q, 0.0) < 0.0
    owners = checker.model.pair_owners
    often = {p for p in range(checker.pair_count)
             if proxy_hits[:, p].sum() >= ALWAYS_FRACTION * samples
             and pair(*owners[p]) not in disabled}
    colliding = [{pair(*owners[p]) for p in often if proxy_hits[k, p]
                  and checker.exact(Q[k], p).distance < 0.0} for k in range(samples)]
    for link_pair in sampled_pairs(colliding, samples):
        disabled.setdefault(link_pair, 'Always')
    return disabled


def build_collision_model(urdf_text: str, kinematics: ChainKinematics, srdf_text: str,
                          scene: Sequence[SceneObject],
                          package_directory: Callable[[str], Optional[str]]
                          ) -> Tuple[CollisionModel, str]:
    """
    Return the model and a start-up note saying where the pairs left out came from.

    Raises ``GeometryError`` (meshes), ``SrdfError`` or ``SceneError`` naming the problem.
    """
    robot = robot_geometry(parse_robot(urdf_text), kinematics.chain, package_directory)
    problem = check_links(scene, list(robot.link_bodies))
    if problem:
        raise SceneError(problem)
    if srdf_text:
        disabled = srdf_disabled_pairs(srdf_text)
        note = f'{len(disabled)} link pairs disabled by the SRDF'
    else:
        disabled = automatic_disabled_pairs(kinematics, robot)
        note = (f'no SRDF: {len(disabled)} link pairs left out automatically as MoveIt Setup '
                'Assistant does (adjacent, in collision at the default configuration or in '
                f'{ALWAYS_FRACTION:.0%} of {AUTOMATIC_SAMPLES} random ones)')
    if robot.resting_joints:
        note += ('; joints outside the chain are checked at 0 (clipped into their limits): '
                 + ', '.join(robot.resting_joints))
    return CollisionModel(kinematics, robot, scene, disabled), note


def with_scene(model: CollisionModel, scene: Sequence[SceneObject]) -> CollisionModel:
    """Return ``model`` with another scene (robot shapes and disabled pairs kept)."""
    problem = check_links(scene, list(model.robot.link_bodies))
    if problem:
        raise SceneError(problem)
    return CollisionModel(model.kinematics, model.robot, scene, model.disabled)
