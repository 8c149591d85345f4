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
The layers hold: no ROS below the node, and no layer loads an upper one.

Trajectory, kinematics, collision, physics and control never load ROS. Above the node the
folders are siblings in a fixed order (sim, web, tools, demo): each may load the node and
what is below it, and only the demo loads the tools.

Each check imports every module of a layer in a fresh interpreter and reads
``sys.modules`` afterwards (what was really loaded, lazy imports included), not the text.
"""

import functools
import json
import os
import pkgutil
import subprocess
import sys

import pytest
import ros_ik

LAYERS = ('trajectory', 'kinematics', 'collision', 'paths', 'physics', 'control', 'node', 'sim',
          'web', 'tools', 'demo')
# Top-level modules that come from a ROS distribution (rclpy, its C extensions, generated
# message packages, ament and launch), as the PyPI wheels and a ROS install both ship them.
ROS_MODULE_PREFIXES = ('rclpy', 'rcl_', 'rosidl', 'rmw', 'rpyutils', 'ament', 'launch',
                       'builtin_interfaces', 'unique_identifier_msgs', 'action_msgs',
                       'service_msgs', 'type_description_interfaces')
ROS_MODULE_SUFFIXES = ('_msgs', '_interfaces')
CHECK = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted({module.split('.')[0] for module in sys.modules}
                        | {module for module in sys.modules if module.startswith('ros_ik.')})))
"""


def layer_modules(layer: str):
    """Return every module of ``ros_ik.<layer>``, the package itself included."""
    package = f'ros_ik.{layer}'
    folder = os.path.join(os.path.dirname(ros_ik.__file__), layer)
    return [package] + [f'{package}.{info.name}' for info in pkgutil.iter_modules([folder])]


@functools.lru_cache(maxsize=None)
def modules_loaded_by(layer: str):
    """Import all of a layer in a fresh interpreter; return the modules it loaded."""
    completed = subprocess.run([sys.executable, '-c', CHECK, *layer_modules(layer)],
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def is_ros_module(name: str) -> bool:
    """Return whether a top-level module name belongs to ROS."""
    return name.startswith(ROS_MODULE_PREFIXES) or name.endswith(ROS_MODULE_SUFFIXES)


@pytest.mark.parametrize('layer', ['trajectory', 'kinematics', 'collision', 'paths', 'physics',
                                   'control'])
def test_ros_free_layers_load_no_ros_package(layer):
    """Check that importing the whole layer loads no ROS package at all."""
    loaded = modules_loaded_by(layer)
    assert [name for name in loaded if is_ros_module(name)] == []


@pytest.mark.parametrize('layer', LAYERS)
def test_a_layer_loads_no_layer_above_it(layer):
    """Check each layer loads only layers before it in :data:`LAYERS`."""
    above = LAYERS[LAYERS.index(layer) + 1:]
    loaded = modules_loaded_by(layer)
    assert [name for name in loaded if name.split('.')[1:2] and name.split('.')[1] in above
            and name.startswith('ros_ik.')] == []


def test_the_check_sees_ros_when_it_is_there():
    """Check the detector itself: the node layer does load rclpy and message packages."""
    loaded = modules_loaded_by('node')
    assert 'rclpy' in loaded and 'sensor_msgs' in loaded
    assert all(is_ros_module(name) for name in ('rclpy', 'geometry_msgs', 'rcl_interfaces'))


# What only tests and benchmarks use; the installed package never loads it.
TEST_ONLY = ('pinocchio', 'ruckig', 'playwright', 'example_robot_data', 'toppra',
             'ros_ik_testing')


@pytest.mark.parametrize('layer', LAYERS)
def test_no_layer_loads_test_or_benchmark_support(layer):
    """Check the installed package runs without the tests' references and data."""
    assert [name for name in modules_loaded_by(layer) if name in TEST_ONLY] == []


def test_every_module_belongs_to_a_layer():
    """Check the package has no modules outside the layers."""
    top = os.path.dirname(ros_ik.__file__)
    assert sorted(info.name for info in pkgutil.iter_modules([top])) == sorted(LAYERS)
