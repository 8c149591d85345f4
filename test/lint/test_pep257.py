"""ament_pep257 docstring checks over the package, tests, launch files and benchmarks."""

from ament_pep257.main import main
from lint_paths import LINTED_PATHS
import pytest


@pytest.mark.linter
@pytest.mark.pep257
def test_pep257():
    """Run ament_pep257 with its default configuration."""
    rc = main(argv=list(LINTED_PATHS))
    assert rc == 0, 'Found code style errors / warnings'
