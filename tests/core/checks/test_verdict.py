"""A check passes only on a report that shows tests ran and none failed, whatever its exit code
(issue 22, items 4 and 10): real pytest and real report files in a real workspace."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from orch_tui.core.checks.runner import CheckResult, CheckSpec, run_check
from orch_tui.core.checks.trial import run_configured
from orch_tui.core.config.models import DEFAULT_TEST_COMMAND, Config

pytestmark = pytest.mark.usefixtures("no_plugin_autoload")
PYTEST = CheckSpec("tests", list(DEFAULT_TEST_COMMAND))


def run(spec: CheckSpec, workspace: Path, **options: bool) -> CheckResult:
    return run_check(
        spec,
        workspace,
        workspace.parent / "reports",
        timeout_s=120,
        max_output_bytes=200_000,
        extra_env_allow=("PYTEST_DISABLE_PLUGIN_AUTOLOAD",),
        **options,
    )


def test_pytest_exit_with_returncode_0_after_a_failure_is_not_a_pass(workspace: Path) -> None:
    (workspace / "tests/test_exit.py").write_text(
        "import pytest\n\n\ndef test_a_fails():\n    assert 1 == 2\n\n\n"
        "def test_b_exits():\n    pytest.exit('all good, honest', returncode=0)\n"
    )

    check = run(PYTEST, workspace)

    assert check.exit_code == 0 and not check.passed
    assert ("tests/test_exit.py::test_a_fails", "failed") in [
        (t.id, t.outcome) for t in check.tests
    ]
    assert "exited 0 although its JUnit report lists 1 failed or errored test" in str(check.error)


CONFTEST_EMPTY_REPORT = """\
import os


def pytest_sessionstart(session):
    with open(session.config.option.xmlpath, "w") as report:
        report.write('<testsuites><testsuite name="pytest" tests="0"/></testsuites>')
    os._exit(0)
"""


def test_a_conftest_writing_an_empty_report_and_exiting_0_is_not_a_pass(workspace: Path) -> None:
    (workspace / "conftest.py").write_text(CONFTEST_EMPTY_REPORT)
    (workspace / "tests/test_bad.py").write_text("def test_bad():\n    assert False\n")

    check = run(PYTEST, workspace)

    assert check.exit_code == 0 and not check.passed
    assert "its JUnit report lists no test" in str(check.error)


SKIPPED_ONLY = "import pytest\n\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n"


def test_a_run_whose_every_test_was_skipped_fails_unless_the_config_allows_it(
    workspace: Path,
) -> None:
    (workspace / "tests/test_skipped.py").write_text(SKIPPED_ONLY)

    strict = run(PYTEST, workspace)
    allowed = run(PYTEST, workspace, allow_all_skipped=True)

    assert strict.exit_code == 0 and not strict.passed
    assert "every test was skipped (1 skipped)" in str(strict.error)
    assert "checks.allow_all_skipped" in str(strict.error)
    assert allowed.passed and [t.outcome for t in allowed.tests] == ["skipped"]


def test_one_test_that_ran_beside_skipped_ones_passes(workspace: Path) -> None:
    (workspace / "tests/test_skipped.py").write_text(SKIPPED_ONLY)
    (workspace / "tests/test_ok.py").write_text("def test_ok():\n    pass\n")

    assert run(PYTEST, workspace).passed


def report_writer(body: str) -> CheckSpec:
    """A check that writes its report itself, then exits 0."""
    return CheckSpec("tests", [sys.executable, "-c", body, "{junit}"])


def test_a_broken_report_is_a_clear_error_naming_the_file(workspace: Path) -> None:
    spec = report_writer("import sys; open(sys.argv[1], 'w').write('<testsuite><testcase')")

    check = run(spec, workspace)

    report = workspace.parent.resolve() / "reports" / "tests.junit.xml"
    assert not check.passed
    assert str(check.error).startswith(f"the JUnit report {report} is not valid XML")


def test_a_report_that_is_a_fifo_or_a_symlink_is_refused_without_hanging(
    workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.xml"
    secret.write_text('<testsuite><testcase classname="t" name="stolen"/></testsuite>')
    fifo = report_writer("import os, sys; os.mkfifo(sys.argv[1])")
    link = report_writer(f"import os, sys; os.symlink({str(secret)!r}, sys.argv[1])")

    through_fifo = run(fifo, workspace)
    through_link = run(link, workspace)

    assert not through_fifo.passed and "is not a regular file" in str(through_fifo.error)
    assert not through_link.passed and "cannot be read" in str(through_link.error)
    assert through_link.tests == []


def test_the_configured_checks_write_no_report_into_the_run_s_log_folder(tmp_path: Path) -> None:
    """The engine hands run_configured the attempt's log folder; the checks' JUnit reports
    go to a private folder instead, so no check can write beside proposal.json."""
    workspace = tmp_path / "ws"
    (workspace / "tests").mkdir(parents=True)
    (workspace / "tests" / "test_ok.py").write_text("def test_ok():\n    pass\n")
    log_folder = tmp_path / "logs" / "run-1" / "attempt-1"

    report = run_configured(Config(), workspace, log_folder)

    assert report.passed, report.summary()
    assert [t.id for t in report.checks[0].tests] == ["tests/test_ok.py::test_ok"]
    assert not list(log_folder.rglob("*.xml"))
