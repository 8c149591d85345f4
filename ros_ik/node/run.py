"""The shared ``main()`` of ros_ik's executables: start-up errors exit 1, Ctrl-C exits 0."""

from typing import Callable, List, Optional, Tuple, Type

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node


def run_node(create_node: Callable[[], Node], logger_name: str,
             startup_errors: Tuple[Type[BaseException], ...],
             args: Optional[List[str]] = None) -> int:
    """
    Initialise rclpy, create and spin a node; return the process exit code.

    A ``startup_errors`` exception while creating the node is logged as fatal
    (``cannot start: <reason>``) and gives 1; Ctrl-C or an external shutdown gives 0.
    """
    with rclpy.init(args=args):
        try:
            node = create_node()
        except startup_errors as error:
            rclpy.logging.get_logger(logger_name).fatal(f'cannot start: {error}')
            return 1
        try:
            rclpy.spin(node)
        except (KeyboardInterrupt, ExternalShutdownException):
            pass
        finally:
            node.destroy_node()
    return 0
