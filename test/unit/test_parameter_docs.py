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

"""config/ik.yaml and docs/parameters.md's table are what the parameter table generates."""

import os

from ros_ik.control.parameters import PARAMETERS
from ros_ik.tools.parameter_docs import generated_files, yaml_value
import yaml

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_generated_files_are_up_to_date():
    """Fail when config/ik.yaml or the docs table drift from the table: run `make docs`."""
    for path, expected in generated_files(REPOSITORY).items():
        with open(path, encoding='utf-8') as current:
            assert current.read() == expected, f'{path} is out of date: run `make docs`'


def test_config_file_reads_back_every_default_with_its_type():
    """Check names, values and types of config/ik.yaml against the table."""
    with open(os.path.join(REPOSITORY, 'config', 'ik.yaml'), encoding='utf-8') as config:
        values = yaml.safe_load(config)['/**']['ros__parameters']
    assert list(values) == [parameter.name for parameter in PARAMETERS]
    for parameter in PARAMETERS:
        assert values[parameter.name] == parameter.default, parameter.name
        assert type(values[parameter.name]) is parameter.value_type, parameter.name


def test_small_floats_stay_floats_in_yaml():
    """Check 1e-06 is written so YAML 1.1 reads a float, not a string."""
    for value in (1e-6, 1e-12, 0.005, 100.0, 2.5e10):
        assert yaml.safe_load(yaml_value(value)) == value
    assert yaml.safe_load(yaml_value("it's")) == "it's"
