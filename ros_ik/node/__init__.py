"""
The ROS 2 API: the rclpy node, message conversions, parameter declarations, ``main()``.

May import: rclpy and ROS message packages, :mod:`ros_ik.control` and
:mod:`ros_ik.kinematics`. Never :mod:`ros_ik.tools`. A thin layer: subscriptions convert
and hand over, timers publish what the controller computed.
"""
