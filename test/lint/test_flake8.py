"""ament_flake8 over the package, tests, launch files and benchmarks (ROS lint defaults)."""

from ament_flake8.main import main_with_errors
from lint_paths import LINTED_PATHS
import pytest


@pytest.mark.flake8
@pytest.mark.linter
def test_flake8():
    """Run ament_flake8 with its default configuration; report the errors found."""
    rc, errors = main_with_errors(argv=list(LINTED_PATHS))
    assert rc == 0, f'Found {len(errors)} code style errors / warnings:\n' + '\n'.join(errors)
