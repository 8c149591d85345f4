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
Which pairs of links are never checked: an SRDF's, or Setup Assistant's rules without one.

An SRDF lists them as ``disable_collisions``. Without an SRDF, MoveIt Setup Assistant
leaves out (``reason``): ``Adjacent`` links (a link and the nearest ancestor that has
collision geometry: links without geometry are skipped over), pairs in
collision in the ``Default`` configuration (every chain joint at 0, clipped into its
limits) and pairs in collision in at least ``ALWAYS_FRACTION`` of random configurations
(``Always``). It also proposes ``Never`` (pairs that never collided in its samples); those
are kept here, since a sample that missed a collision is no proof.
"""

from typing import Dict, FrozenSet, Iterable, List, Mapping, Sequence, Tuple
import xml.etree.ElementTree

ALWAYS_FRACTION = 0.95
Pair = FrozenSet[str]


class SrdfError(ValueError):
    """An SRDF the node cannot read."""


def pair(first: str, second: str) -> Pair:
    """Return the unordered pair of two names."""
    return frozenset((first, second))


def pair_text(link_pair: Pair) -> str:
    """Return ``'a - b'`` (sorted) for a pair."""
    return ' - '.join(sorted(link_pair))


def srdf_disabled_pairs(srdf_text: str) -> Dict[Pair, str]:
    """Return ``{pair: reason}`` of the SRDF's ``<disable_collisions link1 link2 reason>``."""
    try:
        root = xml.etree.ElementTree.fromstring(srdf_text)
    except xml.etree.ElementTree.ParseError as error:
        raise SrdfError(f'malformed SRDF: {error}') from error
    disabled = {}
    for number, element in enumerate(root.iter('disable_collisions'), start=1):
        first, second = element.get('link1'), element.get('link2')
        if not first or not second:
            raise SrdfError(f'SRDF disable_collisions number {number} lacks link1 or link2')
        disabled[pair(first, second)] = element.get('reason', '')
    return disabled


def adjacent_pairs(links_with_geometry: Sequence[str],
                   parents: Mapping[str, str]) -> List[Pair]:
    """Return each link with geometry paired with its nearest ancestor with geometry."""
    with_geometry = set(links_with_geometry)
    pairs = []
    for link in links_with_geometry:
        ancestor = parents.get(link)
        while ancestor is not None and ancestor not in with_geometry:
            ancestor = parents.get(ancestor)
        if ancestor is not None:
            pairs.append(pair(link, ancestor))
    return pairs


def sampled_pairs(colliding_per_sample: Iterable[Iterable[Pair]], samples: int,
                  fraction: float = ALWAYS_FRACTION) -> List[Pair]:
    """Return the pairs in collision in at least ``fraction`` of ``samples`` samples."""
    counts: Dict[Pair, int] = {}
    for colliding in colliding_per_sample:
        for link_pair in colliding:
            counts[link_pair] = counts.get(link_pair, 0) + 1
    return sorted((link_pair for link_pair, count in counts.items()
                   if count >= fraction * samples), key=pair_text)


def disable_collisions_xml(disabled: Iterable[Tuple[Pair, str]], robot_name: str) -> str:
    """Return an SRDF with the ``disable_collisions`` lines (what Setup Assistant writes)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<!-- disable_collisions: adjacent links, pairs in collision at the default '
             'configuration (Default) or nearly always (Always); written by '
             'ros_ik_collision_pairs -->', f'<robot name="{robot_name}">']
    for link_pair, reason in disabled:
        first, second = sorted(link_pair)
        lines.append(f'    <disable_collisions link1="{first}" link2="{second}" '
                     f'reason="{reason}"/>')
    lines.append('</robot>')
    return '\n'.join(lines) + '\n'
