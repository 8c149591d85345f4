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

"""Fixtures of the integration tests: a test-side ROS node in each test's own domain."""

import pytest
from ros_ik.tools.node_processes import RosPeer


@pytest.fixture
def peer(ros_domain_id):
    """Yield a test-side node in the test's own DDS domain (closed after the test)."""
    test_peer = RosPeer()
    yield test_peer
    test_peer.close()
