"""
The ROS-free controller: targets, joint-state cache, the control cycle, the parameters.

May import: :mod:`ros_ik.kinematics`, numpy and the standard library. Never ROS, never
:mod:`ros_ik.node` or :mod:`ros_ik.tools`. Plain data in (numbers, names, receive times in
s) and out (commands, status, notices), so every behaviour is unit-tested without DDS.
"""
