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

"""ament_xmllint: package.xml against its schema, and the URDFs (ROS installs ship it)."""

import os

from lint_paths import REPOSITORY_ROOT
import pytest

ament_xmllint = pytest.importorskip('ament_xmllint.main',
                                    reason='ament_xmllint ships with ROS 2 installs')


@pytest.mark.linter
@pytest.mark.xmllint
def test_xmllint():
    """Run ament_xmllint over package.xml and urdf/."""
    rc = ament_xmllint.main(argv=[os.path.join(REPOSITORY_ROOT, 'package.xml'),
                                  os.path.join(REPOSITORY_ROOT, 'urdf')])
    assert rc == 0, 'Found errors'
