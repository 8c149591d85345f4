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

"""Reusing a result: exact inputs only (bytes and tuples by value, objects by identity)."""

import numpy as np
from ros_ik.control.last_result import LastResult


def test_a_result_is_reused_only_for_the_same_inputs():
    """Check joints bit for bit, a tuple by value, a target by identity."""
    q, target, mask = np.array([0.1, 0.2]), object(), (True, False)
    last: LastResult[str] = LastResult()
    assert last.reused((q.tobytes(), target, mask)) is None
    assert last.keep((q.tobytes(), target, mask), 'result') == 'result'
    assert last.reused((q.copy().tobytes(), target, (True, False))) == 'result'
    assert last.reused((np.nextafter(q, 1.0).tobytes(), target, mask)) is None
    assert last.reused((q.tobytes(), object(), mask)) is None  # another target object
    assert last.reused((q.tobytes(), target, (True, True))) is None
    assert last.reused((q.tobytes(), target)) is None


def test_equal_objects_that_are_not_the_same_are_other_inputs():
    """Check two equal lists (mutable: one may change later) do not match each other."""
    last: LastResult[int] = LastResult()
    first = [1.0, 2.0]
    last.keep((first,), 1)
    assert last.reused((first,)) == 1
    assert last.reused(([1.0, 2.0],)) is None
