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
Launch the demo: simulated arm + IK node + robot_state_publisher + RViz.

Takes every argument of ``ik.launch.py`` (arm, urdf_file, base_link, tip_link,
joint_limits_file, mode, command_type, params_file, namespace, target_topic, point_topic,
path_topic, command_topic, stream_bridge, stream_rate) plus ``use_sim`` (the kinematic
simulated arm, strict like a real controller; ``false`` to drive a real arm's controllers),
``use_rsp`` (robot_state_publisher for TF), ``world_frame`` (the arm's base mounted in it
by a static transform, identity; empty: none), ``use_rviz``, ``rviz_config`` (its fixed
frame is set to ``world_frame``, else the chain's base, with ``rviz2 -f``), ``use_marker``
(the 6-DOF drag target), ``physics`` (the simulated arm is ``physics_arm``, MuJoCo) and
``use_web`` with ``web_host`` and ``web_port`` (the browser view, ``ros_ik_web``). By
default the drag target, RViz's 2D Goal Pose (``goal_pose``) and Publish Point
(``clicked_point``) all drive the arm; every topic is relative, so ``namespace`` applies to
all of it. Optional parts that are not installed (robot_state_publisher, rviz2,
interactive_markers) are left out with a warning before anything starts.
"""

import importlib.util
import os
from typing import Dict

from ament_index_python.packages import get_package_prefix, PackageNotFoundError

from launch import LaunchDescription
from launch.actions import (DeclareLaunchArgument, IncludeLaunchDescription, LogInfo,
                            OpaqueFunction)
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from ros_ik.control.command_topics import COMMAND_TOPICS
from ros_ik.kinematics.bundled_arms import gains_beside
from ros_ik.tools.arm_selection import choose_arm

HERE = os.path.dirname(os.path.abspath(__file__))
SHARE = os.path.dirname(HERE)
IK_LAUNCH = os.path.join(HERE, 'ik.launch.py')


def ik_arguments():
    """Return ik.launch.py's argument table (name, default, description)."""
    spec = importlib.util.spec_from_file_location('ik_launch', IK_LAUNCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ARGUMENTS


DEMO_ARGUMENTS = (
    ('use_sim', 'true', 'start the simulated arm (false: a real arm takes the '
                        'commands through command_topic)'),
    ('physics', 'false', 'the simulated arm is physics_arm (MuJoCo: inertia, gravity, '
                         'torque limits, contacts) instead of the kinematic sim_arm'),
    ('use_rsp', 'true', 'start robot_state_publisher (TF for RViz)'),
    ('world_frame', 'world', 'mount the base in this frame (a static transform, identity) '
                             "and make it RViz's fixed frame; empty: none"),
    ('use_rviz', 'true', 'start RViz'),
    ('use_web', 'false', 'start the browser view (ros_ik_web: the arm, a drag target, the '
                         "node's status) for machines without RViz"),
    ('web_host', '127.0.0.1', 'interface of the browser view (0.0.0.0: other machines too)'),
    ('web_port', '8080', 'TCP port of the browser view'),
    ('use_marker', 'true', 'start the 6-DOF drag target (interactive marker) for RViz'),
    ('rviz_config', os.path.join(SHARE, 'config', 'demo.rviz'), 'RViz configuration'),
    ('goal_topic', 'goal_pose', 'remap ~/planar_goal (RViz 2D Goal Pose; relative, so it '
                                'follows namespace as RViz does)'),
    ('point_topic', 'clicked_point', 'remap ~/target_point (RViz Publish Point)'),
)


def missing_parts(wanted: Dict[str, bool]) -> Dict[str, str]:
    """
    Return the optional parts that are wanted but not installed, with what is missing.

    ``wanted``: part -> whether its ``use_*`` argument is true. robot_state_publisher and
    rviz2 are ROS packages (looked up in the ament index), the drag target needs the
    interactive_markers Python package.
    """
    missing = {}
    for part, package in (('use_rsp', 'robot_state_publisher'), ('use_rviz', 'rviz2')):
        if wanted[part]:
            try:
                get_package_prefix(package)
            except (PackageNotFoundError, OSError):
                missing[part] = f'package {package} is not installed'
    if wanted['use_marker'] and importlib.util.find_spec('interactive_markers') is None:
        missing['use_marker'] = ('the interactive_markers Python package (for the drag '
                                 'target) is not installed')
    return missing


def companions(context):
    """
    Return the simulated arm, drag target, robot_state_publisher and RViz for the arm.

    Optional parts that are not installed are left out with a warning naming them, before
    anything starts. Topic names are relative, so ``namespace`` reaches every node and the
    RViz config; ``target_topic`` and ``command_topic`` remaps reach the drag target and
    the simulated arm too.
    """
    value = context.perform_substitution
    argument = {name: value(LaunchConfiguration(name)) for name in (
        'arm', 'urdf_file', 'xacro_args', 'base_link', 'tip_link', 'joint_limits_file',
        'namespace',
        'command_type', 'target_topic', 'command_topic', 'rviz_config', 'world_frame',
        'web_host', 'web_port')}
    setup = choose_arm(argument['arm'], argument['urdf_file'], argument['base_link'],
                       argument['tip_link'], os.path.join(SHARE, 'urdf'),
                       argument['joint_limits_file'], argument['xacro_args'])
    wanted = {part: value(LaunchConfiguration(part)).lower() in ('true', '1')
              for part in ('use_sim', 'use_rsp', 'use_rviz', 'use_marker', 'use_web',
                           'physics')}
    missing = missing_parts(wanted)
    actions = [LogInfo(msg=f'WARNING: {reason}: starting without it ({part}:=false to '
                           'silence this)') for part, reason in missing.items()]
    namespace = argument['namespace']
    sim_input = COMMAND_TOPICS[argument['command_type']]
    description = ParameterValue(setup.urdf_text(), value_type=str)
    initial = [float(v) for v in setup.home] or [0.0]
    simulator = 'physics_arm' if wanted['physics'] else 'sim_arm'
    physics = ({'robot_description_semantic_file': setup.srdf_file,
                'gains_file': gains_beside(setup.urdf_path)
                if os.path.isfile(gains_beside(setup.urdf_path)) else ''}
               if wanted['physics'] else {})
    nodes = {
        'use_sim': Node(
            package='ros_ik', executable=simulator, name=simulator, namespace=namespace,
            output='screen',
            remappings=[(sim_input, argument['command_topic'] or f'ros_ik/{sim_input}'),
                        ('collision_scene', 'ros_ik/collision_scene')],
            parameters=[{'robot_description': description, 'base_link': setup.base_link,
                         'tip_link': setup.tip_link, 'initial_positions': initial,
                         'joint_limits_file': setup.joint_limits_file, 'strict': True,
                         # JTC's quintic overshoots the acceleration by up to 4 %
                         'strict_tolerance': 0.05 if argument['command_type'] ==
                         'joint_trajectory' else 0.01,
                         **physics}]),
        'use_marker': Node(
            package='ros_ik', executable='target_marker', name='ik_target_marker',
            namespace=namespace, output='screen',
            remappings=[('target_pose', argument['target_topic'] or 'ros_ik/target_pose')],
            parameters=[{'robot_description': description, 'base_link': setup.base_link,
                         'tip_link': setup.tip_link}]),
        'use_web': Node(
            package='ros_ik', executable='ros_ik_web', name='ros_ik_web', namespace=namespace,
            output='screen',
            remappings=[('ros_ik/target_pose', argument['target_topic'] or 'ros_ik/target_pose')],
            parameters=[{'robot_description': description, 'base_link': setup.base_link,
                         'tip_link': setup.tip_link, 'host': argument['web_host'],
                         'port': int(argument['web_port'])}]),
        'use_rsp': Node(
            package='robot_state_publisher', executable='robot_state_publisher',
            namespace=namespace, output='screen',
            parameters=[{'robot_description': description}]),
        'use_rviz': Node(
            package='rviz2', executable='rviz2', namespace=namespace, output='screen',
            arguments=['-d', argument['rviz_config'], '-f',
                       argument['world_frame'] or setup.base_link]),
    }
    mount = []
    if argument['world_frame']:
        mount = [Node(package='ros_ik', executable='static_transform_publisher',
                      output='screen', namespace=namespace,
                      arguments=['--frame-id', argument['world_frame'],
                                 '--child-frame-id', setup.base_link])]
    return actions + mount + [node for part, node in nodes.items()
                              if wanted[part] and part not in missing]


def generate_launch_description() -> LaunchDescription:
    """Return the launch description (the IK node comes from ik.launch.py itself)."""
    demo_names = {name for name, _, _ in DEMO_ARGUMENTS}
    arguments = [DeclareLaunchArgument(name, default_value=default, description=description)
                 for name, default, description in DEMO_ARGUMENTS]
    arguments += [DeclareLaunchArgument(name, default_value=default, description=description)
                  for name, default, description in ik_arguments() if name not in demo_names]
    forwarded = {name: LaunchConfiguration(name) for name, _, _ in ik_arguments()}
    # The companions (and their checks) come first: a bad argument fails the launch before
    # any process starts.
    return LaunchDescription(arguments + [
        OpaqueFunction(function=companions),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(IK_LAUNCH),
                                 launch_arguments=forwarded.items()),
    ])
