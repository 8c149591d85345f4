"""
Tools around the node: simulated arm, drag target, closed-loop demo, report, arm choice.

May import every other layer, rclpy and ROS packages; nothing imports from here except
launch files, tests and benchmarks.
"""
