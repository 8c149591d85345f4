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
The documentation holds together: every relative link and anchor resolves; the house stays tidy.

Links are checked as GitHub renders them: ``[text](path#anchor)`` and images, relative to
the page; an anchor is a heading's slug (lower case, punctuation but ``-`` and ``_``
dropped, spaces as ``-``, a repeated slug numbered ``-1``, ``-2``...).
"""

import os
import re
from typing import Dict, List, Set

import pytest

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = ['README.md'] + [os.path.join('docs', name) for name in sorted(os.listdir(
    os.path.join(REPOSITORY, 'docs'))) if name.endswith('.md')]
LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)\)')
CODE = re.compile(r'```.*?```', re.S)
README_LINES = 300
PACKAGE_FILE_LINES = 400


def read(page: str) -> str:
    """Return a page's text without its code blocks (links in code are not links)."""
    with open(os.path.join(REPOSITORY, page), encoding='utf-8') as text:
        return CODE.sub('', text.read())


def slug(heading: str) -> str:
    """Return GitHub's anchor of a heading's text."""
    text = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return text.replace(' ', '-')


def anchors(page: str) -> Set[str]:
    """Return the anchors of a Markdown page's headings."""
    seen: Dict[str, int] = {}
    found = set()
    for line in read(page).splitlines():
        match = re.match(r'#{1,6}\s+(.*)', line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f'{base}-{count}')
    return found


def broken_links(page: str) -> List[str]:
    """Return the relative links of ``page`` whose file or anchor does not exist."""
    broken = []
    folder = os.path.dirname(page)
    for target in LINK.findall(read(page)):
        if re.match(r'[a-z]+://', target) or target.startswith('mailto:'):
            continue
        path, _, anchor = target.partition('#')
        resolved = os.path.normpath(os.path.join(folder, path)) if path else page
        if not os.path.exists(os.path.join(REPOSITORY, resolved)):
            broken.append(f'{target}: no file {resolved}')
        elif anchor and resolved.endswith('.md') and anchor not in anchors(resolved):
            broken.append(f'{target}: no heading #{anchor} in {resolved}')
    return broken


@pytest.mark.parametrize('page', PAGES)
def test_every_relative_link_and_anchor_resolves(page):
    """Check each link of the README and the docs pages reaches a file and heading."""
    assert broken_links(page) == []


def test_every_docs_page_is_reachable_from_the_readme():
    """Check the README links every page of docs/ (the front door leads everywhere)."""
    linked = {os.path.normpath(target.partition('#')[0])
              for target in LINK.findall(read('README.md'))}
    assert [page for page in PAGES[1:] if page not in linked] == []


def test_the_link_check_sees_a_broken_link(tmp_path, monkeypatch):
    """Check the checker itself: a missing file and a missing anchor are reported."""
    (tmp_path / 'docs').mkdir()
    (tmp_path / 'README.md').write_text('# Top\n[a](docs/a.md#there) [b](missing.md) [c](#top)\n')
    (tmp_path / 'docs' / 'a.md').write_text('# Not there\n')
    monkeypatch.setattr(__import__(__name__), 'REPOSITORY', str(tmp_path))
    assert broken_links('README.md') == ['docs/a.md#there: no heading #there in docs/a.md',
                                         'missing.md: no file missing.md']


def test_the_readme_is_a_front_door_and_no_package_file_grows_past_its_limit():
    """Check README.md has at most 300 lines and no module of ros_ik/ more than 400."""
    with open(os.path.join(REPOSITORY, 'README.md'), encoding='utf-8') as readme:
        assert len(readme.read().splitlines()) <= README_LINES
    long_files = []
    for folder, _, files in os.walk(os.path.join(REPOSITORY, 'ros_ik')):
        for name in files:
            if name.endswith('.py'):
                with open(os.path.join(folder, name), encoding='utf-8') as module:
                    if len(module.read().splitlines()) > PACKAGE_FILE_LINES:
                        long_files.append(os.path.relpath(os.path.join(folder, name),
                                                          REPOSITORY))
    assert long_files == []
