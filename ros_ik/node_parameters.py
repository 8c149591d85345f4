"""
The ik_node's parameters: one table feeding declarations, descriptors and validation.

Every parameter is declared with a description; numeric ones with a range (so
``ros2 param describe`` shows it and rclpy itself rejects values outside it); structural
ones read-only. Choice parameters are validated in the node's on-set callback.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter
from ros_ik.bundled_arms import TASK_AXES
from ros_ik.goal_modes import PLANAR_GOAL_MODES, POINT_ORIENTATIONS

MODES = ('servo', 'solve')
COMMAND_TYPES = ('joint_state', 'joint_trajectory', 'float64_multi_array')


@dataclass(frozen=True)
class ParameterSpec:
    """One parameter: default (its type too), description, range or choices, read-only."""

    name: str
    default: Any
    description: str
    value_range: Optional[Tuple[float, float]] = None
    choices: Tuple[str, ...] = ()
    read_only: bool = False


PARAMETERS: Tuple[ParameterSpec, ...] = (
    ParameterSpec('robot_description', '', 'URDF XML of the robot (robot_state_publisher '
                  'convention); empty: read robot_description_file, else wait for the '
                  'robot_description topic', read_only=True),
    ParameterSpec('robot_description_file', '', 'path of a URDF file, used when '
                  'robot_description is empty', read_only=True),
    ParameterSpec('base_link', 'base_link', 'chain base link: frame of targets and FK',
                  read_only=True),
    ParameterSpec('tip_link', 'tool0', 'chain tip link: the frame driven to the target',
                  read_only=True),
    ParameterSpec('mode', 'servo', 'servo: one damped step per cycle toward the latest '
                  'target; solve: full IK per new target, then move there',
                  choices=MODES, read_only=True),
    ParameterSpec('command_type', 'joint_state', 'joint_state (~/joint_commands), '
                  'joint_trajectory (~/joint_trajectory) or float64_multi_array '
                  '(~/commands)', choices=COMMAND_TYPES, read_only=True),
    ParameterSpec('task_axes', ' '.join(TASK_AXES), 'controlled task axes, space-separated '
                  'subset of "x y z rx ry rz"; manipulability is measured on them ("x y" '
                  'for a planar arm)', read_only=True),
    ParameterSpec('planar_goal_mode', 'move_in_plane', '~/planar_goal (RViz 2D Goal Pose): '
                  'move_in_plane keeps the tool height and tilt and takes x, y, yaw from the '
                  'goal; as_given uses the pose as it is', choices=PLANAR_GOAL_MODES),
    ParameterSpec('point_orientation', 'free', '~/target_point (RViz Publish Point): free '
                  'leaves the orientation uncontrolled, hold keeps the current tool '
                  'orientation', choices=POINT_ORIENTATIONS),
    ParameterSpec('update_rate', 100.0, 'control and publish rate [Hz]', (1.0, 1000.0)),
    ParameterSpec('velocity_scale', 0.5, 'fraction of the URDF velocity limits commands '
                  'may use', (0.01, 1.0)),
    ParameterSpec('gain', 5.0, 'servo proportional gain on the pose error [1/s]',
                  (0.1, 100.0)),
    ParameterSpec('max_linear_speed', 0.5, 'servo cap of the tip speed [m/s]', (0.001, 10.0)),
    ParameterSpec('max_angular_speed', 1.5, 'servo cap of the tip angular speed [rad/s]',
                  (0.001, 20.0)),
    ParameterSpec('singular_value_threshold', 0.04, 'damping starts when the smallest '
                  'singular value of J falls below this [m/rad]', (1e-6, 1.0)),
    ParameterSpec('max_damping', 0.08, 'damping lambda at sigma_min = 0 [m/rad]',
                  (1e-6, 1.0)),
    ParameterSpec('orientation_weight', 1.0, 'weight of rotation against position error '
                  '[m/rad]', (1e-3, 100.0)),
    ParameterSpec('position_tolerance', 1e-3, 'target counts as reached below this '
                  'position error [m]', (1e-7, 0.5)),
    ParameterSpec('orientation_tolerance', 1e-2, 'target counts as reached below this '
                  'rotation error [rad]', (1e-6, 3.2)),
    ParameterSpec('solve_time_budget', 0.005, 'solve mode: IK time budget [s]',
                  (1e-4, 1.0)),
    ParameterSpec('max_tracking_error', 0.1, 'commands continue from the last command '
                  'while the arm is within this of it, else from the measured joints '
                  '[rad or m]', (1e-4, 10.0)),
    ParameterSpec('joint_state_timeout', 0.5, 'hold (no commands) when joint states are '
                  'older than this [s]', (0.001, 60.0)),
    ParameterSpec('singularity_warning', 0.02, 'diagnostics WARN below this smallest '
                  'singular value [m/rad]', (0.0, 10.0)),
    ParameterSpec('diagnostics_period', 0.5, 'period of /diagnostics messages [s]',
                  (0.01, 60.0)),
    ParameterSpec('marker_period', 0.1, 'period of ~/markers (target and manipulability '
                  'ellipsoid) [s]', (0.01, 60.0)),
    ParameterSpec('ellipsoid_scale', 0.2, 'drawn ellipsoid semi-axis per unit singular '
                  'value [m per m/s]', (0.001, 10.0)),
)
SPECS: Dict[str, ParameterSpec] = {spec.name: spec for spec in PARAMETERS}


def descriptor(spec: ParameterSpec) -> ParameterDescriptor:
    """Return the ROS descriptor of ``spec`` (range, read-only, description)."""
    description = spec.description
    if spec.choices:
        description += f' (one of: {", ".join(spec.choices)})'
    result = ParameterDescriptor(description=description, read_only=spec.read_only)
    if spec.value_range is not None:
        low, high = spec.value_range
        result.floating_point_range = [FloatingPointRange(from_value=low, to_value=high,
                                                          step=0.0)]
    return result


def declare_parameters(node: Node) -> None:
    """Declare every parameter of the table on ``node``."""
    for spec in PARAMETERS:
        node.declare_parameter(spec.name, spec.default, descriptor(spec))


def validation_errors(parameters: List[Parameter]) -> List[str]:
    """Return why each of ``parameters`` is invalid (choices and task axes)."""
    errors = []
    for parameter in parameters:
        spec = SPECS.get(parameter.name)
        if spec is None:
            continue
        if spec.choices and parameter.value not in spec.choices:
            errors.append(f'{parameter.name} must be one of {", ".join(spec.choices)}, '
                          f'got "{parameter.value}"')
        if parameter.name == 'task_axes':
            axes = parameter.value.split()
            if not axes or any(axis not in TASK_AXES for axis in axes):
                errors.append(f'task_axes must be a non-empty subset of '
                              f'"{" ".join(TASK_AXES)}", got "{parameter.value}"')
    return errors


def parameter_values(node: Node) -> Dict[str, Any]:
    """Return the current value of every parameter of the table."""
    return {spec.name: node.get_parameter(spec.name).value for spec in PARAMETERS}
