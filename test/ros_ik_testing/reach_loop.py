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
Reaching targets in a deterministic closed loop: the controller, a perfect arm, simulated time.

No DDS and no wall clock: ``now`` advances one period per cycle, the arm reports each
command's joints as measured, and the stream's peaks come from the command stamps
(:func:`ros_ik.trajectory.stream_check.stream_peaks`). Targets are poses of random
configurations inside the limits (so reachable), seeded. Used by the servo tests and
``bench/bench_servo_reach.py``.
"""

from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

import numpy as np
from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.collision.collision_setup import build_collision_model
from ros_ik.collision.scene import parse_scene
from ros_ik.collision.shapes import search_path_packages
from ros_ik.control.arm import ControlledArm
from ros_ik.control.collision_guard import CollisionGuard
from ros_ik.control.controller import IkController
from ros_ik.control.parameters import Settings
from ros_ik.kinematics.bundled_arms import (BUNDLED_ARMS, bundled_joint_limits_path,
                                            bundled_urdf_path, load_bundled_chain,
                                            srdf_beside)
from ros_ik.kinematics.chain import Chain
from ros_ik.kinematics.task_space import axes_text
from ros_ik.kinematics.transforms import matrix_to_quaternion, pose_error
from ros_ik.kinematics.urdf_loader import load_urdf_file
from ros_ik.trajectory.stream_check import stream_peaks

from ros_ik_testing.example_arms import example_arm

HALF_PI = np.pi / 2
# Exactly singular configurations inside each bundled arm's limits (the smallest singular
# value of the task Jacobian under 1e-6 at these 6-decimal values: found by minimizing it
# from the named configuration, checked by the tests that use them).
SINGULAR_STARTS = {
    'ur5': {'elbow straight': (0.0, -HALF_PI, 0.0, -HALF_PI, -HALF_PI, 0.0),
            'wrist axes aligned': (0.0, -HALF_PI, HALF_PI, -HALF_PI, 0.0, 0.0),
            'wrist centre on the base axis': (0.0, -2.303255, 1.355721, -HALF_PI, -HALF_PI,
                                              0.0)},
    'panda': {'wrist centre on the base axis': (0.0, 0.305276, 0.0, -0.467002, 0.0, 2.242522,
                                                0.785),
              'elbow folded to its limit': (0.000102, 0.0, -0.717834, -3.0708, 0.249105,
                                            -0.0165, 0.785)},
    'so101': {'elbow straight': (0.0, 1.0, -1.327072, 0.0, 0.0)},
    'planar_2link': {'elbow straight': (0.0, 0.0)},
}
# example-robot-data arms: a home each and exactly singular starts (the UR5 and Panda share
# the bundled arms' joint conventions; the Jaco2's and xArm7's stretched upright poses are
# the middle of its ranges and its SRDF's "home").
JACO2_HOME_DEGREES = (275.0, 167.5, 57.5, 240.0, 82.5, 75.0)  # Kinova's home position
EXAMPLE_HOMES = {'ur5': BUNDLED_ARMS['ur5'].home, 'panda': BUNDLED_ARMS['panda'].home,
                 'kinova': tuple(np.radians(JACO2_HOME_DEGREES)),
                 'xarm7': (0.0, 0.018, 0.0, 1.8675, 0.0, 0.7245, 0.0)}  # middle of ranges
EXAMPLE_SINGULAR_STARTS = {
    'ur5': SINGULAR_STARTS['ur5'], 'panda': SINGULAR_STARTS['panda'],
    'kinova': {'stretched upright': (0.0, np.pi, np.pi, 0.0, np.pi, 0.0)},
    'xarm7': {'stretched upright': (0.0,) * 7},
}


@dataclass(frozen=True)
class ReachRun:
    """
    One target from one start.

    ``seconds``: command time (s) from the target to the first cycle within both
    tolerances that it stays within to the end (inf: not reached); ``peak_ratio``: the
    stream's largest velocity, acceleration or jerk over its limit (1: at the limit);
    ``beyond_bounds``: the farthest a command lies outside the position limits (rad or m);
    ``messages``: every status message seen, in order, without repeats; ``recoveries``:
    the servo's recoveries in order ('escape', 'fallback'); ``tool_speeds``: the tool's
    largest linear (m/s) and angular (rad/s) speed between consecutive commands (FK of the
    commanded joints over their stamps); ``peak_speeds``: each joint's largest speed in the
    stream (rad/s or m/s, chain order); ``off_line``: the tool's (at the commanded joints)
    largest distance from the line through its start and a still target (m; NaN for a
    moving target); ``highest``: each joint's highest commanded position (rad or m).
    """

    reached: bool
    seconds: float
    position_error: float
    orientation_error: float
    peak_ratio: float
    beyond_bounds: float
    messages: Tuple[str, ...]
    recoveries: Tuple[str, ...]
    tool_speeds: Tuple[float, float]
    peak_speeds: Tuple[float, ...]
    off_line: float
    highest: Tuple[float, ...]


def bundled_controller(arm_name: str, **settings: object) -> IkController:
    """Return the controller of a bundled arm (task axes: its recommended ones unless given)."""
    task_axes = str(settings.pop('task_axes', axes_text(BUNDLED_ARMS[arm_name].task_rows)))
    return controller_of(load_bundled_chain(arm_name), task_axes,
                         joint_limits_file=bundled_joint_limits_path(arm_name), **settings)


def example_controller(arm_name: str, **settings: object) -> Optional[IkController]:
    """Return the controller of an example-robot-data arm (None: package not installed)."""
    arm = example_arm(arm_name)
    if arm is None:
        return None
    chain = load_urdf_file(arm.urdf_path, arm.base_link, arm.tip_link)
    return controller_of(chain, 'x y z rx ry rz', **settings)


def controller_of(chain: Chain, task_axes: str, **settings: object) -> IkController:
    """Return the controller of ``chain`` with the given parameter values."""
    values = {'base_link': chain.base_link, 'tip_link': chain.tip_link,
              'task_axes': task_axes, **settings}
    return IkController(ControlledArm.from_chain(chain, task_axes),
                        Settings.from_values(values))


def bundled_model(controller: IkController, arm_name: str, scene: str = '') -> CollisionModel:
    """Return the collision model of a bundled arm (its URDF geometry and SRDF), ``scene``."""
    with open(bundled_urdf_path(arm_name), encoding='utf-8') as urdf_file:
        urdf = urdf_file.read()
    with open(srdf_beside(bundled_urdf_path(arm_name)), encoding='utf-8') as srdf_file:
        srdf = srdf_file.read()
    model, _ = build_collision_model(urdf, controller.arm.kinematics, srdf, parse_scene(scene),
                                     search_path_packages([]))
    return model


def bundled_guard(controller: IkController, arm_name: str) -> CollisionGuard:
    """Return collision checks of a bundled arm (its URDF geometry and SRDF), no scene."""
    return CollisionGuard(CollisionChecker(bundled_model(controller, arm_name), 0.0, 0.01))


def random_configurations(chain: Chain, count: int, seed: int) -> np.ndarray:
    """Return ``count`` configurations (count, n) uniform inside the limits (seeded)."""
    lower, upper = chain.sampling_bounds()
    return np.random.default_rng(seed).uniform(lower, upper, size=(count, chain.n_joints))


def reach(controller: IkController, q_start: np.ndarray, T_base_target: np.ndarray,
          seconds: float, position_only: bool = False,
          moving: Optional[Callable[[float], np.ndarray]] = None,
          start: float = 0.0) -> ReachRun:
    """
    Run the loop from rest at ``q_start`` toward ``T_base_target`` for ``seconds``.

    ``start``: the simulated time (s) of the first cycle (a controller that ran before
    goes on from where its clock stopped); times are counted from it.
    ``moving(t)``: a target that moves, its pose at ``t`` s after the start, sent every
    cycle (``T_base_target`` is then where it ends). Errors are the tip's at the commanded
    joints on the controlled axes.
    """
    names = controller.arm.chain.joint_names
    settings = controller.settings
    period = 1.0 / settings.update_rate
    mask = np.array(controller.arm.task_mask(position_only), dtype=float)
    q = np.array(q_start, dtype=float)
    kind = 'position' if position_only else 'pose'
    times = [start - 2 * period, start - period]
    positions = [q, q]
    messages: List[str] = []
    recoveries: List[str] = []
    recovering = 'none'
    reached_at = np.inf
    errors = (np.inf, np.inf)
    # the line through the tool's start and a still target's position (None: moving)
    line = (None if moving is not None else
            (controller.arm.kinematics.tip_pose(q)[:3, 3], T_base_target[:3, 3]))
    off_line = 0.0 if line is not None else np.nan
    elapsed = 0.0
    while elapsed < seconds:
        now = start + elapsed
        T_now = moving(elapsed) if moving is not None else T_base_target
        if moving is not None or elapsed == 0.0:
            position, quaternion = T_now[:3, 3], matrix_to_quaternion(T_now[:3, :3])
            controller.set_target(controller.arm.chain.base_link, position,
                                  None if position_only else quaternion, kind, now)
        controller.update_joint_state(names, q, now)
        command = controller.cycle(now).command
        if command is not None:
            q = command.q
            times.append(command.time)
            positions.append(q)
        message = controller.status.message
        recovery = controller.status.values.get('servo_recovery', 'none')
        if recovery != recovering and recovery != 'none':
            recoveries.append(recovery)
        recovering = recovery
        if not messages or messages[-1] != message:
            messages.append(message)
        T_tip = controller.arm.kinematics.tip_pose(q)
        off_line = max(off_line, distance_from_line(T_tip[:3, 3], line))
        e_p, e_o = pose_error(T_now, T_tip)
        errors = (float(np.linalg.norm(e_p * mask[:3])), float(np.linalg.norm(e_o * mask[3:])))
        within = (errors[0] <= settings.position_tolerance
                  and errors[1] <= settings.orientation_tolerance)
        reached_at = (elapsed if not np.isfinite(reached_at) else reached_at) if within else np.inf
        elapsed += period
    limits = controller.command_limits
    peaks = stream_peaks(np.array(times), np.array(positions), limits.lower, limits.upper)
    ratios = peaks.ratios(limits.velocity, limits.acceleration, limits.jerk)
    return ReachRun(bool(np.isfinite(reached_at)), float(reached_at), errors[0], errors[1],
                    float(np.max(ratios)), float(np.max(peaks.beyond_bounds)), tuple(messages),
                    tuple(recoveries), tool_speeds(controller, np.array(times),
                                                   np.array(positions)),
                    tuple(float(v) for v in peaks.velocity), off_line,
                    tuple(float(v) for v in np.max(positions, axis=0)))


def distance_from_line(point: np.ndarray,
                       line: Optional[Tuple[np.ndarray, np.ndarray]]) -> float:
    """
    Return the distance (m) of ``point`` (3,) from the line through ``line``'s two points.

    NaN for no line (a moving target); the distance from the first point where the two
    coincide.
    """
    if line is None:
        return np.nan
    origin, through = line
    offset = point - origin
    span = through - origin
    length = float(np.linalg.norm(span))
    if length == 0.0:
        return float(np.linalg.norm(offset))
    along = offset @ span / length
    return float(np.sqrt(max(float(offset @ offset) - along * along, 0.0)))


def tool_speeds(controller: IkController, times: np.ndarray,
                positions: np.ndarray) -> Tuple[float, float]:
    """
    Return the tool's largest linear (m/s) and angular (rad/s) speed along the commands.

    ``|p_i - p_(i-1)| / (t_i - t_(i-1))`` and ``|log(R_i R_(i-1)^T)| / (t_i - t_(i-1))`` over
    consecutive commands (times (k,) s, joints (k, n)), in the base frame.
    """
    kinematics = controller.arm.kinematics
    poses = np.array([kinematics.tip_pose(q) for q in positions])
    e_p, e_o = pose_error(poses[1:], poses[:-1])
    steps = np.diff(times)
    return (float(np.max(np.linalg.norm(e_p, axis=-1) / steps, initial=0.0)),
            float(np.max(np.linalg.norm(e_o, axis=-1) / steps, initial=0.0)))
