"""The source folders the lint tests check (never .venv or build output)."""

import os

REPOSITORY_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINTED_PATHS = tuple(os.path.join(REPOSITORY_ROOT, path)
                     for path in ('ros_ik', 'test', 'launch', 'bench', 'setup.py')
                     if os.path.exists(os.path.join(REPOSITORY_ROOT, path)))
