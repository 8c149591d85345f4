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
