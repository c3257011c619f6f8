"""A tiny real project measured by coverage.py with a context per test, for the diff's coverage
marks and blame: ``calc.py`` with two tested functions and one no test calls."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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


# -- a real run whose checks record coverage -----------------------------------------------------


def record_coverage_in_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real run whose checks record coverage: the engine's checks step writes each attempt's
    ``coverage.json`` itself (its test check runs under coverage.py); the pytest inside the
    checks only skips this machine's many plugins."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


BREAK_ADD = (
    "str_replace",
    "calc.py",
    "def add(a, b):\n    return a + b",
    "def add(a, b):\n    return b - a",
)
GUARD_DIV = (
    "str_replace",
    "calc.py",
    "def div(a, b):\n    return a / b",
    "def div(a, b):\n    return a / b if b else None",
)
MEND_ADD = (
    "str_replace",
    "calc.py",
    "def add(a, b):\n    return b - a",
    "def add(a, b):\n    return a + b",
)


def blame_attempts() -> list[Any]:
    """The calc project of ``tui_support`` in three attempts: 0 fixes add and adds the tests
    (test_add passes, test_mul fails); 1 fixes mul but breaks add and guards div, which no
    test calls (test_add now fails); 2 mends add."""
    from tests.support.e2e_support import attempt_turns
    from tests.support.tui_support import ADD_TESTS, FIX_ADD, FIX_MUL

    return [
        attempt_turns("I fix add and add tests.", [FIX_ADD, ADD_TESTS]),
        attempt_turns("I fix mul and tidy add and div.", [BREAK_ADD, GUARD_DIV, FIX_MUL]),
        attempt_turns("I mend add.", [MEND_ADD]),
    ]


def blame_run(
    root: Path, monkeypatch: pytest.MonkeyPatch, attempts: int = 3, max_retries: int = 3
) -> tuple[Any, str]:
    """The real engine (every hunk accepted) through the first ``attempts`` of
    :func:`blame_attempts` in a fresh calc project under ``root``, each attempt's checks
    recording coverage: (the TuiProject, run id). Attempt 1 breaks test_add, which passed in
    attempt 0; attempt 2 mends it (SUCCESS). With ``attempts=2, max_retries=1`` the run stops
    FAILED with test_add broken."""
    from orch_tui.core.domain.events import EventBus
    from orch_tui.core.loop.engine import Engine, RunOptions
    from orch_tui.core.loop.review import AcceptAllReviewer
    from tests.support.tui_support import make_tui_project

    record_coverage_in_checks(monkeypatch)
    project = make_tui_project(root, blame_attempts()[:attempts])
    engine = Engine(
        paths=project.paths,
        config=project.config(),
        spec=project.spec(),
        provider=project.provider(),
        reviewer=AcceptAllReviewer(),
        bus=EventBus(),
        options=RunOptions(max_retries=max_retries),
    )
    engine.run()
    return project, engine.state.run_id
