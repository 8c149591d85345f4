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

"""ament_pep257 docstring checks over the package, tests, launch files and benchmarks."""

from ament_pep257.main import main
from lint_paths import LINTED_PATHS
import pytest


@pytest.mark.linter
@pytest.mark.pep257
def test_pep257():
    """Run ament_pep257 with its default configuration."""
    rc = main(argv=list(LINTED_PATHS))
    assert rc == 0, 'Found code style errors / warnings'
