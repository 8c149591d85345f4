"""
ros_ik: singularity-aware damped-least-squares inverse kinematics for ROS 2 arms.

Four layers, each a subpackage; a layer imports only the layers before it:

* :mod:`ros_ik.kinematics`: URDF -> chain, FK/Jacobian, manipulability, damped least
  squares, joint limits, IK solver, servo step (numpy + numba; no ROS);
* :mod:`ros_ik.control`: the ROS-free controller (targets, joint-state cache, the cycle
  state machine, the parameter table);
* :mod:`ros_ik.node`: the rclpy node, message conversions, parameter declarations;
* :mod:`ros_ik.tools`: the simulated arm, the drag target, the demo, the report.
"""
