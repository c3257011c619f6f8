"""A tiny real project measured by coverage.py with a context per test, for the diff's coverage
marks and blame: ``calc.py`` with two tested functions and one no test calls."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from orch_tui.core.checks.coverage_map import (
    CoverageMap,
    read_coverage,
    under_coverage,
    write_coverage_config,
)
from orch_tui.core.checks.runner import CheckSpec, TestReport, run_check

CALC_BEFORE = """\
def add(a, b):
    return a + b


def sub(a, b):
    return a - b
"""
CALC = (
    CALC_BEFORE
    + """

# multiplication, for later
def mul(a, b):
    product = a * b
    return product
"""
)
"""Lines 7-12 add ``mul``, which no test calls (a blank line and a comment: no statements)."""
TESTS = """\
from calc import add, sub


def test_add():
    assert add(2, 3) == 5


class TestSub:
    def test_sub(self):
        assert sub(5, 3) == 2
"""
ADD = "tests/test_calc.py::test_add"
SUB = "tests/test_calc.py::TestSub::test_sub"


def write_project(workspace: Path, calc: str = CALC, tests: str = TESTS) -> Path:
    (workspace / "tests").mkdir(parents=True, exist_ok=True)
    (workspace / "calc.py").write_text(calc)
    (workspace / "tests" / "test_calc.py").write_text(tests)
    (workspace / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    return workspace


def measure(workspace: Path, reports: Path) -> tuple[TestReport, CoverageMap]:
    """Run the workspace's tests under coverage (this interpreter, no sandbox) and read the
    map back with coverage_map's own functions."""
    config = write_coverage_config(workspace, reports)
    command = under_coverage(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml={junit}"],
        config,
    )
    assert command is not None
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        result = run_check(
            CheckSpec("tests", command),
            workspace,
            reports,
            timeout_s=120,
            max_output_bytes=100_000,
            extra_env_allow=["PYTEST_DISABLE_PLUGIN_AUTOLOAD"],
        )
    cmap = read_coverage(reports, workspace)
    assert isinstance(cmap, CoverageMap), cmap
    return TestReport(checks=[result]), cmap
