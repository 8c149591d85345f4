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
Shared fixtures: DDS isolation for every test run, and the bundled arms.

DDS traffic stays on this machine (``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` unless set)
and in domains reserved with ``domain_coordinator`` (what launch_testing_ros uses: a domain
ID from 1 to 100 is held by binding a local port, so parallel runs on one host never share
one). A ``ROS_DOMAIN_ID`` the user set is respected: every test then runs in it.
"""

import os
import random

from domain_coordinator import domain_id as reserve_domain_id
import pytest

os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
USER_DOMAIN_ID = os.environ.get('ROS_DOMAIN_ID', '')

from ros_ik.kinematics.bundled_arms import BUNDLED_ARMS, bundled_urdf_path  # noqa: E402
from ros_ik.kinematics.chain_kinematics import ChainKinematics  # noqa: E402
from ros_ik.kinematics.kernel_warm_up import warm_up_kernels  # noqa: E402
from ros_ik.kinematics.urdf_loader import load_urdf_file  # noqa: E402

MANIPULATOR_ARMS = ('ur5', 'panda')


@pytest.fixture(scope='session', autouse=True)
def compiled_kernels() -> None:
    """Compile or load the numba kernels before any test, so no test times a compilation."""
    warm_up_kernels()


def load_bundled_chain(name: str):
    """Return the chain of bundled arm ``name`` between its default links."""
    arm = BUNDLED_ARMS[name]
    return load_urdf_file(bundled_urdf_path(name), arm.base_link, arm.tip_link)


@pytest.fixture(params=sorted(BUNDLED_ARMS))
def bundled_kinematics(request) -> ChainKinematics:
    """Yield the kinematics of every bundled arm in turn."""
    return ChainKinematics(load_bundled_chain(request.param))


@pytest.fixture(params=MANIPULATOR_ARMS)
def manipulator_kinematics(request) -> ChainKinematics:
    """Yield the kinematics of the 6- and 7-DOF arms in turn."""
    return ChainKinematics(load_bundled_chain(request.param))


class RandomStart:
    """A domain_coordinator selector: consecutive IDs from 1 to 100 from a random start."""

    def __init__(self) -> None:
        """Start anywhere, so two runs seldom probe the same IDs first."""
        self._next = random.SystemRandom().randrange(100)

    def __call__(self) -> int:
        """Return the next candidate ID."""
        self._next += 1
        return self._next % 100 + 1


def reserved_domain(monkeypatch=None):
    """Yield a reserved domain ID set as ROS_DOMAIN_ID (the user's, if set, unreserved)."""
    if USER_DOMAIN_ID:
        yield int(USER_DOMAIN_ID)
        return
    with reserve_domain_id(RandomStart()) as domain:
        if monkeypatch is None:
            os.environ['ROS_DOMAIN_ID'] = str(domain)
        else:
            monkeypatch.setenv('ROS_DOMAIN_ID', str(domain))
        yield domain


@pytest.fixture(scope='session', autouse=True)
def session_domain_id():
    """Hold a domain for the whole run (tests without a domain of their own use it)."""
    yield from reserved_domain()


@pytest.fixture
def ros_domain_id(monkeypatch) -> int:
    """Give one test a reserved ROS_DOMAIN_ID of its own (its child processes inherit it)."""
    yield from reserved_domain(monkeypatch)
