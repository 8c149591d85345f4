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
Fixtures of the integration tests: a peer node, owned processes, compiled kernels.

A test-side ROS node in each test's own domain, the processes a test starts (owned from
their start), and the executables' kernels compiled before any test, so that no deadline
includes a compilation.
"""

import os
import subprocess
import tempfile

import pytest
from ros_ik.tools.node_processes import executable, ProcessGroup, RosPeer

WARM_UP_TIMEOUT = 1800.0  # s: a first compilation of every kernel on a busy 2-core machine


@pytest.fixture(scope='session', autouse=True)
def executables_kernels() -> None:
    """
    Compile (or load) the numba kernels of the ros_ik the executables import.

    That is the installed package (colcon's install space, or the venv), not necessarily
    the one pytest imports: its interpreter, from the executable's first line, runs the
    warm-up outside the source tree.
    """
    with open(executable('ik_node'), encoding='utf-8') as script:
        first_line = script.readline()
    interpreter = first_line[2:].split() if first_line.startswith('#!') else ['python3']
    subprocess.run(interpreter + ['-m', 'ros_ik.paths.kernel_warm_up'], check=True,
                   cwd=tempfile.gettempdir(), timeout=WARM_UP_TIMEOUT,
                   env=dict(os.environ, PYTHONSAFEPATH='1'))


@pytest.fixture
def processes():
    """Yield a ProcessGroup; every process started through it is stopped after the test."""
    group = ProcessGroup()
    yield group
    group.stop_all()


@pytest.fixture
def peer(ros_domain_id):
    """Yield a test-side node in the test's own DDS domain (closed after the test)."""
    test_peer = RosPeer()
    yield test_peer
    test_peer.close()
