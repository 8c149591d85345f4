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
Position-loop gains of each joint: what the arm's drives do with a reference.

Each joint is driven by ``tau = kp (q_ref - q) + kd (v_ref - v)`` (N m or N), clamped to
its effort limit, with gravity compensated from the model where the drive does that
(:mod:`ros_ik.physics.mujoco_arm`). ``kp`` is in N m/rad (N/m for a prismatic joint),
``kd`` in N m s/rad (N s/m).

Derived gains: a joint seen alone is a mass ``I`` (the diagonal entry ``M_jj`` of the
joint-space mass matrix, kg m^2 or kg) on a spring and damper, ``I e'' + kd e' + kp e = 0``;
a natural frequency ``w = 2 pi f`` (rad/s) and damping ratio ``zeta`` give
``kp = I w^2`` and ``kd = 2 zeta I w``. The default ``f = 8 Hz``, ``zeta = 1`` (critically
damped) is the bandwidth class of industrial position loops; a gains file overrides any
joint, in ros2_control's format (joint_trajectory_controller's ``gains``)::

    gains:
      panda_joint1: {p: 2000.0, d: 80.0}
"""

from dataclasses import dataclass
import math
from typing import Dict, List, Sequence, Tuple

import numpy as np
import yaml

DEFAULT_BANDWIDTH = 8.0  # Hz, natural frequency of a joint's loop
DEFAULT_DAMPING_RATIO = 1.0


class GainsError(ValueError):
    """A gains file the simulation cannot use; the message names the problem."""


@dataclass(frozen=True)
class ServoGains:
    """Per-joint gains in chain order: ``kp`` (n,) and ``kd`` (n,) (units above)."""

    kp: np.ndarray
    kd: np.ndarray


def derived_gains(joint_inertia: np.ndarray, bandwidth: float = DEFAULT_BANDWIDTH,
                  damping_ratio: float = DEFAULT_DAMPING_RATIO) -> ServoGains:
    """Return ``kp = I w^2``, ``kd = 2 zeta I w`` for joint inertias ``I`` and ``f`` (Hz)."""
    omega = 2.0 * math.pi * bandwidth
    inertia = np.asarray(joint_inertia, dtype=float)
    return ServoGains(inertia * omega ** 2, 2.0 * damping_ratio * inertia * omega)


def parse_gains(text: str, source: str) -> Dict[str, Tuple[float, float]]:
    """Return ``{joint: (p, d)}`` of a gains YAML text (raises :class:`GainsError`)."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise GainsError(f'{source} is not YAML: {error}') from error
    gains = document.get('gains') if isinstance(document, dict) else None
    if not isinstance(gains, dict):
        raise GainsError(f'{source} has no "gains:" mapping of joint names')
    values = {}
    for joint, entry in gains.items():
        if not isinstance(entry, dict) or 'p' not in entry:
            raise GainsError(f'{source}: joint "{joint}" needs at least p (and d)')
        try:
            p, d = float(entry['p']), float(entry.get('d', 0.0))
        except (TypeError, ValueError) as error:
            raise GainsError(f'{source}: joint "{joint}" has a gain that is not a number') \
                from error
        if not (math.isfinite(p) and math.isfinite(d)) or p <= 0.0 or d < 0.0:
            raise GainsError(f'{source}: joint "{joint}" needs p > 0 and d >= 0 '
                             f'(got p={p}, d={d})')
        values[str(joint)] = (p, d)
    return values


def gains_with_file(derived: ServoGains, joint_names: Sequence[str],
                    file_gains: Dict[str, Tuple[float, float]],
                    source: str) -> Tuple[ServoGains, List[str]]:
    """
    Return the derived gains with those of the file put in; also the joints left derived.

    A joint of the file that is not in the chain raises :class:`GainsError`.
    """
    unknown = sorted(set(file_gains) - set(joint_names))
    if unknown:
        raise GainsError(f'{source} names joints that are not in the chain: '
                         f'{", ".join(unknown)} (chain: {", ".join(joint_names)})')
    kp, kd = derived.kp.copy(), derived.kd.copy()
    for index, name in enumerate(joint_names):
        if name in file_gains:
            kp[index], kd[index] = file_gains[name]
    return ServoGains(kp, kd), [name for name in joint_names if name not in file_gains]
