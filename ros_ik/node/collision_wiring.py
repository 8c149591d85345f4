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
The node's collision model: built at start-up, kept current from its topics and parameters.

At start-up (:meth:`CollisionWiring.guard`) the model comes from the URDF's collision
geometry, the SRDF (``robot_description_semantic``, its file, else MoveIt's latched topic)
and ``collision_scene_file``. At run time it changes with a ``robot_description_semantic``
message (disabled pairs), a ``~/collision_scene`` message or a new ``collision_scene_file``
(the scene) and ``collision_padding``; each change hands the controller a new
:class:`ros_ik.control.collision_guard.CollisionGuard` and logs what is checked.

Scene objects in TF frames are placed in the base frame first
(:mod:`ros_ik.control.scene_placement`): a ``~/collision_scene`` message within
``transform_timeout`` (else it is rejected and the scene before stays); the start-up scene
file waits as long as it takes, and until it is placed no target or jog moves the arm
(:meth:`CollisionWiring.holds_inputs`).
"""

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.collision.allowed_pairs import SrdfError
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.collision.collision_setup import build_collision_model, with_scene
from ros_ik.collision.scene import load_scene_file, parse_scene, SceneError, SceneObject
from ros_ik.collision.shapes import GeometryError
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.frame_source import FrameSource
from ros_ik.control.parameters import Settings
from ros_ik.control.scene_placement import needs_placement, placed_scene
from ros_ik.kinematics.transform_buffer import FrameError
from ros_ik.node.mesh_packages import package_directories
from std_msgs.msg import String

LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)


class ConfigurationError(ValueError):
    """A start-up input the node cannot run with (an unreadable file)."""


@dataclass(frozen=True)
class UnplacedScene:
    """
    A collision scene with objects in TF frames, waiting for their transforms.

    ``deadline`` (s since the node started): then it is rejected and the scene before
    stays; None (the start-up scene): it waits, and no target or jog is handed over until
    it is placed (the arm must not move without its scene).
    """

    objects: Sequence[SceneObject]
    source: str
    deadline: Optional[float]


def read_text_file(path: str, parameter: str) -> str:
    """Return the text of the file ``parameter`` names; ConfigurationError if unreadable."""
    try:
        with open(path, encoding='utf-8') as text_file:
            return text_file.read()
    except OSError as error:
        raise ConfigurationError(f'cannot read {parameter} "{path}": {error.strerror}') from error


class CollisionWiring:
    """The collision model of one node and the topics that change it (module docstring)."""

    def __init__(self, node: Node, frames: Optional[FrameSource],
                 warn: Callable[[str, str], None], now: Callable[[], float]) -> None:
        """
        Keep the node (subscriptions, logger), TF, the throttled warning and the clock.

        ``now()``: s since the node started (deadlines of scenes waiting for TF).
        """
        self._node = node
        self._frames = frames
        self._warn = warn
        self._now = now
        self.model: Optional[CollisionModel] = None
        self._urdf_text = ''
        self._base_link = ''
        self._settings: Optional[Settings] = None
        self._unplaced: Optional[UnplacedScene] = None
        self._next_model: Optional[CollisionModel] = None  # validated, applied after the set
        self._use_guard: Callable[[CollisionGuard], None] = lambda guard: None

    def guard(self, urdf_text: str, arm: ControlledArm, settings: Settings,
              use_guard: Callable[[CollisionGuard], None]) -> Optional[CollisionGuard]:
        """
        Build the collision model (URDF geometry, SRDF, scene); return its guard.

        None when ``collision_checking`` is disabled. ``use_guard(guard)`` hands the
        controller a new guard later (a new scene or SRDF). Raises ``GeometryError``,
        ``SrdfError``, ``SceneError`` or :class:`ConfigurationError` naming the problem.
        """
        logger = self._node.get_logger()
        self._settings = settings
        if settings.collision_checking == 'disabled':
            logger.warning('collision_checking is disabled: commands respect the joint '
                           'limits only')
            return None
        srdf_text = settings.robot_description_semantic
        if not srdf_text and settings.robot_description_semantic_file:
            srdf_text = read_text_file(settings.robot_description_semantic_file,
                                       'robot_description_semantic_file')
        self._urdf_text, self._base_link = urdf_text, arm.chain.base_link
        self._use_guard = use_guard
        scene = load_scene_file(settings.collision_scene_file)
        if needs_placement(scene, self._base_link):
            self._unplaced = UnplacedScene(
                scene, f'collision_scene_file "{settings.collision_scene_file}"', None)
            scene = []
        model, note = build_collision_model(urdf_text, arm.kinematics, srdf_text, scene,
                                            package_directories(settings.mesh_search_path))
        logger.info(f'collision checking: {len(model.pairs)} element pairs; {note}')
        logger.info(f'collision pairs never checked: {model.left_out_text()}')
        if not srdf_text:
            self._node.create_subscription(String, 'robot_description_semantic',
                                           self._on_srdf, LATCHED_QOS)
        self._node.create_subscription(String, '~/collision_scene', self._on_scene,
                                       LATCHED_QOS)
        self.model = model
        return self._guard_of(model)

    def holds_inputs(self) -> bool:
        """Return whether the start-up scene still waits for TF (no input may move the arm)."""
        return self._unplaced is not None and self._unplaced.deadline is None

    def place_waiting_scene(self) -> None:
        """Place a scene waiting for TF, or keep it waiting, or reject it at its deadline."""
        if self._unplaced is not None:
            self._place(self._now())

    def validate(self, updated: Settings) -> None:
        """
        Check a new ``collision_scene_file`` before it is set (raises its error).

        The model with that scene is kept for :meth:`apply`.
        """
        if self.model is not None and updated.collision_scene_file != (
                self._settings.collision_scene_file):
            self._next_model = with_scene(self.model, placed_scene(
                load_scene_file(updated.collision_scene_file), self._frames, self._base_link))

    def apply(self, changed: Sequence[str], settings: Settings) -> None:
        """Adopt new settings; check against a new scene file or padding from now on."""
        self._settings = settings
        if self.model is None:
            return
        if 'collision_scene_file' in changed:
            self._use(self._next_model,
                      f'collision_scene_file "{settings.collision_scene_file}" loaded')
        elif 'collision_padding' in changed:
            self._use(self.model, f'collision_padding {settings.collision_padding} m')

    def _guard_of(self, model: CollisionModel) -> CollisionGuard:
        """Return the guard of ``model`` with the current padding and resolution."""
        settings = self._settings
        return CollisionGuard(CollisionChecker(model, settings.collision_padding,
                                               settings.collision_check_resolution))

    def _use(self, model: CollisionModel, what: str) -> None:
        """Check against ``model`` from the next cycle on; log ``what`` changed."""
        self.model = model
        self._use_guard(self._guard_of(model))
        self._node.get_logger().info(f'{what}: {len(model.pairs)} element pairs checked; '
                                     f'never checked: {model.left_out_text()}')

    def _on_srdf(self, message: String) -> None:
        """Take the disabled pairs of a robot_description_semantic message (MoveIt's topic)."""
        model = self.model
        try:
            new_model, note = build_collision_model(
                self._urdf_text, model.kinematics, message.data, model.scene,
                package_directories(self._settings.mesh_search_path))
        except (SrdfError, GeometryError, SceneError) as error:
            self._node.get_logger().error(f'robot_description_semantic rejected: {error}')
            return
        self._use(new_model, f'robot_description_semantic received ({note})')

    def _on_scene(self, message: String) -> None:
        """Replace the scene with a ~/collision_scene message's (placed within the timeout)."""
        try:
            scene = parse_scene(message.data, '~/collision_scene')
        except SceneError as error:
            self._node.get_logger().error(f'collision scene rejected: {error}')
            return
        now = self._now()
        self._unplaced = UnplacedScene(scene, '~/collision_scene',
                                       now + self._settings.transform_timeout)
        self._place(now)

    def _place(self, now: float) -> None:
        """Place the unplaced scene through TF and check against it, or wait, or reject it."""
        unplaced = self._unplaced
        logger = self._node.get_logger()
        try:
            scene = placed_scene(unplaced.objects, self._frames, self._base_link)
            model = with_scene(self.model, scene)
        except FrameError as error:
            if unplaced.deadline is None:
                self._warn('scene:tf', f'{unplaced.source} waits for TF: {error}; no target or '
                                       'jog is taken until its objects are placed')
            elif now > unplaced.deadline:
                self._unplaced = None
                logger.error(f'{unplaced.source} rejected: no transform within '
                             f'transform_timeout: {error}; the scene before stays')
            return
        except SceneError as error:
            self._unplaced = None
            logger.error(f'collision scene rejected: {error}')
            return
        self._unplaced = None
        self._use(model, f'new scene from {unplaced.source} ({len(scene)} objects)')
