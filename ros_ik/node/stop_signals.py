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
:mod:`ros_ik.tools.executables`), so a Ctrl-C or a ``kill`` during start-up (importing
rclpy and numba, compiling kernels) also ends in a clean exit 0 instead of a
``KeyboardInterrupt`` traceback or death by signal. :func:`ros_ik.node.run.run_node`
watches the same request.
"""

import signal
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
stop_requested = threading.Event()


def install() -> None:
    """Make SIGINT and SIGTERM set :data:`stop_requested` (idempotent)."""
    for number in STOP_SIGNALS:
        signal.signal(number, lambda *_: stop_requested.set())
