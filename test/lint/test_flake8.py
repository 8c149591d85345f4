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

"""ament_flake8 over the package, tests, launch files and benchmarks (ROS lint defaults)."""

from ament_flake8.main import main_with_errors
from lint_paths import LINTED_PATHS
import pytest


@pytest.mark.flake8
@pytest.mark.linter
def test_flake8():
    """Run ament_flake8 with its default configuration; report the errors found."""
    rc, errors = main_with_errors(argv=list(LINTED_PATHS))
    assert rc == 0, f'Found {len(errors)} code style errors / warnings:\n' + '\n'.join(errors)
