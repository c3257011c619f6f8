"""Failures that share a site and an error go back to the model once, every test still named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from orch_tui.core.attempt.feedback import (
    MORE_FAILING,
    SAME_WAY,
    checks_output,
    describe_failures,
    failure_groups,
)
from orch_tui.core.checks.junit import TestCase, parse_junit
from orch_tui.core.checks.runner import CheckResult, TestReport
from orch_tui.core.config.models import Config, FeedbackConfig

CALC = "def ratio(a, b):\n    return a / b\n\n\ndef double(x):\n    return x * 3\n"
TESTS = (
    "import pytest\nfrom calc import double, ratio\n\n\n"
    "@pytest.mark.parametrize('a', range(12))\n"
    "def test_ratio_by_zero_is_none(a):\n    assert ratio(a, 0) is None\n\n\n"
    "def test_double():\n    assert double(2) == 4\n\n\n"
    "def test_double_of_zero():\n    assert double(0) == 0\n"
)


def real_report(workspace: Path) -> TestReport:
    """Run real pytest on a small project: twelve tests fail in ratio() the same way, one
    fails its own assert, one passes."""
    (workspace / "calc.py").write_text(CALC)
    (workspace / "test_calc.py").write_text(TESTS)
    junit = workspace / "report.xml"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
    )
    tests = parse_junit(junit, workspace)
    assert tests is not None
    check = CheckResult(
        name="tests",
        command=["pytest"],
        exit_code=run.returncode,
        timed_out=False,
        duration_s=0.1,
        output=run.stdout,
        dropped_bytes=0,
        tests=tests,
    )
    return TestReport(checks=[check])


def test_a_failure_shared_by_twelve_tests_is_described_once_naming_all(tmp_path: Path) -> None:
    report = real_report(tmp_path)
    failing = [t.id for t in report.checks[0].tests if t.outcome == "failed"]

    text = describe_failures(report, tmp_path, Config())

    assert len(failing) == 13
    assert text.count("ZeroDivisionError") <= 3  # one traceback, not twelve
    assert text.count("### ") == 2  # the shared failure and test_double's own
    assert all(test_id in text for test_id in failing)
    assert SAME_WAY in text and "assert 6 == 4" in text


def test_distinct_failures_keep_their_own_detail(tmp_path: Path) -> None:
    report = real_report(tmp_path)
    failing = [t for t in report.checks[0].tests if t.outcome == "failed"]

    groups = failure_groups(failing, tmp_path, 30)

    assert [len(group.ids) for group in groups] == [12, 1]
    assert groups[1].first.id.endswith("test_double")
    assert "test_calc.py:11: AssertionError" in groups[1].trace


def test_grouping_makes_the_failures_smaller_than_one_traceback_each(tmp_path: Path) -> None:
    report = real_report(tmp_path)
    failing = [t for t in report.checks[0].tests if t.outcome == "failed"]
    each = sum(len(t.traceback) for t in failing)

    text = describe_failures(report, tmp_path, Config())

    assert len(text) < each / 3


def test_past_the_limit_of_ways_the_other_tests_are_still_named(tmp_path: Path) -> None:
    report = real_report(tmp_path)
    config = Config(feedback=FeedbackConfig(max_failures=1))

    text = describe_failures(report, tmp_path, config)

    assert text.count("### ") == 1
    assert MORE_FAILING in text and text.split(MORE_FAILING)[1].endswith("test_double")


def test_the_raw_output_drops_the_summary_lines_of_every_named_test(tmp_path: Path) -> None:
    report = real_report(tmp_path)
    details = describe_failures(report, tmp_path, Config())

    output = checks_output(report, details, tmp_path)

    assert "FAILED test_calc.py::test_ratio_by_zero_is_none[7]" not in output
    assert "FAILED test_calc.py::test_ratio_by_zero_is_none" in report.checks[0].output


def test_an_assert_message_the_traceback_repeats_is_carried_once(tmp_path: Path) -> None:
    """pytest's message for a failed assert is the traceback's ``E`` lines again: the detail
    keeps the traceback's copy; a message the traceback does not carry stays."""
    report = real_report(tmp_path)
    failing = [t for t in report.checks[0].tests if t.outcome == "failed"]
    double, ratio = failing[-1], failing[0]
    assert double.id.endswith("test_double") and "assert 6 == 4" in double.message

    groups = {group.first.id: group.detail() for group in failure_groups(failing, tmp_path, 30)}

    assert groups[double.id].count("assert 6 == 4") == 1
    assert "E       assert 6 == 4" in groups[double.id]
    assert ratio.message.splitlines()[0] in groups[ratio.id]


def test_grouping_resolves_the_workspace_once(tmp_path: Path, monkeypatch) -> None:
    failing = [
        TestCase(f"t.py::test_{number}", "failed", "boom", f"{tmp_path}/t.py:{number}: Error")
        for number in range(4)
    ]
    resolved: list[Path] = []
    real_resolve = Path.resolve
    monkeypatch.setattr(Path, "resolve", lambda p, *a: resolved.append(p) or real_resolve(p, *a))

    groups = failure_groups(failing, tmp_path, 30)

    assert resolved == [tmp_path]
    assert [group.trace for group in groups] == [f"t.py:{number}: Error" for number in range(4)]
