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

"""The parameter table: typed settings, validation with messages that name the problem."""

from hypothesis import given, strategies
import pytest
from ros_ik.control.parameters import PARAMETER_TABLE, ParameterError, PARAMETERS, Settings


def test_defaults_are_valid_and_typed():
    """Check the defaults build settings and every default has its declared type."""
    settings = Settings()
    for parameter in PARAMETERS:
        assert type(getattr(settings, parameter.name)) is parameter.value_type
    assert PARAMETER_TABLE['update_rate'].spec.value_range == (1.0, 1000.0)


def test_integers_are_accepted_where_a_double_is_expected():
    """Check update_rate:=200 (an integer, as users type it) becomes 200.0."""
    settings = Settings.from_values({'update_rate': 200, 'velocity_scale': 1})
    assert settings.update_rate == 200.0 and type(settings.update_rate) is float
    assert settings.velocity_scale == 1.0


@pytest.mark.parametrize('values, message', [
    ({'update_rate': 0.0}, 'parameter update_rate = 0.0 is out of range (allowed: 1 to 1000)'),
    ({'update_rate': 5000}, 'parameter update_rate = 5000.0 is out of range (allowed: 1 to 1000)'),
    ({'point_orientation': 'wobble'},
     "parameter point_orientation = 'wobble' is not allowed (allowed: one of free, hold)"),
    ({'mode': 5}, 'parameter mode = 5 has the wrong type: expected a string (one of solve, '
                  'servo)'),
    ({'gain': 'fast'}, "parameter gain = 'fast' has the wrong type: expected a double (0.1 "
                       'to 100)'),
    ({'gain': True}, 'parameter gain = True has the wrong type: expected a double'),
    ({'task_axes': 'x q'}, "parameter task_axes = 'x q' is not allowed"),
    ({'task_axes': ''}, "parameter task_axes = '' is not allowed"),
    ({'base_link': 'tool0'}, 'parameters base_link and tip_link are both "tool0": the chain '
                             'needs two different links'),
    ({'velocity_scal': 0.5}, 'unknown parameters: velocity_scal'),
])
def test_bad_values_name_the_parameter_the_value_and_what_is_allowed(values, message):
    """Check each kind of bad start-up value and its message."""
    with pytest.raises(ParameterError) as error:
        Settings.from_values(values)
    assert str(error.value).startswith(message)


def test_read_only_parameters_cannot_change_at_run_time():
    """Check a run-time update of a read-only parameter is refused; others apply."""
    settings = Settings()
    with pytest.raises(ParameterError, match='parameter command_type is read-only'):
        settings.updated({'command_type': 'joint_trajectory'})
    with pytest.raises(ParameterError, match="mode = 'teleport' is not allowed"):
        settings.updated({'mode': 'teleport'})
    assert settings.updated({'mode': 'servo'}).mode == 'servo'  # the controller says when
    assert settings.updated({'gain': 2}).gain == 2.0
    assert settings.gain == 5.0


@given(strategies.sampled_from([p for p in PARAMETERS if p.spec.value_range]),
       strategies.floats(allow_nan=True, allow_infinity=True))
def test_a_double_is_accepted_exactly_when_inside_its_range(parameter, value):
    """Check range validation for every double parameter and any float, NaN and inf too."""
    low, high = parameter.spec.value_range
    if low <= value <= high:
        assert getattr(Settings.from_values({parameter.name: value}), parameter.name) == value
    else:
        with pytest.raises(ParameterError, match='is out of range'):
            Settings.from_values({parameter.name: value})
