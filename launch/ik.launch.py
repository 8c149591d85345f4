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
Launch the ros_ik IK node alone.

Arguments (``ros2 launch ros_ik ik.launch.py --show-args``): ``arm`` (ur5, panda,
planar_2link, so101), ``urdf_file`` with ``base_link``/``tip_link`` for your own robot,
``joint_limits_file``, ``mode``, ``command_type``, ``params_file``, ``namespace``,
``target_topic`` (6-D targets), ``goal_topic`` (e.g. ``/goal_pose`` for RViz's 2D Goal
Pose), ``point_topic`` (e.g. ``/clicked_point``), ``path_topic`` (Cartesian paths,
``nav_msgs/Path``) and ``command_topic`` (e.g.
``/joint_trajectory_controller/joint_trajectory`` for a real arm), ``stream_bridge`` and
``stream_rate``. A position stream (``command_type`` joint_state or float64_multi_array)
comes by default from ``position_stream_bridge``, a process of its own that samples the
node's JointTrajectory horizons as joint_trajectory_controller does, so a stall of
ik_node's process does not stop it; it is published on the topic ik_node would use
(``ros_ik/joint_commands`` or ``ros_ik/commands``, or ``command_topic``). The node or
the bridge exiting with an error (bad URDF, unknown link) ends the launch with a non-zero
exit code.
"""

import os

from launch import LaunchDescription
from launch.actions import (DeclareLaunchArgument, OpaqueFunction, RegisterEventHandler,
                            Shutdown)
from launch.event_handlers import OnProcessExit
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from ros_ik.control.command_topics import (COMMAND_TOPICS, COMMAND_TYPES,
                                           private_command_topic)
from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, DEFAULT_ARM
from ros_ik.tools.arm_selection import choose_arm

SHARE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGUMENTS = (
    ('arm', DEFAULT_ARM, 'bundled arm: ' + ', '.join(BUNDLED_ARMS)),
    ('urdf_file', '', 'URDF or .xacro file of your robot (instead of a bundled arm; needs '
                      'base_link and tip_link)'),
    ('xacro_args', '', 'arguments of a .xacro urdf_file, "name:=value name2:=value2"'),
    ('base_link', '', 'chain base link (default: that of the bundled arm)'),
    ('tip_link', '', 'chain tip link (default: that of the bundled arm)'),
    ('joint_limits_file', '', 'MoveIt-style joint_limits.yaml (acceleration and jerk limits; '
                              "default: the bundled arm's, none for urdf_file)"),
    ('srdf_file', '', 'SRDF of the robot (its disable_collisions pairs are not checked; '
                      "default: the bundled arm's; none for urdf_file: automatic pairs)"),
    ('collision_scene_file', '', 'YAML of scene objects (floor, table, tool) for the collision '
                                 'checks; empty: none'),
    ('mode', 'solve', 'solve (full IK per target, then a jerk-limited move) or servo '
                      '(damped Cartesian steps)'),
    ('command_type', 'joint_trajectory', 'command message: ' + ', '.join(COMMAND_TYPES)
     + ' (joint_trajectory: horizons for joint_trajectory_controller, which carry the arm '
       'through a stall of this process on a loaded computer; so do the position streams '
       'through position_stream_bridge, see stream_bridge)'),
    ('params_file', os.path.join(SHARE, 'config', 'ik.yaml'), 'ik_node parameters file'),
    ('namespace', '', 'namespace of the node and its topics'),
    ('target_topic', '', 'remap ~/target_pose (full 6-D targets) to this topic; empty: none'),
    ('goal_topic', '', 'remap ~/planar_goal to this topic (e.g. /goal_pose, RViz 2D Goal '
                       'Pose; read per planar_goal_mode)'),
    ('point_topic', '', 'remap ~/target_point to this topic (e.g. /clicked_point)'),
    ('path_topic', '', 'remap ~/target_path (Cartesian paths, nav_msgs/Path) to this topic; '
                       'empty: none (the ~/follow_path action is not remapped)'),
    ('command_topic', '', 'remap the command output to this topic (e.g. '
                          '/joint_trajectory_controller/joint_trajectory); empty: none'),
    ('stream_bridge', 'true', 'position streams (joint_state, float64_multi_array) from '
                              'position_stream_bridge, a process of its own fed by the '
                              "node's JointTrajectory horizons, which carries the stream "
                              "through a stall of ik_node's process (false: straight from "
                              'ik_node, which stops with it)'),
    ('stream_rate', '500.0', "rate of the bridged position stream [Hz] (the arm driver's)"),
)


def declare_arguments():
    """Return a DeclareLaunchArgument, with its description, for each argument."""
    return [DeclareLaunchArgument(name, default_value=default, description=description)
            for name, default, description in ARGUMENTS]


def resolved(context) -> dict:
    """Return every argument's value in ``context``."""
    return {name: context.perform_substitution(LaunchConfiguration(name))
            for name, _, _ in ARGUMENTS}


def bridged_stream(argument: dict) -> bool:
    """Return whether a position stream comes through position_stream_bridge."""
    return (argument['command_type'] != 'joint_trajectory'
            and argument['stream_bridge'].lower() in ('true', '1'))


def stream_bridge(context, **node_options) -> Node:
    """
    Return the position_stream_bridge action: ik_node's horizons in, the stream out.

    It reads ``ros_ik/joint_trajectory`` and ``joint_states`` and publishes where ik_node
    would publish the stream (``ros_ik/joint_commands`` or ``ros_ik/commands``, relative
    to the namespace) or on ``command_topic``.
    """
    argument = resolved(context)
    output = COMMAND_TOPICS[argument['command_type']]
    return Node(package='ros_ik', executable='position_stream_bridge',
                name='position_stream_bridge', namespace=argument['namespace'],
                output='screen',
                remappings=[('joint_trajectory', 'ros_ik/joint_trajectory'),
                            (output, argument['command_topic'] or f'ros_ik/{output}')],
                parameters=[{'command_type': argument['command_type'],
                             'rate': float(argument['stream_rate'])}], **node_options)


def ik_node(context, **node_options) -> Node:
    """Return the ik_node action for the resolved arguments of ``context``."""
    argument = resolved(context)
    bridged = bridged_stream(argument)
    command_type = 'joint_trajectory' if bridged else argument['command_type']
    setup = choose_arm(argument['arm'], argument['urdf_file'], argument['base_link'],
                       argument['tip_link'], os.path.join(SHARE, 'urdf'),
                       argument['joint_limits_file'], argument['xacro_args'],
                       argument['srdf_file'])
    remappings = [(source, target) for source, target in (
        ('~/target_pose', argument['target_topic']),
        ('~/planar_goal', argument['goal_topic']),
        ('~/target_point', argument['point_topic']),
        ('~/target_path', argument['path_topic']),
        (private_command_topic(command_type), '' if bridged else argument['command_topic']))
        if target]
    return Node(package='ros_ik', executable='ik_node', name='ros_ik',
                namespace=argument['namespace'], output='screen', remappings=remappings,
                parameters=[argument['params_file'], {
                    'robot_description': ParameterValue(setup.urdf_text(), value_type=str),
                    'base_link': setup.base_link, 'tip_link': setup.tip_link,
                    'task_axes': setup.task_axes, 'mode': argument['mode'],
                    'joint_limits_file': setup.joint_limits_file,
                    'robot_description_semantic_file': setup.srdf_file,
                    'collision_scene_file': argument['collision_scene_file'],
                    'command_type': command_type}], **node_options)


def shut_down_after(event, context):
    """
    End the launch when ik_node (or the bridge) exits; raise on an error code.

    The raise makes the launch exit non-zero.

    Once the launch is shutting down (Ctrl-C, another Shutdown) any code is the stop the
    user asked for: ik_node exits 0 on SIGINT and SIGTERM, but launch escalates to SIGTERM
    and SIGKILL after its timeouts, and a process killed so reports -15 or -9.
    """
    if context.is_shutdown:
        return None
    if event.returncode not in (0, -2):  # -2: stopped by SIGINT
        raise RuntimeError(f'{event.action.name} exited with code {event.returncode}; see '
                           'its log above')
    return [Shutdown(reason=f'{event.action.name} exited')]


def launch_setup(context):
    """Create the node (and the bridge) and the handlers that end the launch on an exit."""
    nodes = [ik_node(context)]
    if bridged_stream(resolved(context)):
        nodes.append(stream_bridge(context))
    return nodes + [RegisterEventHandler(OnProcessExit(target_action=node,
                                                       on_exit=shut_down_after))
                    for node in nodes]


def generate_launch_description() -> LaunchDescription:
    """Return the launch description."""
    return LaunchDescription(declare_arguments() + [OpaqueFunction(function=launch_setup)])
