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
Where ``package://`` mesh names point: the ament index first, then ``mesh_search_path``.

The ament index is ROS's own lookup (``ament_index_python``, present with any ROS install
and with the PyPI wheels); the search path covers meshes outside it (":"-separated folders
holding package folders, like ``ROS_PACKAGE_PATH``).
"""

from typing import Callable, Optional

from ros_ik.collision.shapes import search_path_packages


def package_directories(mesh_search_path: str) -> Callable[[str], Optional[str]]:
    """Return a lookup ``package -> share directory`` (None when no source has it)."""
    search_path = search_path_packages([folder for folder in mesh_search_path.split(':')
                                        if folder])
    try:
        from ament_index_python.packages import (get_package_share_directory,
                                                 PackageNotFoundError)
    except ImportError:
        return search_path

    def lookup(package: str) -> Optional[str]:
        try:
            return get_package_share_directory(package)
        except (PackageNotFoundError, ValueError, OSError):  # OSError: no AMENT_PREFIX_PATH
            return search_path(package)
    return lookup
