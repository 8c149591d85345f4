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
An independent collision check with Pinocchio and coal on the real meshes (the reference).

Pinocchio builds the robot's collision model from the URDF (meshes as they are, not their
hulls), every pair minus the SRDF's ``disable_collisions``, plus a floor box against every
moving link; :meth:`ReferenceCollisions.colliding` says which pairs touch at a chain
configuration (joints outside the chain at 0).
"""

from typing import List, Sequence

import coal
import numpy as np
import pinocchio

# The same floor as a scene object (YAML flow mapping) and a collision_scene_file text: a
# 4 x 4 x 0.2 m box, top face at the base's z = 0.
FLOOR_OBJECT = ('{name: floor, type: box, size: [4.0, 4.0, 0.2], '
                'pose: {xyz: [0.0, 0.0, -0.1], rpy: [0.0, 0.0, 0.0]}}')
FLOOR_SCENE = f'objects: [{FLOOR_OBJECT}]'


class ReferenceCollisions:
    """Pinocchio + coal collision checks of one URDF/SRDF with a floor box."""

    def __init__(self, urdf_path: str, srdf_path: str, package_folder: str,
                 joint_names: Sequence[str], floor_size=(4.0, 4.0, 0.2),
                 floor_top: float = 0.0, floor_allowed: Sequence[str] = ()) -> None:
        """Build the model; the floor's top face at ``floor_top`` (m) in the base frame."""
        self.model = pinocchio.buildModelFromUrdf(urdf_path)
        self.geometry = pinocchio.buildGeomFromUrdf(self.model, urdf_path,
                                                    pinocchio.GeometryType.COLLISION,
                                                    package_dirs=[package_folder])
        self.geometry.addAllCollisionPairs()
        pinocchio.removeCollisionPairs(self.model, self.geometry, srdf_path)
        floor = pinocchio.GeometryObject(
            'floor', 0, 0, pinocchio.SE3(np.eye(3), np.array([0.0, 0.0,
                                                              floor_top - floor_size[2] / 2])),
            coal.Box(*floor_size))
        floor_id = self.geometry.addGeometryObject(floor)
        for index, item in enumerate(self.geometry.geometryObjects):
            link = item.name.rsplit('_', 1)[0]
            if item.parentJoint != 0 and link not in floor_allowed and index != floor_id:
                self.geometry.addCollisionPair(pinocchio.CollisionPair(index, floor_id))
        self.data = self.model.createData()
        self.geometry_data = pinocchio.GeometryData(self.geometry)
        self._index = [self.model.getJointId(name) for name in joint_names]

    def configuration(self, q_chain: np.ndarray) -> np.ndarray:
        """Return Pinocchio's q with the chain joints set (others 0)."""
        q = pinocchio.neutral(self.model)
        for value, joint_id in zip(q_chain, self._index):
            q[self.model.joints[joint_id].idx_q] = value
        return q

    def colliding(self, q_chain: np.ndarray) -> List[str]:
        """Return the pairs in contact at the chain configuration ``q_chain``."""
        pinocchio.computeCollisions(self.model, self.data, self.geometry, self.geometry_data,
                                    self.configuration(q_chain), False)
        names = []
        for k, result in enumerate(self.geometry_data.collisionResults):
            if result.isCollision():
                pair = self.geometry.collisionPairs[k]
                names.append(self.geometry.geometryObjects[pair.first].name + ' - '
                             + self.geometry.geometryObjects[pair.second].name)
        return names
