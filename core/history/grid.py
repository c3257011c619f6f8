"""Tests × attempts: each test's result in every attempt that ran the checks."""

from __future__ import annotations

from typing import ClassVar

from orch_tui.core.checks.runner import TestReport
from orch_tui.core.history.detail import RunDetail
from orch_tui.core.util.records import record

PASSED, FAILED, SKIPPED, ABSENT = "passed", "failed", "skipped", "absent"


@record(frozen=True)
class TestGrid:
    """Tests × attempts. ``cells[i][j]`` is test ``tests[i]`` in attempt ``attempts[j]``:
    passed, failed (failed or errored), skipped, or absent (not run in that attempt).

    Tests whose result changed between attempts come first, then those that ever failed,
    then the rest, each group by id: the flips are what a person looks for."""

    __test__: ClassVar[bool] = False  # not a pytest test class, despite its name

    tests: list[str]
    attempts: list[int]
    cells: list[list[str]]


_GRID_CELLS = {"error": FAILED, "xfailed": SKIPPED, "xpassed": PASSED}
"""The grid's cell for an outcome that has no cell of its own."""


def _outcomes(report: TestReport) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for check in report.checks:
        for test in check.tests:
            outcomes[test.id] = _GRID_CELLS.get(test.outcome, test.outcome)
    for failing in report.failing:
        outcomes[failing] = FAILED
    return outcomes


def test_grid(detail: RunDetail) -> TestGrid:
    tested = [attempt for attempt in detail.attempts if attempt.report is not None]
    per_attempt = [_outcomes(attempt.report) for attempt in tested if attempt.report]
    ids = sorted({test for outcomes in per_attempt for test in outcomes})
    rows = {
        test: [
            outcomes.get(test, PASSED if test.startswith("check:") else ABSENT)
            for outcomes in per_attempt
        ]
        for test in ids
    }

    def group(test: str) -> int:
        present = [cell for cell in rows[test] if cell != ABSENT]
        if len(set(present)) > 1:
            return 0
        return 1 if FAILED in present else 2

    tests = sorted(ids, key=lambda test: (group(test), test))
    return TestGrid(tests, [attempt.number for attempt in tested], [rows[t] for t in tests])
