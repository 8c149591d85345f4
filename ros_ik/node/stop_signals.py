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
SIGINT and SIGTERM as a stop request, installed before the heavy imports of an executable.

The first lines of every ros_ik executable install these handlers (see
:mod:`ros_ik.tools.executables`), so a Ctrl-C or a ``kill`` at any moment ends in exit 0
instead of a ``KeyboardInterrupt`` traceback or death by signal. Until the node is built
(:func:`started`) a stop ends the process at once (``os._exit(0)``, one line on stderr):
the start-up loads or compiles kernels, for seconds on a busy machine, which would outlast
``ros2 launch``'s 5 s before it escalates to SIGTERM and SIGKILL; nothing has been
published yet, and an exception raised into it could land inside numba's compiler (an
LLVM callback) and break it instead. Numba writes its cache files whole (a temporary file
renamed), so none is left half-written. Once the node is built a stop only sets
:data:`stop_requested`, which :func:`ros_ik.node.run.run_node` watches between callbacks.
"""

import os
import signal
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
stop_requested = threading.Event()
_starting = threading.Event()  # set from install() until started()


def install() -> None:
    """Make SIGINT and SIGTERM stop the process (idempotent); the start-up begins."""
    if not stop_requested.is_set():
        _starting.set()
    for number in STOP_SIGNALS:
        signal.signal(number, _on_stop_signal)


def started() -> None:
    """End the start-up: from now on a stop signal only sets :data:`stop_requested`."""
    _starting.clear()


def ignore_from_now() -> None:
    """
    Ignore SIGINT and SIGTERM for the rest of the process (it is exiting: stop done).

    Python resets a handler written in Python to the default while the interpreter
    finalizes, so a second SIGINT then (launch sends one after the user's Ctrl-C reached
    every process of the group) would end the process by the signal (exit code -2 in the
    launch log, "process has died") instead of 0; an ignored signal stays ignored.
    """
    for number in STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)


def _on_stop_signal(number: int, frame: object) -> None:
    """Request the stop; during start-up exit 0 at once."""
    stop_requested.set()
    if _starting.is_set():
        os.write(2, f'{signal.Signals(number).name} during start-up: exiting\n'.encode())
        os._exit(0)
