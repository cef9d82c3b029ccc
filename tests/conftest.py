"""Fixtures shared across test modules."""

from __future__ import annotations

import pytest
from pausecheck.checks.killmatrix import KillMatrix, kill_matrix
from pausecheck.checks.mutants import MUTANTS


@pytest.fixture(scope="session")
def matrix() -> KillMatrix:
    """Every mutant explored once (about two minutes): the kill matrix and each target's evidence."""
    return kill_matrix(MUTANTS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that needs the whole kill matrix (every mutant explored, minutes) is `slow`."""
    for item in items:
        if "matrix" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
