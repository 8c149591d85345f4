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
Headless Chromium for the browser view's test and benchmark (driven by Playwright).

Debian's ``chromium`` is used where installed (Playwright's own browsers are never
downloaded); the flags suit a closed machine without a GPU: no background networking,
WebGL in software (SwiftShader).
"""

import io
import shutil
import socket
from typing import Optional

import numpy as np

CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--use-gl=angle',
                  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
                  '--disable-background-networking', '--disable-component-update',
                  '--disable-sync', '--no-first-run']

# The gizmo's x and z arrows as headless Chromium draws them (lit), RGB 0-255.
GIZMO_ARROW_COLOURS = {0: (249, 45, 104), 2: (54, 142, 226)}


def chromium_path() -> Optional[str]:
    """Return the installed Chromium executable (None where there is none)."""
    return shutil.which('chromium') or shutil.which('chromium-browser')


def free_port() -> int:
    """Return a TCP port no one listens on now (for a page of its own)."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def page_image(page) -> np.ndarray:
    """Return a screenshot of a Playwright page as an (h, w, 3) RGB array of 0-255."""
    from matplotlib import image
    return (image.imread(io.BytesIO(page.screenshot()), format='png')[:, :, :3]
            * 255).astype(int)


def nearest_pixel(image: np.ndarray, colour, near, radius: float) -> Optional[np.ndarray]:
    """
    Return the pixel (u, v) of ``colour`` (each channel within 30) nearest to ``near``.

    None when no such pixel lies within ``radius`` pixels of it.
    """
    v, u = np.nonzero(np.all(np.abs(image - np.asarray(colour)) < 30, axis=2))
    if len(u) == 0:
        return None
    distance = np.hypot(u - near[0], v - near[1])
    best = int(np.argmin(distance))
    return np.array([u[best], v[best]], dtype=float) if distance[best] <= radius else None
