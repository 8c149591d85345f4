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
numba's on-disk kernel cache kept consistent with the package's sources.

numba (0.68) takes a cached kernel as valid while the sha256 of *its own* source file is
unchanged. A kernel compiles the kernels it calls into its own machine code, and many of
ours call kernels of other modules (the servo step calls the twist motion, which calls the
damped least squares). When only a callee's file changes (an upgrade, an edit, a
``colcon build`` over an older install), the caller's cache still passes numba's check and
runs the old callee. So the package keeps one stamp for all its kernels: the sha256 of
every ``.py`` file under ``ros_ik``, in ``ros_ik/__pycache__``. Where it differs from the
sources, every numba cache file (``*.nbi``, ``*.nbc``) in the package's ``__pycache__``
folders is removed before any kernel loads, and the kernels compile again.

Caches numba keeps outside the package (``NUMBA_CACHE_DIR``, or the user's cache folder
when the package folder is read-only) are not checked here.
"""

import hashlib
from pathlib import Path
from typing import List

PACKAGE_DIR = Path(__file__).resolve().parent.parent
STAMP = PACKAGE_DIR / '__pycache__' / 'ros_ik_kernel_sources.sha256'
CACHE_SUFFIXES = ('.nbi', '.nbc')


def sources_digest(package_dir: Path = PACKAGE_DIR) -> str:
    """Return the sha256 (hex) of every ``.py`` file's relative path and bytes, in order."""
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob('*.py')):
        digest.update(path.relative_to(package_dir).as_posix().encode('utf-8') + b'\x00')
        digest.update(path.read_bytes())
    return digest.hexdigest()


def kernel_cache_files(package_dir: Path = PACKAGE_DIR) -> List[Path]:
    """Return numba's cache files in the package's ``__pycache__`` folders."""
    return [path for path in package_dir.rglob('__pycache__/*')
            if path.suffix in CACHE_SUFFIXES]


def drop_stale_kernel_caches(package_dir: Path = PACKAGE_DIR, stamp: Path = STAMP) -> int:
    """
    Remove the package's numba caches if its sources changed since the stamp; return how many.

    Then write the stamp of the current sources. Files that cannot be removed or a stamp
    that cannot be written (a read-only install) are left as they are.
    """
    digest = sources_digest(package_dir)
    try:
        if stamp.read_text(encoding='ascii') == digest:
            return 0
    except OSError:
        pass  # no stamp yet: caches of unknown sources
    removed = 0
    for path in kernel_cache_files(package_dir):
        try:
            path.unlink()
            removed += 1
        except OSError:
            pass
    try:
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest, encoding='ascii')
    except OSError:
        pass
    return removed
