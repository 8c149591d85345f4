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
The last result of a pure computation, reused while its inputs stay the same.

An arm at rest holding a reached target runs the same servo step at the same joints every
cycle (100-1000 times a second): the same inputs give the same result, so it is computed
once. Inputs are compared exactly: ``bytes`` and tuples by value (joint positions as
``ndarray.tobytes()``, bit for bit), everything else by identity (a target, the settings,
the collision model: objects the controller replaces, never mutates, when they change).
The reused objects are kept alive with the result, so an identity never matches a new
object that reuses a freed one's address.
"""

from typing import Generic, Optional, Tuple, TypeVar

Result = TypeVar('Result')


def _same(a: object, b: object) -> bool:
    """Return whether ``a`` and ``b`` are the same input (by value for bytes and tuples)."""
    if isinstance(a, (bytes, tuple)) and type(a) is type(b):
        return a == b
    return a is b


class LastResult(Generic[Result]):
    """One computation's last inputs and result."""

    def __init__(self) -> None:
        """Start with nothing to reuse."""
        self._inputs: Optional[Tuple[object, ...]] = None
        self._result: Optional[Result] = None

    def reused(self, inputs: Tuple[object, ...]) -> Optional[Result]:
        """Return the last result if it came from ``inputs`` (each the same), else None."""
        kept = self._inputs
        if kept is None or len(kept) != len(inputs):
            return None
        return self._result if all(map(_same, inputs, kept)) else None

    def keep(self, inputs: Tuple[object, ...], result: Result) -> Result:
        """Remember ``result`` as computed from ``inputs``; return it."""
        self._inputs, self._result = inputs, result
        return result
