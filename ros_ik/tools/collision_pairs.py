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
``ros_ik_collision_pairs``: write the SRDF ``disable_collisions`` block of a URDF.

What MoveIt Setup Assistant's self-collision page does, without a GUI: adjacent links,
pairs in collision at the default configuration and pairs in collision in nearly every
random configuration of the chain (:mod:`ros_ik.collision.collision_setup`). Usage::

    ros_ik_collision_pairs robot.urdf --base-link base_link --tip-link tool0 > robot.srdf
"""

import argparse
import os
import sys
from typing import List, Optional

from ros_ik.collision.allowed_pairs import disable_collisions_xml, pair_text
from ros_ik.collision.collision_setup import automatic_disabled_pairs, AUTOMATIC_SAMPLES
from ros_ik.collision.robot_geometry import robot_geometry
from ros_ik.collision.shapes import GeometryError, search_path_packages
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.kinematics.urdf_loader import load_urdf_string, parse_robot, read_robot_description


def main(args: Optional[List[str]] = None) -> int:
    """Print the SRDF; return 1 with a message on a bad URDF or mesh."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[1])
    parser.add_argument('urdf', help='URDF or .xacro file')
    parser.add_argument('--base-link', required=True, help='chain base link')
    parser.add_argument('--tip-link', required=True, help='chain tip link')
    parser.add_argument('--mesh-search-path', default='',
                        help='":"-separated folders holding package folders (package:// meshes)')
    parser.add_argument('--samples', type=int, default=AUTOMATIC_SAMPLES,
                        help='random configurations sampled (default %(default)s)')
    options = parser.parse_args(args)
    try:
        text = read_robot_description(options.urdf)
        kinematics = ChainKinematics(load_urdf_string(text, options.base_link,
                                                      options.tip_link))
        robot = robot_geometry(parse_robot(text), kinematics.chain, search_path_packages(
            [folder for folder in options.mesh_search_path.split(os.pathsep) if folder]))
    except (UrdfError, GeometryError) as error:
        print(f'ros_ik_collision_pairs: {error}', file=sys.stderr)
        return 1
    disabled = automatic_disabled_pairs(kinematics, robot, options.samples)
    ordered = sorted(disabled.items(), key=lambda item: pair_text(item[0]))
    sys.stdout.write(disable_collisions_xml(ordered, parse_robot(text).name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
