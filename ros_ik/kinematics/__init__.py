"""
The numerical core: chain model, kinematics, damped least squares, IK solver, servo step.

May import: numpy, numba, urdf_parser_py and the standard library. Never ROS (rclpy,
message packages, ament) and never the other ros_ik layers: usable and testable anywhere.
Frames and units: the chain's base frame, metres, radians, seconds; twists linear first.
"""
