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
The shared ``main()`` of ros_ik's executables: start-up errors exit 1, SIGINT/SIGTERM exit 0.

rclpy's own signal handler shuts the context down from inside the signal, while a timer
callback may be publishing: that callback then fails (``publisher's context is invalid``)
and the process exits 1 with a traceback. Instead SIGINT and SIGTERM only ask the spin loop
to stop (:mod:`ros_ik.node.stop_signals`); it finishes the callback in progress, then the
node is destroyed and rclpy shut down, in that order, so no callback ever runs on a dead
context. A stop requested during start-up ends the process right after the node is built.

Once the node is built, everything alive is moved out of the garbage collector's reach
(``gc.freeze()``): the start-up leaves some 60,000 objects (numba, coal, the model), and a
full collection walking them holds the GIL for 15-60 ms, a stall of the control cycle
whenever the allocations of a ``~/solve_ik`` request (its own thread) or of the cycle itself
trigger one. Objects made later are collected as usual.
"""

import gc
import inspect
from typing import Callable, List, Optional, Tuple, Type

import rclpy
from rclpy.context import Context
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from ros_ik.node import stop_signals

SPIN_PERIOD = 0.05  # s: the longest a stop request waits for the spin loop


def create_executor(context: Optional[Context] = None) -> Tuple[Executor, str]:
    """
    Return the executor to spin with (of ``context``, default: rclpy's) and a line naming it.

    ``rclpy.experimental.EventsExecutor`` where the distro has it (Jazzy's rclpy 7.1.6 and
    Kilted do; the SingleThreadedExecutor otherwise): its C++ event queue costs a fraction
    of the wait set the ``SingleThreadedExecutor`` rebuilds for every callback, which
    dominates the node's CPU under a 1 kHz joint_states stream.
    """
    try:
        from rclpy.experimental import EventsExecutor
    except ImportError:
        return SingleThreadedExecutor(context=context), (
            'executor: SingleThreadedExecutor (this rclpy has no '
            'rclpy.experimental.EventsExecutor)')
    return EventsExecutor(context=context), 'executor: rclpy.experimental.EventsExecutor'


def timer_callback(callback: Callable[[], None]) -> Callable[[], None]:
    """
    Return ``callback`` wrapped in a function whose signature is known in advance.

    rclpy's EventsExecutor (Kilted) calls ``inspect.signature`` on a timer's callback at
    every event, to learn whether it takes a ``TimerInfo``: 20-70 us for a bound method,
    2-7 % of a core at 1 kHz. A ``__signature__`` attribute (the protocol ``inspect``
    honours) makes that a lookup. The wrapper takes no argument, as ``callback``.
    """
    def call() -> None:
        callback()
    call.__signature__ = inspect.Signature()
    return call


def run_node(create_node: Callable[[], Node], logger_name: str,
             startup_errors: Tuple[Type[BaseException], ...],
             args: Optional[List[str]] = None) -> int:
    """
    Initialise rclpy, create and spin a node; return the process exit code.

    A ``startup_errors`` exception while creating the node is logged as fatal
    (``cannot start: <reason>``) and gives 1; SIGINT, SIGTERM or an external shutdown give 0,
    also during start-up, which a stop ends at once (:mod:`ros_ik.node.stop_signals`).
    """
    stop_signals.install()
    stop = stop_signals.stop_requested
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    try:
        try:
            node = create_node()
        except startup_errors as error:
            rclpy.logging.get_logger(logger_name).fatal(f'cannot start: {error}')
            return 1
        stop_signals.started()
        gc.freeze()
        executor, description = create_executor()
        node.get_logger().info(description)
        executor.add_node(node)
        try:
            while not stop.is_set() and rclpy.ok():
                executor.spin_once(timeout_sec=SPIN_PERIOD)
        except ExternalShutdownException:
            pass
        finally:
            executor.shutdown()
            node.destroy_node()
    finally:
        stop_signals.started()  # a stop during the clean-up (or a failed start) waits for it
        rclpy.try_shutdown()
        stop_signals.ignore_from_now()
    return 0
