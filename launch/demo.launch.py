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

Takes every argument of ``ik.launch.py`` (arm, urdf_file, base_link, tip_link, mode,
command_type, params_file, namespace, target_topic, point_topic, command_topic) plus
``use_sim`` (the kinematic simulated arm; ``false`` to drive a real arm's controllers),
``use_rsp`` (robot_state_publisher for TF), ``use_rviz``, ``rviz_config`` and
``use_marker`` (the 6-DOF drag target). By default the drag target, RViz's 2D Goal Pose
(``/goal_pose``) and Publish Point (``/clicked_point``) all drive the arm.
"""

import importlib.util
import os
import tempfile

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, OpaqueFunction
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from ros_ik.control.command_topics import COMMAND_TOPICS
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
    ('use_sim', 'true', 'start the kinematic simulated arm (false: a real arm takes the '
                        'commands through command_topic)'),
    ('use_rsp', 'true', 'start robot_state_publisher (TF for RViz)'),
    ('use_rviz', 'true', 'start RViz'),
    ('use_marker', 'true', 'start the 6-DOF drag target (interactive marker) for RViz'),
    ('rviz_config', os.path.join(SHARE, 'config', 'demo.rviz'), 'RViz configuration'),
    ('goal_topic', '/goal_pose', 'remap ~/planar_goal (RViz 2D Goal Pose)'),
    ('point_topic', '/clicked_point', 'remap ~/target_point (RViz Publish Point)'),
)


def rviz_config_for(path: str, fixed_frame: str) -> str:
    """Return a copy of the RViz config whose fixed frame is the chain's base link."""
    with open(path, encoding='utf-8') as config:
        text = config.read().replace('Fixed Frame: base_link', f'Fixed Frame: {fixed_frame}')
    handle, copy = tempfile.mkstemp(prefix='ros_ik_', suffix='.rviz')
    with os.fdopen(handle, 'w', encoding='utf-8') as config:
        config.write(text)
    return copy


def companions(context):
    """Return the simulated arm, drag target, robot_state_publisher and RViz for the arm."""
    value = context.perform_substitution
    setup = choose_arm(value(LaunchConfiguration('arm')),
                       value(LaunchConfiguration('urdf_file')),
                       value(LaunchConfiguration('base_link')),
                       value(LaunchConfiguration('tip_link')), os.path.join(SHARE, 'urdf'),
                       value(LaunchConfiguration('joint_limits_file')))
    namespace = value(LaunchConfiguration('namespace'))
    sim_input = COMMAND_TOPICS[value(LaunchConfiguration('command_type'))]
    description = ParameterValue(setup.urdf_text(), value_type=str)
    initial = [float(v) for v in setup.home] or [0.0]
    return [
        Node(package='ros_ik', executable='sim_arm', name='sim_arm', namespace=namespace,
             output='screen', condition=IfCondition(LaunchConfiguration('use_sim')),
             remappings=[(sim_input, f'ros_ik/{sim_input}')],
             parameters=[{'robot_description': description, 'base_link': setup.base_link,
                          'tip_link': setup.tip_link, 'initial_positions': initial,
                          'joint_limits_file': setup.joint_limits_file, 'strict': True}]),
        Node(package='ros_ik', executable='target_marker', name='ik_target_marker',
             namespace=namespace, output='screen',
             condition=IfCondition(LaunchConfiguration('use_marker')),
             remappings=[('target_pose', 'ros_ik/target_pose')],
             parameters=[{'robot_description': description, 'base_link': setup.base_link,
                          'tip_link': setup.tip_link}]),
        Node(package='robot_state_publisher', executable='robot_state_publisher',
             namespace=namespace, output='screen',
             condition=IfCondition(LaunchConfiguration('use_rsp')),
             parameters=[{'robot_description': description}]),
        Node(package='rviz2', executable='rviz2', namespace=namespace, output='screen',
             arguments=['-d', rviz_config_for(value(LaunchConfiguration('rviz_config')),
                                              setup.base_link)],
             condition=IfCondition(LaunchConfiguration('use_rviz'))),
    ]


def generate_launch_description() -> LaunchDescription:
    """Return the launch description (the IK node comes from ik.launch.py itself)."""
    demo_names = {name for name, _, _ in DEMO_ARGUMENTS}
    arguments = [DeclareLaunchArgument(name, default_value=default, description=description)
                 for name, default, description in DEMO_ARGUMENTS]
    arguments += [DeclareLaunchArgument(name, default_value=default, description=description)
                  for name, default, description in ik_arguments() if name not in demo_names]
    forwarded = {name: LaunchConfiguration(name) for name, _, _ in ik_arguments()}
    return LaunchDescription(arguments + [
        IncludeLaunchDescription(PythonLaunchDescriptionSource(IK_LAUNCH),
                                 launch_arguments=forwarded.items()),
        OpaqueFunction(function=companions),
    ])
