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
The benchmarks' current tables in ``docs/benchmarks.md``, written by the scripts themselves.

Every script prints its tables; run with ``--write-docs`` (:func:`run_documented` takes it
off the arguments the script parses) what it printed also replaces its own section of
``docs/benchmarks.md``, between the lines ``<!-- bench: NAME -->`` and
``<!-- bench: end NAME -->``, under a line that says when, on which machine and commit, and
with which command it was measured. Everything else on the page is left as it is. The page
therefore always shows each benchmark's latest figure; the history stays in git.

Use: ``run_documented('bench_paths', main)`` as a script's entry point.
"""

import datetime
import io
import os
import platform
import subprocess
import sys
from typing import Callable, Optional

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(REPOSITORY, 'docs', 'benchmarks.md')


def run_documented(name: str, main: Callable[[], None]) -> None:
    """Run a benchmark's ``main()``; with ``--write-docs``, write what it printed (its section)."""
    write = '--write-docs' in sys.argv
    if write:
        sys.argv.remove('--write-docs')
    with DocsSection(name, write):
        main()


def machine() -> str:
    """Return a line naming the machine: CPU model, cores, memory, Python."""
    model = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as cpuinfo:
            for line in cpuinfo:
                if line.startswith('model name'):
                    model = line.split(':', 1)[1].strip()
                    break
        with open('/proc/meminfo', encoding='utf-8') as meminfo:
            memory = f'{int(meminfo.readline().split()[1]) / 2 ** 20:.0f} GiB'
    except OSError:
        memory = '?'
    return (f'{model}, {os.cpu_count()} cores, {memory}, Python '
            f'{platform.python_version()}')


def commit() -> str:
    """Return the short hash of the checkout's commit, with ``+`` when the tree has changes."""
    try:
        head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=REPOSITORY,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(['git', 'status', '--porcelain', '--untracked-files=no'],
                               cwd=REPOSITORY, capture_output=True, text=True).stdout.strip()
        return head + ('+' if dirty else '')
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


def replace_section(page: str, name: str, body: str) -> str:
    """Return ``page`` with section ``name``'s text replaced by ``body`` (added if missing)."""
    begin, end = f'<!-- bench: {name} -->', f'<!-- bench: end {name} -->'
    block = f'{begin}\n{body.rstrip()}\n{end}'
    if begin in page and end in page:
        return page[:page.index(begin)] + block + page[page.index(end) + len(end):]
    return page.rstrip() + '\n\n' + block + '\n'


class DocsSection:
    """Tee what a benchmark prints; with ``write``, put it in its section of the page."""

    def __init__(self, name: str, write: bool, command: Optional[str] = None) -> None:
        """Name the section; ``command``: how it was run (default: this process's command)."""
        self.name = name
        self.write = write
        self.command = command or ' '.join(['.venv/bin/python',
                                            os.path.relpath(sys.argv[0], REPOSITORY)]
                                           + sys.argv[1:])
        self._captured = io.StringIO()
        self._stdout = sys.stdout

    def __enter__(self) -> 'DocsSection':
        """Start teeing stdout."""
        outer, captured = self._stdout, self._captured

        class Tee(io.TextIOBase):
            def write(self, text: str) -> int:
                captured.write(text)
                return outer.write(text)

            def flush(self) -> None:
                outer.flush()
        sys.stdout = Tee()
        return self

    def __exit__(self, kind, value, traceback) -> None:
        """Stop teeing; write the section when asked and the benchmark finished."""
        sys.stdout = self._stdout
        if not self.write or kind is not None:
            return
        date = datetime.date.today().isoformat()
        body = (f'Measured {date} on {machine()}, commit {commit()}:\n`{self.command}`\n\n'
                f'```text\n{self._captured.getvalue().rstrip()}\n```')
        with open(PAGE, encoding='utf-8') as page:
            text = page.read()
        with open(PAGE, 'w', encoding='utf-8') as page:
            page.write(replace_section(text, self.name, body))
        print(f'{os.path.relpath(PAGE, REPOSITORY)}: section {self.name} written')
