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
The IK node's parameters: one table, a frozen typed settings object, validation.

:class:`Settings` is the table. Each field is one ROS parameter: its name, its type (the
annotation: ``float`` or ``str``), its default, and a :class:`ParameterSpec` with the
description, the allowed range or choices and whether it is read-only (fixed at start-up).
Everything else is derived from it: the node's declarations and descriptors, the
validation at start-up and on every set, ``config/ik.yaml`` and the README's parameter table
(``make docs``). Anchor: generate_parameter_library (typed ``Params``, validation at
declare time), without the code generation step.

Values arrive as users type them: an integer is accepted where a double is expected
(``update_rate:=200``) and stored as a float. Anything else of the wrong type, outside its
range or not one of its choices is rejected with a :class:`ParameterError` naming the
parameter, the value and what is allowed.
"""

from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from ros_ik.control.command_topics import COMMAND_TYPES
from ros_ik.control.goal_modes import PLANAR_GOAL_MODES, POINT_ORIENTATIONS
from ros_ik.kinematics.damped_least_squares import COMMAND_DAMPING
from ros_ik.kinematics.task_space import invalid_axes, TASK_AXES

MODES = ('solve', 'servo')
PATH_APPROACHES = ('move', 'refuse')
COLLISION_CHECKING = ('enabled', 'disabled')  # not on/off: YAML reads those as booleans
TYPE_NAMES = {float: 'double', str: 'string'}


class ParameterError(ValueError):
    """A parameter value (or combination) the node cannot run with."""


@dataclass(frozen=True)
class ParameterSpec:
    """What a parameter allows: description, range or choices, read-only, extra check."""

    description: str
    value_range: Optional[Tuple[float, float]] = None
    choices: Tuple[str, ...] = ()
    read_only: bool = False
    check: Optional[Callable[[Any], str]] = None


@dataclass(frozen=True)
class Parameter:
    """One row of the table: name, type, default and spec."""

    name: str
    value_type: type
    default: Any
    spec: ParameterSpec

    def allowed(self) -> str:
        """Return what values are allowed, in words (for errors and the docs)."""
        if self.spec.choices:
            return 'one of ' + ', '.join(self.spec.choices)
        if self.spec.value_range is not None:
            low, high = self.spec.value_range
            return f'{low:g} to {high:g}'
        return f'any {TYPE_NAMES[self.value_type]}'

    def coerce(self, value: Any) -> Any:
        """Return ``value`` as this parameter's type, or raise ParameterError saying why."""
        if self.value_type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.value_type) or isinstance(value, bool):
            raise ParameterError(
                f'parameter {self.name} = {value!r} has the wrong type: expected a '
                f'{TYPE_NAMES[self.value_type]} ({self.allowed()})')
        problem = ''
        if self.spec.choices and value not in self.spec.choices:
            problem = 'is not allowed'
        elif self.spec.value_range is not None and not (
                self.spec.value_range[0] <= value <= self.spec.value_range[1]):
            problem = 'is out of range'
        elif self.spec.check is not None:
            problem = self.spec.check(value)
        if problem:
            raise ParameterError(f'parameter {self.name} = {value!r} {problem} (allowed: '
                                 f'{self.allowed()})')
        return value


def _parameter(default: Any, description: str, **spec: Any) -> Any:
    """Return a dataclass field that is a parameter with ``default`` and a spec."""
    return field(default=default, metadata={'spec': ParameterSpec(description, **spec)})


def _check_task_axes(value: str) -> str:
    """Return why ``value`` is not a valid ``task_axes`` value ('' if it is)."""
    return 'is not allowed' if invalid_axes(value) else ''


@dataclass(frozen=True)
class Settings:
    """The node's parameters (the table) and their validated values."""

    robot_description: str = _parameter(
        '', 'URDF XML of the robot (robot_state_publisher convention); empty: read '
        'robot_description_file, else wait for the robot_description topic', read_only=True)
    robot_description_file: str = _parameter(
        '', 'path of a URDF or .xacro file, used when robot_description is empty',
        read_only=True)
    xacro_args: str = _parameter(
        '', 'arguments for a .xacro robot_description_file, "name:=value name2:=value2"',
        read_only=True)
    base_link: str = _parameter('base_link', 'chain base link: frame of FK and commands',
                                read_only=True)
    tip_link: str = _parameter('tool0', 'chain tip link: the frame driven to the target',
                               read_only=True)
    mode: str = _parameter('solve', 'solve: full IK per new target (retried until solved), '
                           'then a jerk-limited joint motion there; servo: each cycle one '
                           'damped Cartesian step toward the latest target (switched at run '
                           'time only while the arm is at rest)',
                           choices=MODES)
    command_type: str = _parameter(
        'joint_state', 'joint_state (~/joint_commands), joint_trajectory '
        '(~/joint_trajectory) or float64_multi_array (~/commands)', choices=COMMAND_TYPES,
        read_only=True)
    task_axes: str = _parameter(
        ' '.join(TASK_AXES), 'controlled task axes, a space-separated subset of "x y z rx '
        'ry rz"; manipulability is measured on them ("x y" for a planar arm)',
        read_only=True, check=_check_task_axes)
    planar_goal_mode: str = _parameter(
        'move_in_plane', '~/planar_goal (RViz 2D Goal Pose): move_in_plane keeps the tool '
        'height and tilt and takes x, y, yaw from the goal; as_given uses the pose as it '
        'is', choices=PLANAR_GOAL_MODES)
    point_orientation: str = _parameter(
        'free', '~/target_point (RViz Publish Point): free leaves the orientation '
        'uncontrolled, hold keeps the current tool orientation', choices=POINT_ORIENTATIONS)
    joint_limits_file: str = _parameter(
        '', 'MoveIt-style joint_limits.yaml with max_velocity / max_acceleration / max_jerk '
        'per joint (joint_limits.<joint>.<field> parameters override it)', read_only=True)
    default_max_velocity: float = _parameter(
        1.0, 'velocity limit of joints without one in the URDF or limits [rad/s or m/s]',
        value_range=(1e-3, 100.0), read_only=True)
    default_max_acceleration: float = _parameter(
        1.0, 'acceleration limit of joints without one in the limits (conservative, as '
        "MoveIt's fallback) [rad/s^2 or m/s^2]", value_range=(1e-3, 1e4), read_only=True)
    default_max_jerk: float = _parameter(
        10.0, 'jerk limit of joints without one in the limits [rad/s^3 or m/s^3]',
        value_range=(1e-2, 1e6), read_only=True)
    update_rate: float = _parameter(100.0, 'control and publish rate [Hz]',
                                    value_range=(1.0, 1000.0))
    trajectory_lead_time: float = _parameter(
        0.04, 'joint_trajectory commands: the newest point is this far ahead of the clock '
        '(at least 3 periods), and every message repeats the points already sent for that '
        'time; a message delivered up to this minus one period late keeps the controller '
        'setpoint smooth [s]', value_range=(0.0, 1.0), read_only=True)
    velocity_scale: float = _parameter(0.5, 'fraction of the velocity limits commands '
                                       'may use', value_range=(0.01, 1.0))
    acceleration_scale: float = _parameter(
        1.0, 'fraction of the acceleration limits commands may use (the jerk limits stay); '
        'lower it where the drives cannot give the limits everywhere (a stretched arm '
        'against gravity)', value_range=(0.01, 1.0))
    gain: float = _parameter(5.0, 'servo proportional gain on the pose error [1/s]',
                             value_range=(0.1, 100.0))
    max_linear_speed: float = _parameter(0.5, 'servo and Cartesian path cap of the tip '
                                         'speed [m/s]', value_range=(0.001, 10.0))
    max_angular_speed: float = _parameter(1.5, 'servo and Cartesian path cap of the tip '
                                          'angular speed [rad/s]', value_range=(0.001, 20.0))
    singular_value_threshold: float = _parameter(
        COMMAND_DAMPING.singular_value_threshold, 'damping starts when the smallest '
        'singular value of J falls below this [m/rad]', value_range=(1e-6, 1.0))
    max_damping: float = _parameter(COMMAND_DAMPING.max_damping, 'damping lambda at '
                                    'sigma_min = 0 [m/rad]', value_range=(1e-6, 1.0))
    orientation_weight: float = _parameter(1.0, 'weight of rotation against position error '
                                           '[m/rad]', value_range=(1e-3, 100.0))
    position_tolerance: float = _parameter(1e-3, 'target counts as reached below this '
                                           'position error [m]', value_range=(1e-7, 0.5))
    orientation_tolerance: float = _parameter(1e-2, 'target counts as reached below this '
                                              'rotation error [rad]', value_range=(1e-6, 3.2))
    twist_frame: str = _parameter(
        '', 'frame of ~/delta_twist_cmds with an empty frame_id and of unstamped twists: a '
        'chain link or a TF frame; empty: the tip link')
    planning_frame: str = _parameter(
        '', 'frame of targets whose frame_id is empty: a chain link or a TF frame; empty: '
        'the chain base')
    transform_timeout: float = _parameter(
        0.5, 'a target in a TF frame waits this long for its transform (at its stamp; '
        'stamp 0: the latest), then it is refused [s]', value_range=(0.0, 60.0))
    max_transform_age: float = _parameter(
        1.0, 'a dynamic transform older than this is stale: a servo target or jog in a '
        'frame that stopped updating brakes to rest [s]', value_range=(0.01, 60.0))
    jog_linear_scale: float = _parameter(1.0, 'factor on the linear part of jog twists',
                                         value_range=(0.0, 10.0))
    jog_angular_scale: float = _parameter(1.0, 'factor on the angular part of jog twists',
                                          value_range=(0.0, 10.0))
    jog_timeout: float = _parameter(0.2, 'a jog command older than this is over: the arm '
                                    'comes to rest [s]', value_range=(0.01, 10.0))
    solve_time_budget: float = _parameter(0.005, 'solve mode: IK time budget [s]',
                                          value_range=(1e-4, 1.0))
    path_blend_radius: float = _parameter(
        0.0, 'Cartesian paths: corners at inner waypoints are rounded from this far before to '
        'this far after them along the path (at most half of each segment); 0: the tool comes '
        'to rest at each corner [m of path]', value_range=(0.0, 1.0))
    path_position_tolerance: float = _parameter(
        1e-3, 'Cartesian paths: every commanded tool position is within this of the path; '
        'a path whose first waypoint is farther from the tool is approached first [m]',
        value_range=(1e-5, 0.1))
    path_orientation_tolerance: float = _parameter(
        1e-2, 'Cartesian paths: every commanded tool orientation is within this of the path '
        '[rad]', value_range=(1e-4, 0.5))
    path_approach: str = _parameter(
        'move', 'Cartesian paths starting away from the tool: move reaches the first waypoint '
        'by a collision-checked joint motion (as solve mode) and says so, refuse refuses the '
        'path', choices=PATH_APPROACHES)
    max_tracking_error: float = _parameter(
        0.1, 'the arm lags when its joints are farther than this from every command of '
        'the last joint_state_timeout: commands then brake to rest and wait [rad or m]',
        value_range=(1e-4, 10.0))
    joint_state_timeout: float = _parameter(0.5, 'joint states older than this are stale: '
                                            'commands brake to rest and hold [s]',
                                            value_range=(0.001, 60.0))
    singularity_warning: float = _parameter(0.02, 'diagnostics WARN below this smallest '
                                            'singular value [m/rad]', value_range=(0.0, 10.0))
    diagnostics_period: float = _parameter(0.5, 'period of /diagnostics messages [s]',
                                           value_range=(0.01, 60.0))
    marker_period: float = _parameter(0.1, 'period of ~/markers (target and manipulability '
                                      'ellipsoid) [s]', value_range=(0.01, 60.0))
    ellipsoid_scale: float = _parameter(0.2, 'drawn ellipsoid semi-axis per unit singular '
                                        'value [m per m/s]', value_range=(0.001, 10.0))

    robot_description_semantic: str = _parameter(
        '', 'SRDF XML of the robot (MoveIt convention): its disable_collisions pairs are not '
        'checked; empty: read robot_description_semantic_file, else the '
        'robot_description_semantic topic, else leave out pairs automatically',
        read_only=True)
    robot_description_semantic_file: str = _parameter(
        '', 'path of an SRDF file, used when robot_description_semantic is empty',
        read_only=True)
    collision_checking: str = _parameter(
        'enabled', 'enabled: never command a configuration or motion in collision (the URDF '
        'collision geometry and the scene); disabled: joint limits only',
        choices=COLLISION_CHECKING,
        read_only=True)
    mesh_search_path: str = _parameter(
        '', 'folders holding package folders, ":"-separated, for package:// mesh names not '
        'in the ament index (like ROS_PACKAGE_PATH)', read_only=True)
    collision_scene_file: str = _parameter(
        '', 'YAML file of scene objects (box, sphere, cylinder) in the base frame or '
        'attached to a link; set it at run time to change the scene')
    collision_padding: float = _parameter(
        0.0, 'clearance every checked pair keeps, added around the geometry [m]',
        value_range=(0.0, 0.5))
    collision_check_resolution: float = _parameter(
        0.01, 'motion checks sample so that no point of the robot moves more than this '
        'between two checked samples [m]', value_range=(0.001, 0.1), read_only=True)
    collision_stop_distance: float = _parameter(
        0.02, 'servo and jogging stop this far from a collision (closer: only moving apart) '
        '[m]', value_range=(0.0, 1.0))
    collision_slowdown_distance: float = _parameter(
        0.1, 'servo and jogging slow down closer than this to a collision (at or below '
        'collision_stop_distance: no slow-down, a stop there) [m]',
        value_range=(0.001, 2.0))

    def __post_init__(self) -> None:
        """Check every value against the table, and the combinations."""
        for parameter in PARAMETERS:
            parameter.coerce(getattr(self, parameter.name))
        if self.base_link == self.tip_link:
            raise ParameterError(f'parameters base_link and tip_link are both '
                                 f'"{self.base_link}": the chain needs two different links')

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> 'Settings':
        """Return settings from parameter values (missing ones take their default)."""
        return cls().updated(values, at_start_up=True)

    def updated(self, values: Mapping[str, Any], at_start_up: bool = False) -> 'Settings':
        """Return a copy with ``values`` applied, validated (read-only ones: at start-up)."""
        unknown = sorted(set(values) - set(PARAMETER_TABLE))
        if unknown:
            raise ParameterError(f'unknown parameters: {", ".join(unknown)}')
        fixed = sorted(name for name in values if PARAMETER_TABLE[name].spec.read_only)
        if fixed and not at_start_up:
            raise ParameterError(f'parameter {fixed[0]} is read-only (set at start-up)')
        return replace(self, **{name: PARAMETER_TABLE[name].coerce(value)
                                for name, value in values.items()})


PARAMETERS: Tuple[Parameter, ...] = tuple(
    Parameter(item.name, item.type, item.default, item.metadata['spec'])
    for item in fields(Settings))
PARAMETER_TABLE: Dict[str, Parameter] = {parameter.name: parameter for parameter in PARAMETERS}
