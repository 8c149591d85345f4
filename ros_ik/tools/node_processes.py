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
ros_ik executables as child processes, and an rclpy peer node, for the demo and tests.

The children inherit the environment (``ROS_DOMAIN_ID``, ``ROS_AUTOMATIC_DISCOVERY_RANGE``)
and are stopped with SIGINT, then SIGKILL of their process group. On Linux each child also
gets SIGTERM when the process that started it dies (``PR_SET_PDEATHSIG``), so a test run
that is killed leaves nothing running; :class:`ProcessGroup` owns children from the moment
each starts, so a set-up that fails half-way stops the ones already started.
"""

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, List, Optional

from rcl_interfaces.srv import SetParameters
import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter as RosParameter
from ros_ik.node.run import create_executor


PACKAGE_NAME = 'ros_ik'


def executable_candidates(name: str) -> List[str]:
    """
    Return where a ros_ik executable may be installed, in the order they are tried.

    A ROS install (colcon, ament_python) puts it in ``<prefix>/lib/ros_ik``, found through
    the ament index (``AMENT_PREFIX_PATH``); ``pip install`` puts it beside the Python
    interpreter (console scripts).
    """
    candidates = []
    try:
        from ament_index_python.packages import get_package_prefix, PackageNotFoundError
        try:
            candidates.append(os.path.join(get_package_prefix(PACKAGE_NAME), 'lib',
                                           PACKAGE_NAME, name))
        except (PackageNotFoundError, OSError):  # not indexed, or no AMENT_PREFIX_PATH
            pass
    except ImportError:
        pass
    candidates.append(os.path.join(os.path.dirname(sys.executable), name))
    candidates.append(os.path.join(sys.prefix, 'lib', PACKAGE_NAME, name))
    return candidates


def executable(name: str) -> str:
    """Return the path of a ros_ik executable: the first candidate found, else on PATH."""
    for path in executable_candidates(name):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(
            f'{name} is not installed in any of {executable_candidates(name)} nor on PATH; '
            '`colcon build` (then source install/setup.bash) or `make install` install it')
    return found


# Run before the executable (exec keeps the setting): SIGTERM when the parent dies
# (prctl option 1, PR_SET_PDEATHSIG). Not preexec_fn, which may deadlock in a parent with
# threads (DDS has them). A stop before the exec exits 0, as the node does in start-up.
TERMINATE_WITH_PARENT = ('import ctypes, os, signal, sys\n'
                         'for number in (signal.SIGINT, signal.SIGTERM):\n'
                         '    signal.signal(number, lambda *_: os._exit(0))\n'
                         'try:\n'
                         '    ctypes.CDLL(None).prctl(1, int(signal.SIGTERM))\n'
                         'except (OSError, AttributeError):\n'
                         '    pass\n'
                         'os.execvp(sys.argv[1], sys.argv[1:])\n')


class NodeProcess:
    """A ros_ik executable running in its own process group, output captured to a file."""

    def __init__(self, name: str, parameters: dict, log_path: str,
                 extra_arguments: Optional[List[str]] = None,
                 program: Optional[List[str]] = None,
                 environment: Optional[dict] = None,
                 arguments: Optional[List[str]] = None) -> None:
        """
        Start ``name`` with ``arguments`` (its own) and ``-p key:=value`` per parameter.

        ``extra_arguments`` follow the parameters (ROS arguments: remaps).
        ``program``: the command to run instead of the installed executable (e.g. an older
        source tree's ``python -m ros_ik.node.ik_node`` for a benchmark baseline), with
        ``environment`` added to this process's.
        """
        command = [sys.executable, '-c', TERMINATE_WITH_PARENT,
                   *(program or [executable(name)]), *(arguments or []), '--ros-args']
        if not sys.platform.startswith('linux'):
            command = command[3:]
        for key, value in parameters.items():
            command += ['-p', f'{key}:={value}']
        command += extra_arguments or []
        self.log_path = log_path
        self._log = open(log_path, 'w', encoding='utf-8')
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT,
                                        env=dict(os.environ, PYTHONUNBUFFERED='1',
                                                 **(environment or {})),
                                        start_new_session=True)

    def output(self) -> str:
        """Return everything the process printed so far."""
        if not self._log.closed:
            self._log.flush()
        with open(self.log_path, encoding='utf-8') as log:
            return log.read()

    def wait(self, timeout: float) -> int:
        """Wait for the process to exit by itself and return its exit code."""
        return self.process.wait(timeout=timeout)

    def stop(self) -> None:
        """Stop the process: SIGINT, then SIGKILL of its group after 5 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5.0)
        self._log.close()


class ProcessGroup:
    """Node processes owned from their start: :meth:`stop_all` stops every one started."""

    def __init__(self) -> None:
        """Own nothing yet."""
        self.processes: List[NodeProcess] = []

    def start(self, name: str, parameters: dict, log_path: str,
              extra_arguments: Optional[List[str]] = None,
              arguments: Optional[List[str]] = None) -> NodeProcess:
        """Start ``name`` (see :class:`NodeProcess`) and own it; return it."""
        process = NodeProcess(name, parameters, log_path, extra_arguments,
                              arguments=arguments)
        self.processes.append(process)
        return process

    def stop_all(self) -> None:
        """Stop every process started, newest first."""
        while self.processes:
            self.processes.pop().stop()


class RosPeer:
    """An rclpy node in the test process, in its own context (and the test's domain)."""

    def __init__(self, name: str = 'test_peer',
                 interrupt: Optional[threading.Event] = None,
                 node_executor: bool = False) -> None:
        """
        Create a fresh context, node and executor.

        ``interrupt``: once set (by a signal handler), every spin raises
        ``KeyboardInterrupt``: a stop request acted on at a safe point. ``node_executor``:
        spin with the node's executor (EventsExecutor where the distro has it; a benchmark
        peer publishing at 1 kHz) instead of the SingleThreadedExecutor.
        """
        self.interrupt = interrupt
        self.context = Context()
        rclpy.init(context=self.context)
        self.node: Node = rclpy.create_node(name, context=self.context)
        self.executor = (create_executor(self.context)[0] if node_executor
                         else SingleThreadedExecutor(context=self.context))
        self.executor.add_node(self.node)

    def spin_for(self, seconds: float) -> None:
        """Process callbacks for ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self._spin_once()

    def spin_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Process callbacks until ``condition()`` holds; return whether it did in time."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if condition():
                return True
            self._spin_once()
        return condition()

    def _spin_once(self) -> None:
        """Process callbacks for at most 10 ms; raise KeyboardInterrupt once interrupted."""
        if self.interrupt is not None and self.interrupt.is_set():
            raise KeyboardInterrupt
        self.executor.spin_once(timeout_sec=0.01)

    def set_parameter(self, node_name: str, name: str, value, timeout: float = 10.0):
        """
        Set parameter ``name`` of node ``node_name`` (typed as ``value`` is).

        Return the SetParametersResult, or None when the service did not answer in time.
        """
        client = self.node.create_client(SetParameters, f'{node_name}/set_parameters')
        try:
            if not client.wait_for_service(timeout_sec=timeout):
                return None
            request = SetParameters.Request(
                parameters=[RosParameter(name, value=value).to_parameter_msg()])
            future = client.call_async(request)
            if not self.spin_until(future.done, timeout):
                return None
            return future.result().results[0]
        finally:
            self.node.destroy_client(client)

    def close(self) -> None:
        """Destroy the node and shut the context down."""
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)
