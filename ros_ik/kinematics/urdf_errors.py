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
Exceptions raised while turning a URDF into a kinematic chain.

Every message names the link or joint at fault, and for joints also its type, so a user can
find the line in the URDF. All derive from :class:`UrdfError` (a ``ValueError``).
"""


class UrdfError(ValueError):
    """A URDF that cannot be turned into a kinematic chain."""


class MalformedUrdfError(UrdfError):
    """The XML could not be parsed as a URDF."""


class UnknownLinkError(UrdfError):
    """A requested base or tip link is not in the URDF."""


class NoPathError(UrdfError):
    """The tip link does not descend from the base link."""


class UnsupportedJointError(UrdfError):
    """A floating or planar joint lies between base and tip."""


class ZeroAxisError(UrdfError):
    """A moving joint's axis has zero length."""


class MissingLimitError(UrdfError):
    """A revolute or prismatic joint lacks a usable ``<limit>``."""


class MimicJointError(UrdfError):
    """A joint on the chain mimics another joint (not supported)."""
