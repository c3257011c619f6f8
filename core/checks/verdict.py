"""Whether a check passed: its exit code, and its JUnit report read defensively.

A check that asked for a JUnit report (``{junit}`` in its command) passes only when the report
is there, readable, lists no failed or errored test, and shows at least one test that ran
(all skipped counts only when ``checks.allow_all_skipped`` says so), whatever its exit code:
``pytest.exit(returncode=0)`` or a conftest that writes an empty report and exits 0 must not
make a failing project pass. :func:`judge` gives the sentence saying why a check did not pass
when its failing tests do not say it themselves.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from pathlib import Path

from orch_tui.core.checks.junit import TestCase, label_xpassed, read_junit
from orch_tui.core.checks.pytest_config import is_pytest
from orch_tui.core.util.records import record
from orch_tui.core.util.wording import plural

# pytest's exit codes other than 0 (all passed) and 1 (some failed), as sentences.
_PYTEST_EXIT_ERRORS = {
    2: None,  # interrupted, usually by collection errors: the report lists them
    3: "pytest hit an internal error (see the output)",
    4: "pytest was called wrongly (a usage error; see the output)",
    5: "pytest collected no tests",
}

# A test runner that exits 0 without the report it was asked for did not finish: a test or a
# conftest that calls os._exit(0) or sys.exit(0) would otherwise make a failing project pass.
_NO_REPORT = (
    "exited 0 without writing its JUnit report, so the run did not finish "
    "(does a test or conftest.py call os._exit or sys.exit?); counted as a failure"
)

_RAN = frozenset({"passed", "xfailed", "xpassed"})
_BAD = frozenset({"failed", "error"})


@record(frozen=True)
class Ended:
    """How a check's process ended, as far as the verdict cares."""

    command: Sequence[str]
    exit_code: int
    timed_out: bool
    timeout_s: float
    output: str


@record(frozen=True)
class Verdict:
    """The tests a check's report lists, and why the check failed beyond them (None: it did
    not, or its failing tests say it)."""

    tests: list[TestCase]
    error: str | None


def judge(ended: Ended, report: Path | None, workspace: Path, allow_all_skipped: bool) -> Verdict:
    """The verdict on a check that ran; ``report``: the JUnit report it was asked to write."""
    error = error_for(ended.command, ended.exit_code, ended.timed_out, ended.timeout_s)
    if report is None or ended.timed_out:
        return Verdict([], error)
    if not report.exists():
        return Verdict([], _NO_REPORT if ended.exit_code == 0 else error)
    tests, problem = read_junit(report, workspace)
    if problem is not None:
        return Verdict([], f"{problem}; counted as a failure")
    tests = label_xpassed(tests, ended.output)
    bad = [test for test in tests if test.outcome in _BAD]
    if bad and ended.exit_code == 0:
        return Verdict(tests, _exit_0_with_failures(len(bad)))
    if bad or error is not None or ended.exit_code != 0:
        return Verdict(tests, error)
    return Verdict(tests, _nothing_ran(tests, allow_all_skipped))


def _exit_0_with_failures(count: int) -> str:
    return (
        f"exited 0 although its JUnit report lists {plural(count, 'failed or errored test')} "
        "(does a test or conftest.py call pytest.exit or sys.exit?); counted as a failure"
    )


def _nothing_ran(tests: list[TestCase], allow_all_skipped: bool) -> str | None:
    """Why a clean report still shows nothing working, or None."""
    if any(test.outcome in _RAN for test in tests):
        return None
    if not tests:
        return "its JUnit report lists no test, so nothing was shown to work; counted as a failure"
    if allow_all_skipped:
        return None
    return (
        f"every test was skipped ({len(tests)} skipped), so nothing was shown to work; counted "
        "as a failure (checks.allow_all_skipped = true accepts it)"
    )


def error_for(
    command: Sequence[str], exit_code: int | None, timed_out: bool, timeout_s: float
) -> str | None:
    """Why a check failed as its process tells it: a timeout, a signal, pytest's exit code."""
    if timed_out:
        return f"timed out after {timeout_s:g} s (the whole process group was killed)"
    if exit_code is not None and exit_code < 0:
        try:
            signal_name = signal.Signals(-exit_code).name
        except ValueError:
            signal_name = f"signal {-exit_code}"
        return f"{command[0]} was killed by {signal_name}"
    if exit_code is not None and is_pytest(command):
        return _PYTEST_EXIT_ERRORS.get(exit_code)
    return None
