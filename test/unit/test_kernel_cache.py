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

"""numba caches dropped when any of the package's sources changed (numba checks one file)."""

from pathlib import Path

from ros_ik.kinematics.kernel_cache import (drop_stale_kernel_caches, kernel_cache_files,
                                            PACKAGE_DIR, sources_digest, STAMP)


def _package(root: Path) -> Path:
    """Return a package with a caller module, a callee module and their numba caches."""
    package = root / 'package'
    (package / 'inner' / '__pycache__').mkdir(parents=True)
    (package / '__pycache__').mkdir()
    (package / 'caller.py').write_text('def f():\n    return g()\n')
    (package / 'inner' / 'callee.py').write_text('def g():\n    return 1\n')
    for name in ('caller.f-1.py311.nbi', 'caller.f-1.py311.1.nbc', 'caller.cpython-311.pyc'):
        (package / '__pycache__' / name).write_bytes(b'x')
    (package / 'inner' / '__pycache__' / 'callee.g-1.py311.nbi').write_bytes(b'x')
    return package


def _names(paths) -> set:
    """Return the file names of ``paths``."""
    return {path.name for path in paths}


def test_an_edit_of_a_callee_alone_drops_every_kernel_cache(tmp_path):
    """Check a first run, an unchanged run, then an edit of only the callee's module."""
    package = _package(tmp_path)
    stamp = package / '__pycache__' / 'stamp'
    assert drop_stale_kernel_caches(package, stamp) == 3  # no stamp yet: unknown sources
    assert kernel_cache_files(package) == []
    assert (package / '__pycache__' / 'caller.cpython-311.pyc').exists()  # not numba's
    assert stamp.read_text() == sources_digest(package)
    (package / '__pycache__' / 'caller.f-1.py311.nbi').write_bytes(b'x')
    assert drop_stale_kernel_caches(package, stamp) == 0  # same sources: kept
    assert _names(kernel_cache_files(package)) == {'caller.f-1.py311.nbi'}
    (package / 'inner' / 'callee.py').write_text('def g():\n    return 2\n')
    assert drop_stale_kernel_caches(package, stamp) == 1
    assert kernel_cache_files(package) == []


def test_the_digest_covers_every_module_and_its_path(tmp_path):
    """Check renaming a module or changing one byte anywhere changes the digest."""
    package = _package(tmp_path)
    digest = sources_digest(package)
    (package / 'inner' / 'callee.py').rename(package / 'inner' / 'other.py')
    renamed = sources_digest(package)
    (package / 'inner' / 'other.py').write_text('def g():\n    return 1 \n')
    assert len({digest, renamed, sources_digest(package)}) == 3


def test_the_installed_package_stamp_matches_its_sources():
    """Check the warm-up (a session fixture) left the stamp of the sources under test."""
    assert STAMP.parent.parent == PACKAGE_DIR
    assert STAMP.read_text(encoding='ascii') == sources_digest()
