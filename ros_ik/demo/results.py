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
What each demo segment should do and did: expectations, results, the table, the totals.

A segment should reach its target, stop (a jog onto an obstacle), be refused (a target
whose motion would collide) or fail (an unreachable target, reported as such); the demo
succeeds when every segment did what it should, the arm never faulted and never touched.
"""

from typing import List

from ros_ik.demo.driver import Outcome
from ros_ik.demo.path_runner import PathRecording
from ros_ik.demo.segments import Segment


def format_table(outcomes: List[Outcome], physics: bool = False) -> str:
    """Return the per-target table (``physics``: with the physics arm's columns)."""
    lines = ['peak v, peak a: largest joint speed and acceleration of the '
             "controller's setpoint (the spline of the commands) / joint limit; min w: lowest "
             'manipulability; max lam: highest '
             'damping (m/rad)' + ('; track mm: peak tracking error at the tool; effort: '
                                  'peak drive effort / limit; contacts: contact events'
                                  if physics else ''),
             f'{"target":<28}{"frame":>8}{"expect":>8}{"result":>14}{"pos err m":>11}'
             f'{"rot err":>9}{"t reach s":>10}{"peak v":>8}{"peak a":>8}{"min w":>10}'
             f'{"max lam":>9}' + (f'{"track mm":>10}{"effort":>8}{"contacts":>9}'
                                  if physics else '')]
    for outcome in outcomes:
        result = outcome_result(outcome)
        reach_time = f'{outcome.time_to_reach:.2f}' if outcome.time_to_reach else '-'
        lines.append(f'{outcome.segment.label:<28}{outcome.segment.frame or "base":>8}'
                     f'{expectation(outcome.segment):>8}{result:>14}'
                     f'{outcome.position_error:>11.2e}{outcome.orientation_error:>9.1e}'
                     f'{reach_time:>10}{outcome.peak_speed_fraction:>8.3f}'
                     f'{outcome.peak_acceleration_fraction:>8.3f}'
                     f'{outcome.lowest_manipulability:>10.4f}{outcome.highest_damping:>9.4f}'
                     + (f'{1e3 * outcome.peak_tool_error:>10.2f}'
                        f'{outcome.peak_effort_fraction:>8.3f}{outcome.contacts:>9d}'
                        if physics else ''))
    return '\n'.join(lines)


# The result each expectation asks for.
EXPECTED_RESULTS = {'reach': 'reached', 'stop': 'stopped', 'refuse': 'refused',
                    'fail': 'unreachable'}


def expectation(segment: Segment) -> str:
    """Return what a segment should do: reach, stop (at an obstacle), be refused or fail."""
    if segment.stops:
        return 'stop'
    if segment.refused:
        return 'refuse'
    return 'reach' if segment.reachable else 'fail'


def outcome_result(outcome: Outcome) -> str:
    """Return what a segment did: reached, stopped, refused, unreachable or NOT reached."""
    if outcome.reached:
        return 'stopped' if outcome.segment.stops else 'reached'
    if outcome.refused:
        return 'refused'
    return 'unreachable' if outcome.reported_unreachable else 'NOT reached'


def demo_succeeded(outcomes: List[Outcome]) -> bool:
    """Return whether every segment did what it should (reached, stopped, refused, failed)."""
    return all(outcome_result(outcome) == EXPECTED_RESULTS[expectation(outcome.segment)]
               for outcome in outcomes)


def physics_summary(outcomes: List[Outcome]) -> str:
    """Return the physics run's totals: peak tracking error, peak effort / limit, contacts."""
    return (f'physics: peak tracking error at the tool '
            f'{1e3 * max(o.peak_tool_error for o in outcomes):.2f} mm, peak drive effort / '
            f'limit {max(o.peak_effort_fraction for o in outcomes):.3f}, contact events '
            f'{sum(o.contacts for o in outcomes)}')


def path_summary(recording: PathRecording) -> str:
    """Return the Cartesian path's totals: deviation, peak tool speed against its cap."""
    result = recording.result
    if result is None:
        return 'Cartesian path: no result'
    approach = recording.approach_count()
    approached = (f' (after {approach} samples approaching its first corner by a joint '
                  'motion)' if approach else '')
    return (f'Cartesian path (the square): {result.message}; fraction {result.fraction:.3f}, '
            f'largest commanded deviation {1e3 * result.max_deviation:.2g} mm, peak '
            f'commanded tool speed {recording.speeds().max(initial=0.0):.4f} m/s (cap '
            f'{recording.speed_cap:g} m/s){approached}')
