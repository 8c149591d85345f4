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
The launch files' arguments, evaluated without starting anything (needs launch_ros).

Namespace and remaps must reach every node (the drag target publishes where the IK node
listens, the simulated arm listens where commands go), missing optional parts must be
left out with a warning naming them, and no temporary file may be written.
"""

import importlib.util
import os
import tempfile

import pytest

launch = pytest.importorskip('launch', reason='launch is not installed (it ships with ROS 2)')
pytest.importorskip('launch_ros', reason='launch_ros is not installed (it ships with ROS 2)')

LAUNCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'launch')


def evaluated(name: str, **arguments):
    """Return the module of launch file ``name`` and a context holding ``arguments``."""
    spec = importlib.util.spec_from_file_location(name.replace('.', '_'),
                                                  os.path.join(LAUNCH, name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    context = launch.LaunchContext()
    for entity in module.generate_launch_description().entities:
        if isinstance(entity, launch.actions.DeclareLaunchArgument):
            default = entity.default_value[0].text if entity.default_value else ''
            context.launch_configurations[entity.name] = arguments.get(entity.name, default)
    return module, context


def remaps(node) -> dict:
    """Return a launch_ros Node's remappings as {from: to}."""
    return {source[0].text: target[0].text for source, target in node._Node__remappings}


def test_demo_remaps_follow_target_and_command_topics_and_write_no_file():
    """Check target_topic reaches the drag target and command_topic the simulated arm."""
    module, context = evaluated('demo.launch.py', arm='panda', namespace='arm1',
                                target_topic='/my_target', command_type='joint_trajectory',
                                command_topic='/jtc/joint_trajectory', use_marker='true')
    before = set(os.listdir(tempfile.gettempdir()))
    actions = module.companions(context)
    assert set(os.listdir(tempfile.gettempdir())) == before
    nodes = {action._Node__node_executable: action for action in actions
             if hasattr(action, '_Node__node_executable')}
    assert remaps(nodes['sim_arm']) == {'joint_trajectory': '/jtc/joint_trajectory',
                                        'collision_scene': 'ros_ik/collision_scene'}
    if 'target_marker' in nodes:
        assert remaps(nodes['target_marker']) == {'target_pose': '/my_target'}
    for node in nodes.values():
        assert node._Node__node_namespace == 'arm1'


def test_missing_optional_parts_are_named_and_left_out():
    """Check parts that are not installed come back as warnings, not as nodes."""
    module, context = evaluated('demo.launch.py')
    missing = module.missing_parts({'use_rsp': True, 'use_rviz': True, 'use_marker': True,
                                    'use_sim': True})
    actions = module.companions(context)
    warnings = [action for action in actions if not hasattr(action, '_Node__node_executable')]
    executables = {action._Node__node_executable for action in actions
                   if hasattr(action, '_Node__node_executable')}
    assert len(warnings) == len(missing)
    assert executables.isdisjoint({{'use_rsp': 'robot_state_publisher', 'use_rviz': 'rviz2',
                                    'use_marker': 'target_marker'}[part] for part in missing})
    assert 'sim_arm' in executables


def test_ik_launch_remaps_and_limits_file():
    """Check ik.launch.py: remaps of every input and the output, the arm's limits file."""
    module, context = evaluated('ik.launch.py', arm='ur5', target_topic='/my_target',
                                goal_topic='goal_pose', point_topic='clicked_point',
                                path_topic='/my_path', command_topic='/forward/commands',
                                command_type='float64_multi_array', stream_bridge='false')
    node = module.ik_node(context)
    assert remaps(node) == {'~/target_pose': '/my_target', '~/planar_goal': 'goal_pose',
                            '~/target_point': 'clicked_point', '~/target_path': '/my_path',
                            '~/commands': '/forward/commands'}


@pytest.mark.parametrize('command_topic, output', [('', 'ros_ik/joint_commands'),
                                                   ('/driver/commands', '/driver/commands')])
def test_ik_launch_streams_positions_through_the_bridge_by_default(command_topic, output):
    """Check a position stream: ik_node sends horizons to the bridge, which streams on."""
    module, context = evaluated('ik.launch.py', arm='ur5', namespace='arm1',
                                command_type='joint_state', command_topic=command_topic,
                                stream_rate='250')
    actions = module.launch_setup(context)
    nodes = {action._Node__node_executable: action for action in actions
             if hasattr(action, '_Node__node_executable')}
    assert set(nodes) == {'ik_node', 'position_stream_bridge'}
    assert remaps(nodes['ik_node']) == {}  # horizons on its own ~/joint_trajectory
    assert remaps(nodes['position_stream_bridge']) == {
        'joint_trajectory': 'ros_ik/joint_trajectory', 'joint_commands': output}
    assert nodes['position_stream_bridge']._Node__node_namespace == 'arm1'
    handlers = [action for action in actions if action not in nodes.values()]
    assert len(handlers) == 2  # a failing node or bridge ends the launch
