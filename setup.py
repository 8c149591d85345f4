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

"""Install the ros_ik ament_python package."""

from glob import glob
import os

from setuptools import find_packages, setup

PACKAGE_NAME = 'ros_ik'


def share(folder: str, *patterns: str) -> tuple:
    """Return a data_files entry installing ``folder/<patterns>`` into share/ros_ik/folder."""
    return (os.path.join('share', PACKAGE_NAME, folder),
            sorted(path for pattern in patterns for path in glob(os.path.join(folder, pattern))))


setup(
    name=PACKAGE_NAME,
    version='0.4.0',
    packages=find_packages(exclude=['test', 'test.*', 'bench', 'bench.*']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + PACKAGE_NAME]),
        ('share/' + PACKAGE_NAME, ['package.xml']),
        share('launch', '*.launch.py'),
        share('config', '*'),
        share('urdf', '*.urdf', '*.srdf', '*_joint_limits.yaml'),
    ],
    install_requires=['setuptools', 'numpy', 'numba', 'urdf-parser-py', 'PyYAML', 'coal',
                      'mujoco', 'viser'],
    extras_require={
        'test': ['pytest', 'hypothesis', 'pin', 'example-robot-data', 'playwright'],
    },
    # numba caches compiled kernels next to the modules: install as plain files.
    zip_safe=False,
    maintainer='ros_ik developers',
    maintainer_email='dev@ros-ik.invalid',
    description='Singularity-aware damped-least-squares IK node for URDF arms.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'ik_node = ros_ik.tools.executables:ik_node',
            'ros_ik_demo = ros_ik.demo.closed_loop:main',
            'ros_ik_collision_pairs = ros_ik.tools.collision_pairs:main',
            'physics_arm = ros_ik.tools.executables:physics_arm',
            'position_stream_bridge = ros_ik.tools.executables:position_stream_bridge',
            'ros_ik_report = ros_ik.tools.report:main',
            'ros_ik_web = ros_ik.tools.executables:ros_ik_web',
            'sim_arm = ros_ik.tools.executables:sim_arm',
            'static_transform_publisher = ros_ik.tools.executables:static_transform_publisher',
            'target_marker = ros_ik.tools.executables:target_marker',
        ],
    },
)
