"""Shared fixtures: DDS isolation for every test run, and the bundled arms."""

import os
import random

import pytest

# DDS traffic stays on this machine and in a domain of this run's own. Set at import time
# so every rclpy context and every child process of the test run inherits it.
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ['ROS_DOMAIN_ID'] = str(random.SystemRandom().randint(1, 100))

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


@pytest.fixture
def ros_domain_id(monkeypatch) -> int:
    """Give one test a ROS_DOMAIN_ID of its own (inherited by the processes it starts)."""
    domain_id = random.SystemRandom().randint(101, 200)
    monkeypatch.setenv('ROS_DOMAIN_ID', str(domain_id))
    return domain_id
