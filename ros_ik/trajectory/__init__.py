"""
Online trajectory generation: jerk-limited, time-synchronised joint motion.

Numerical core, like :mod:`ros_ik.kinematics`: numpy and numba only, no ROS and no
kinematics. Used by :mod:`ros_ik.control` to turn every goal into a command stream
within position, velocity, acceleration and jerk limits.
"""
