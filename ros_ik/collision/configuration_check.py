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
The collision check of one configuration, as :class:`ros_ik.kinematics.ik_query.IkQuery` takes it.

A configuration ``q`` is in collision when a checked pair (self or scene, as the node checks
motion) is closer than the checker's padding (m): the closest pair by coal's signed distance.
"""

import numpy as np

from ros_ik.collision.collision_checker import CollisionChecker
from ros_ik.kinematics.ik_query import ConfigurationCheck


def collision_check(checker: CollisionChecker) -> ConfigurationCheck:
    """
    Return ``check(q)``: '' when ``q`` is free, else the closest pair and its distance.

    The checker keeps state between calls: one checker per thread.
    """
    def check(q: np.ndarray) -> str:
        contact = checker.nearest(q, within=checker.padding)
        if contact is None or contact.distance >= checker.padding:
            return ''
        return (f'in collision: {contact.owners[0]} and {contact.owners[1]} are '
                f'{contact.distance:.3g} m apart (padding {checker.padding:g} m)')
    return check
