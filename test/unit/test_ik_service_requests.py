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

"""The whole-request checks of ``~/solve_ik`` and its result messages (no DDS)."""

import math

from geometry_msgs.msg import PoseStamped
import numpy as np
import pytest
from ros_ik.kinematics.ik_query import PoseSolutions
from ros_ik.node.ik_service import (DEFAULT_TIMEOUT, MAX_POSES, request_timeout,
                                    RequestRefused, result_message)
from ros_ik_msgs.msg import PoseSolutions as PoseSolutionsMessage
from ros_ik_msgs.srv import SolveIk


@pytest.mark.parametrize('poses, timeout, why', [
    (0, 1.0, 'no poses'),
    (100_000, 1.0, f'at most {MAX_POSES}'),
    (1, -0.5, 'timeout must be >= 0'),
    (1, math.nan, 'timeout must be >= 0'),
    (1, math.inf, 'timeout must be >= 0'),
])
def test_bad_requests_are_refused_whole_with_the_reason(poses, timeout, why):
    """Check empty, 100k-pose and negative or non-finite timeout requests are refused."""
    request = SolveIk.Request(poses=[PoseStamped()] * poses, timeout=timeout)
    with pytest.raises(RequestRefused, match=why):
        request_timeout(request)


def test_a_zero_timeout_is_the_default_and_others_are_kept():
    """Check 0 s means DEFAULT_TIMEOUT and a given timeout is used as it is."""
    assert request_timeout(SolveIk.Request(poses=[PoseStamped()])) == DEFAULT_TIMEOUT
    assert request_timeout(SolveIk.Request(poses=[PoseStamped()], timeout=0.25)) == 0.25


def test_result_messages_carry_the_solutions_and_the_kind_of_failure():
    """Check a solved and a refused result as messages (names, codes, errors)."""
    solved = result_message(PoseSolutions(True, '', (np.array([0.1, 0.2]), np.array([0.3, 0.4])),
                                          1e-7, 2e-6), ['a', 'b'])
    assert solved.success and solved.error_code == PoseSolutionsMessage.SUCCEEDED
    assert [list(s.name) for s in solved.solutions] == [['a', 'b']] * 2
    assert list(solved.solutions[1].position) == [0.3, 0.4]
    refused = result_message(PoseSolutions(False, 'every solution found is refused: x', (),
                                           0.0, 0.0, 'refused'), ['a', 'b'])
    assert not refused.success and refused.error_code == PoseSolutionsMessage.IN_COLLISION
    assert refused.solutions == [] and 'refused' in refused.message
