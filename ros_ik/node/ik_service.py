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
The ``~/solve_ik`` service (``ros_ik_msgs/srv/SolveIk``): IK of poses, never moving the arm.

The work is :class:`ros_ik.kinematics.ik_query.IkQuery` (the distinct solutions, nearest the
seed first) with the collision check of :mod:`ros_ik.collision.configuration_check`. The
service lives on a hidden inner node (``_<node>_ik_service``, its name resolved by the node
itself: namespace, ``~``, remappings) spun by its own executor (the node's kind) in its own
thread, at a lower CPU priority: the compiled IK search releases the GIL, and
:data:`GIL_SWITCH_INTERVAL` bounds how long the request's Python code keeps it. (The control
loop is still late by a few ms on some cycles during 1000-pose requests: docs/ik_queries.md.)

A request is refused as a whole (``success`` false, ``message`` why) without a robot model,
with no poses or more than :data:`MAX_POSES`, a negative or non-finite ``timeout``, a seed
that lacks chain joints or has non-finite values, no measured joints for an empty seed, or
``avoid_collisions`` without a collision model. Otherwise each pose gets a result: invalid
poses (NaN, zero quaternion, a coordinate beyond 1e4 m) and frames without a transform
fail alone; the others are solved in order until ``timeout`` (s, 0: :data:`DEFAULT_TIMEOUT`)
runs out.
"""

from dataclasses import replace
import math
import os
import sys
import threading
import time
from typing import Callable, Dict, List, Optional, Tuple

from geometry_msgs.msg import PoseStamped
import numpy as np
from rclpy.node import Node
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.collision.configuration_check import collision_check
from ros_ik.control.controller import IkController
from ros_ik.control.differential_options import damping_schedule
from ros_ik.control.parameters import Settings
from ros_ik.control.targets import check_pose
from ros_ik.kinematics.ik_query import ConfigurationCheck, IkQuery, PoseSolutions
from ros_ik.kinematics.ik_solver import IkSolver
from ros_ik.kinematics.transform_buffer import frame_name, FrameError
from ros_ik.node.run import create_executor
from ros_ik.node.tf_frames import stamp_seconds
from ros_ik_msgs.msg import PoseSolutions as PoseSolutionsMessage
from ros_ik_msgs.srv import SolveIk
from sensor_msgs.msg import JointState

MAX_POSES = 10000  # poses per request: more is refused (split the request)
DEFAULT_TIMEOUT = 1.0  # s, for a request whose timeout is 0
# s: the longest the request thread's Python code keeps the GIL while the control thread
# waits (CPython's default is 5 ms, longer than a 1 kHz cycle).
GIL_SWITCH_INTERVAL = 0.0005
SPIN_PERIOD = 0.05  # s: the longest a stop waits for the service thread
SERVICE_NICENESS = 10  # added to the service thread's niceness (lower CPU priority)
ERROR_CODES = {'': PoseSolutionsMessage.SUCCEEDED,
               'out_of_reach': PoseSolutionsMessage.OUT_OF_REACH,
               'no_solution': PoseSolutionsMessage.NO_SOLUTION,
               'refused': PoseSolutionsMessage.IN_COLLISION,
               'timeout': PoseSolutionsMessage.TIMEOUT,
               'invalid_pose': PoseSolutionsMessage.INVALID_POSE,
               'frame': PoseSolutionsMessage.FRAME_ERROR}


class RequestRefused(Exception):
    """A request that cannot be answered pose by pose (the message says why)."""


class IkService:
    """``~/solve_ik`` of one node, served in its own thread (see the module docstring)."""

    def __init__(self, node: Node, controller: Callable[[], Optional[IkController]],
                 settings: Callable[[], Settings],
                 collision_model: Callable[[], Optional[CollisionModel]],
                 frames_lock: threading.Lock) -> None:
        """
        Serve the service; the callables return the node's current controller and state.

        ``frames_lock``: held while the control cycle takes TF messages into its buffer and
        while a request looks a frame up in it.
        """
        self._controller, self._settings = controller, settings
        self._collision_model = collision_model
        self._frames_lock = frames_lock
        # ((the model, padding, resolution) it checks, the check)
        self._checker: Optional[Tuple[Tuple[CollisionModel, float, float],
                                      ConfigurationCheck]] = None
        # ((the controller, the settings) it was made for, the query)
        self._query: Optional[Tuple[Tuple[IkController, Settings], IkQuery]] = None
        self._server_node = Node(f'_{node.get_name()}_ik_service',
                                 namespace=node.get_namespace(), context=node.context,
                                 use_global_arguments=False, enable_rosout=False,
                                 start_parameter_services=False)
        self._server_node.create_service(SolveIk, node.resolve_service_name('~/solve_ik'),
                                         self._on_request)
        self._executor = create_executor(node.context)[0]
        self._executor.add_node(self._server_node)
        self._stop = threading.Event()
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_INTERVAL))
        self._thread = threading.Thread(target=self._spin, name='solve_ik', daemon=True)
        self._thread.start()

    def destroy(self) -> None:
        """Stop the service thread (after the request in progress), destroy its node."""
        self._stop.set()
        self._thread.join()
        self._executor.shutdown()
        self._server_node.destroy_node()

    def _spin(self) -> None:
        """Serve requests until stopped or the context shuts down, at a lower priority."""
        lower_thread_priority()
        while not self._stop.is_set() and self._server_node.context.ok():
            try:
                self._executor.spin_once(timeout_sec=SPIN_PERIOD)
            except Exception:  # the context shut down under the executor
                if self._server_node.context.ok():
                    raise
                return

    def _on_request(self, request: SolveIk.Request, response: SolveIk.Response
                    ) -> SolveIk.Response:
        """Answer a request (see the module docstring)."""
        controller = self._controller()
        start = time.perf_counter()
        try:
            if controller is None:
                raise RequestRefused('the node has no robot model yet')
            timeout = request_timeout(request)
            seed = self._seed(request.seed, controller)
            check = self._check() if request.avoid_collisions else None
        except RequestRefused as refusal:
            response.success, response.message = False, str(refusal)
            return response
        results = self._solve(controller, request, seed, check, start + timeout)
        names = list(controller.arm.chain.joint_names)
        response.results = [result_message(result, names) for result in results]
        response.success = True
        solved = sum(result.success for result in results)
        response.message = (f'{solved} of {len(results)} poses solved in '
                            f'{1e3 * (time.perf_counter() - start):.2f} ms')
        return response

    def _seed(self, seed: JointState, controller: IkController) -> np.ndarray:
        """Return the seed (n,): the request's joints, or the measured ones if it is empty."""
        joint_names = controller.arm.chain.joint_names
        if not seed.name and not len(seed.position):
            measured = controller.joints.positions()
            if measured is None:
                raise RequestRefused('the seed is empty and no joint_states have arrived; '
                                     'give a seed')
            return measured
        if len(seed.name) != len(seed.position):
            raise RequestRefused(f'the seed has {len(seed.name)} names and '
                                 f'{len(seed.position)} positions')
        given = dict(zip(seed.name, seed.position))
        missing = [name for name in joint_names if name not in given]
        if missing:
            raise RequestRefused(f'the seed lacks joints {", ".join(missing)} (chain: '
                                 f'{", ".join(joint_names)})')
        q_seed = np.array([given[name] for name in joint_names], dtype=float)
        if not np.all(np.isfinite(q_seed)):
            raise RequestRefused(f'the seed is not finite: {q_seed.tolist()}')
        return q_seed

    def _check(self) -> ConfigurationCheck:
        """Return the collision check of the node's current model (one checker per model)."""
        model, settings = self._collision_model(), self._settings()
        if model is None or settings.collision_checking != 'enabled':
            raise RequestRefused('avoid_collisions needs a collision model: this node runs '
                                 'with collision_checking disabled')
        key = (model, settings.collision_padding, settings.collision_check_resolution)
        if (self._checker is None or self._checker[0][0] is not model
                or self._checker[0][1:] != key[1:]):
            checker = CollisionChecker(model, settings.collision_padding,
                                       settings.collision_check_resolution)
            self._checker = (key, collision_check(checker))
        return self._checker[1]

    def _solve(self, controller: IkController, request: SolveIk.Request, q_seed: np.ndarray,
               check: Optional[ConfigurationCheck], deadline: float) -> List[PoseSolutions]:
        """Return each pose's result: invalid and untransformable ones fail alone."""
        settings = self._settings()
        arm = controller.arm
        query = self._query_of(controller, settings)
        results: List[Optional[PoseSolutions]] = []
        targets, solved_indices = [], []
        frames: Dict[Tuple[str, float], np.ndarray] = {}  # one lookup per frame and stamp
        for pose in request.poses:
            T_base_target, failure = self._base_pose(controller, pose, q_seed, settings,
                                                     frames)
            results.append(failure)
            if failure is None:
                solved_indices.append(len(results) - 1)
                targets.append(T_base_target)
        for index, result in zip(solved_indices, query.solve_many(
                targets, q_seed, arm.task_mask(request.position_only),
                int(request.max_solutions), deadline - time.perf_counter(), check=check)):
            results[index] = result
        return results

    def _query_of(self, controller: IkController, settings: Settings) -> IkQuery:
        """
        Return the query of the arm with the node's damping and orientation weight.

        Made anew only for another controller or other settings (a parameter set makes a
        new settings object).
        """
        if (self._query is None or self._query[0][0] is not controller
                or self._query[0][1] is not settings):
            options = replace(controller.arm.solver.options,
                              orientation_weight=settings.orientation_weight,
                              damping=damping_schedule(settings))
            self._query = ((controller, settings),
                           IkQuery(IkSolver(controller.arm.kinematics, options)))
        return self._query[1]

    def _base_pose(self, controller: IkController, pose: PoseStamped, q_seed: np.ndarray,
                   settings: Settings, frames: Dict[Tuple[str, float], np.ndarray]
                   ) -> Tuple[Optional[np.ndarray], Optional[PoseSolutions]]:
        """
        Return the pose in the chain's base (4x4), or its failure (invalid, no transform).

        Chain frames by FK at the seed, others through TF at the pose's stamp (0: latest);
        ``frames`` keeps ``T_base_frame`` per frame and stamp for the request's other poses.
        """
        p, o = pose.pose.position, pose.pose.orientation
        checked = check_pose((p.x, p.y, p.z), (o.x, o.y, o.z, o.w))
        if checked.error:
            return None, failure(checked.error, 'invalid_pose')
        frame = frame_name(pose.header.frame_id) or frame_name(settings.planning_frame)
        key = (frame, stamp_seconds(pose.header.stamp))
        if key not in frames:
            try:
                with self._frames_lock:
                    frames[key] = controller.inputs.base_from(frame, q_seed, key[1])
            except FrameError as error:
                return None, failure(str(error), 'frame')
        return frames[key] @ checked.T_frame_target, None


def lower_thread_priority() -> None:
    """
    Give the calling thread the niceness ``SERVICE_NICENESS`` (Linux: per thread).

    On a loaded machine the control cycle's thread then gets the CPU before a request's
    search. Where threads have no niceness of their own, nothing changes.
    """
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                       os.getpriority(os.PRIO_PROCESS, 0) + SERVICE_NICENESS)
    except (AttributeError, OSError):
        pass


def request_timeout(request: SolveIk.Request) -> float:
    """Return the request's timeout (s); refuse a bad one or a bad pose count."""
    if not request.poses:
        raise RequestRefused('no poses in the request')
    if len(request.poses) > MAX_POSES:
        raise RequestRefused(f'{len(request.poses)} poses: at most {MAX_POSES} per request; '
                             'split it')
    if not math.isfinite(request.timeout) or request.timeout < 0.0:
        raise RequestRefused(f'timeout must be >= 0 s (0: {DEFAULT_TIMEOUT:g} s), got '
                             f'{request.timeout}')
    return request.timeout or DEFAULT_TIMEOUT


def failure(message: str, problem: str) -> PoseSolutions:
    """Return the result of a pose that was not searched (invalid, no transform)."""
    return PoseSolutions(False, message, (), math.nan, math.nan, problem)


def result_message(result: PoseSolutions, joint_names: List[str]) -> PoseSolutionsMessage:
    """Return the message of one pose's result (solutions as JointState, chain order)."""
    return PoseSolutionsMessage(
        error_code=ERROR_CODES[result.problem], success=result.success,
        message=result.message,
        solutions=[JointState(name=joint_names, position=q.tolist())
                   for q in result.solutions],
        position_error=float(result.position_error),
        orientation_error=float(result.orientation_error))
