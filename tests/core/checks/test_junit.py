"""core.junit: JUnit XML into per-test results, and tracebacks without machine paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.checks.junit import (
    TestCase,
    node_id_of,
    parse_junit,
    strip_paths,
    trim_traceback,
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / "tests" / "unit").mkdir(parents=True)
    (path / "tests" / "unit" / "test_calc.py").write_text("")
    (path / "test_top.py").write_text("")
    return path


def write_report(tmp_path: Path, cases: str) -> Path:
    path = tmp_path / "report.xml"
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
        f'<testsuite name="pytest">{cases}</testsuite></testsuites>'
    )
    return path


def test_outcomes_messages_and_tracebacks_are_read(workspace, tmp_path):
    report = write_report(
        tmp_path,
        '<testcase classname="tests.unit.test_calc" name="test_ok" />'
        '<testcase classname="tests.unit.test_calc" name="test_bad">'
        '<failure message="assert 1 == 2">def test_bad():\n&gt;   assert 1 == 2\n'
        "E   assert 1 == 2\n\ntests/unit/test_calc.py:5: AssertionError</failure></testcase>"
        '<testcase classname="tests.unit.test_calc" name="test_boom">'
        '<error message="failed on setup">fixture broke</error></testcase>'
        '<testcase classname="tests.unit.test_calc" name="test_later">'
        '<skipped type="pytest.skip" message="not yet">tests/unit/test_calc.py:9: not yet'
        "</skipped></testcase>",
    )

    tests = parse_junit(report, workspace)

    assert tests == [
        TestCase("tests/unit/test_calc.py::test_ok", "passed"),
        TestCase(
            "tests/unit/test_calc.py::test_bad",
            "failed",
            "assert 1 == 2",
            "def test_bad():\n>   assert 1 == 2\nE   assert 1 == 2\n\n"
            "tests/unit/test_calc.py:5: AssertionError",
        ),
        TestCase("tests/unit/test_calc.py::test_boom", "error", "failed on setup", "fixture broke"),
        TestCase(
            "tests/unit/test_calc.py::test_later",
            "skipped",
            "not yet",
            "tests/unit/test_calc.py:9: not yet",
        ),
    ]


def test_ids_without_a_file_attribute_find_the_module_in_the_workspace(workspace):
    # xunit2 (pytest's default) writes no file: which dotted parts are folders is looked up.
    assert (
        node_id_of("tests.unit.test_calc.TestAdd", "test_x[a.b]", None, workspace)
        == "tests/unit/test_calc.py::TestAdd::test_x[a.b]"
    )
    assert node_id_of("test_top", "test_y", None, workspace) == "test_top.py::test_y"


def test_ids_are_workspace_relative_when_pytest_chose_a_parent_rootdir(workspace):
    assert (
        node_id_of("ws.tests.unit.test_calc", "test_x", None, workspace)
        == "tests/unit/test_calc.py::test_x"
    )
    assert (
        node_id_of(
            "ws.tests.unit.test_calc.TestA", "test_x", "ws/tests/unit/test_calc.py", workspace
        )
        == "tests/unit/test_calc.py::TestA::test_x"
    )


def test_ids_use_the_file_attribute_when_present(workspace):
    assert (
        node_id_of("tests.unit.test_calc.TestA", "test_x", "tests/unit/test_calc.py", workspace)
        == "tests/unit/test_calc.py::TestA::test_x"
    )


def test_a_module_collection_error_is_named_by_its_file(workspace, tmp_path):
    report = write_report(
        tmp_path,
        '<testcase classname="" name="tests.unit.test_calc">'
        '<error message="collection failure">ImportError</error></testcase>',
    )

    (test,) = parse_junit(report, workspace)

    assert test.id == "tests/unit/test_calc.py"
    assert test.outcome == "error"


def test_an_unknown_module_keeps_the_dotted_classname(workspace):
    assert node_id_of("pkg.gone", "test_z", None, workspace) == "pkg.gone::test_z"


def test_a_test_reported_twice_is_merged_keeping_the_worse_outcome(workspace, tmp_path):
    # A test reported twice (a rerun plugin, or two reports of one id) is one test.
    report = write_report(
        tmp_path,
        '<testcase classname="test_top" name="test_t"><failure message="assert 0">f1'
        "</failure></testcase>"
        '<testcase classname="test_top" name="test_t"><error message="teardown">e1'
        "</error></testcase>",
    )

    (test,) = parse_junit(report, workspace)

    assert test == TestCase("test_top.py::test_t", "error", "assert 0\nteardown", "f1\n\ne1")


@pytest.mark.parametrize("content", [None, "", "<testsuite><testcase", "not xml at all"])
def test_a_missing_or_corrupt_report_gives_none(workspace, tmp_path, content):
    path = tmp_path / "report.xml"
    if content is not None:
        path.write_text(content)

    assert parse_junit(path, workspace) is None


def test_trim_traceback_makes_workspace_paths_relative_and_drops_other_directories(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    text = (
        f'  File "{workspace}/app/core.py", line 3, in run\n'
        '  File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode\n'
        f"{workspace}/tests/test_a.py:7: AssertionError\n"
        "see https://docs.python.org/3/library/json.html\n"
    )

    trimmed = trim_traceback(text, workspace)

    assert trimmed == (
        '  File "app/core.py", line 3, in run\n'
        '  File "decoder.py", line 355, in raw_decode\n'
        "tests/test_a.py:7: AssertionError\n"
        "see https://docs.python.org/3/library/json.html"
    )


def test_trim_traceback_keeps_the_last_lines(tmp_path):
    text = "\n".join(f"line {n}" for n in range(1, 101))

    trimmed = trim_traceback(text, tmp_path, max_lines=3)

    assert trimmed.splitlines() == ["[... 97 earlier lines ...]", "line 98", "line 99", "line 100"]


def test_strip_paths_does_not_touch_a_sibling_folder_that_shares_the_prefix(tmp_path):
    workspace = tmp_path / "ws"

    assert strip_paths(f"{tmp_path}/ws2/x.py and {workspace}/y.py", workspace) == "x.py and y.py"


REAL_SUITE = {
    "tests/__init__.py": "",
    "tests/mixins.py": (
        "class Shared:\n    def test_shared(self):\n        assert self.value == 1\n"
    ),
    "tests/test_a.py": """\
import pytest

from tests.mixins import Shared


class TestA(Shared):
    value = 1


@pytest.fixture
def broken():
    yield
    raise RuntimeError("teardown broke")


def test_teardown(broken):
    pass


def test_fail_and_teardown(broken):
    assert False


@pytest.mark.xfail(reason="not yet")
def test_xfail():
    assert False
""",
    "tests/test_b.py": "from tests.mixins import Shared\n\n\nclass TestB(Shared):\n    value = 2\n",
}


def test_a_real_pytest_run_is_counted_as_pytest_counts_it(tmp_path: Path) -> None:
    """Inherited tests keep their class's id, a teardown error after a pass is one passed and
    one error, and an xfail keeps its label: ``2 passed, 2 failed, 2 error, 1 xfailed``."""
    import subprocess
    import sys

    from orch_tui.core.checks.runner import CheckResult, TestReport
    from orch_tui.core.config.models import DEFAULT_TEST_COMMAND

    workspace = tmp_path / "ws"
    for rel, text in REAL_SUITE.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text, encoding="utf-8")
    junit = tmp_path / "report.xml"
    command = [
        arg.replace("{python}", sys.executable)
        .replace("{workspace}", str(workspace))
        .replace("{junit}", str(junit))
        for arg in DEFAULT_TEST_COMMAND
    ]
    done = subprocess.run(
        command, cwd=workspace, capture_output=True, text=True, timeout=120, check=False
    )
    assert "2 failed, 2 passed, 1 xfailed, 2 errors" in done.stdout, done.stdout

    tests = parse_junit(junit, workspace)

    assert tests is not None
    outcomes = sorted((test.id, test.outcome) for test in tests)
    assert outcomes == [
        ("tests/test_a.py::TestA::test_shared", "passed"),
        ("tests/test_a.py::test_fail_and_teardown", "error"),
        ("tests/test_a.py::test_fail_and_teardown", "failed"),
        ("tests/test_a.py::test_teardown", "error"),
        ("tests/test_a.py::test_teardown", "passed"),
        ("tests/test_a.py::test_xfail", "xfailed"),
        ("tests/test_b.py::TestB::test_shared", "failed"),
    ]
    report = TestReport([CheckResult("tests", command, 1, False, 0.0, "", 0, tests=tests)])
    assert report.summary() == "2 passed, 2 failed, 2 error, 1 xfailed"
    assert report.failing == [
        "tests/test_a.py::test_fail_and_teardown",
        "tests/test_a.py::test_teardown",
        "tests/test_b.py::TestB::test_shared",
    ]


def test_a_reports_tests_resolve_the_workspace_once(workspace, tmp_path, monkeypatch):
    """Each failing test's message and traceback lose the workspace's path; the workspace is
    resolved once for the report, not twice a test."""
    link = tmp_path / "link"
    link.symlink_to(workspace)
    cases = "".join(
        f'<testcase classname="tests.unit.test_calc" name="test_{number}">'
        f'<failure message="{workspace}/tests/unit/test_calc.py:{number}">{link}/test_top.py:'
        f"{number}: AssertionError</failure></testcase>"
        for number in range(5)
    )
    report = write_report(tmp_path, cases)
    resolved: list[Path] = []
    real_resolve = Path.resolve
    monkeypatch.setattr(Path, "resolve", lambda p, *a: resolved.append(p) or real_resolve(p, *a))

    tests = parse_junit(report, link)

    assert resolved == [link]
    assert [(test.message, test.traceback) for test in tests] == [
        (f"tests/unit/test_calc.py:{number}", f"test_top.py:{number}: AssertionError")
        for number in range(5)
    ]
