"""Coverage per test and per hunk: real pytest under real coverage in a real workspace.

The tests run under coverage in orch-tui's own interpreter (``sys.executable``), through the
checks' own runner, and the data file is read back with coverage's API.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orch_tui.core.checks.coverage_env import ensure_coverage, with_coverage
from orch_tui.core.checks.coverage_map import (
    CONFIG_NAME,
    DATA_NAME,
    RUNNER_NAME,
    CoverageMap,
    CoverageUnavailable,
    FileCoverage,
    changed_line_coverage,
    context_test_id,
    coverage_from_record,
    coverage_record,
    hunk_coverage,
    read_coverage,
    uncovered_lines,
    under_coverage,
    write_coverage_config,
)
from orch_tui.core.checks.runner import CheckSpec, run_check
from orch_tui.core.checks.sandbox import NO_SANDBOX, Sandbox, resolve_sandbox
from orch_tui.core.checks.venv import MARKER, PROJECT_VENV, prepare_env
from orch_tui.core.config.models import Config
from orch_tui.core.domain.proposal import FileChange, Proposal
from orch_tui.core.util import atomic
from tests.support.spying import calls_to

CALC_BEFORE = """\
def add(a, b):
    return a + b


def sub(a, b):
    return a - b
"""
# Lines 7-12 add mul, which no test calls (blank lines and a comment: no statements).
CALC = (
    CALC_BEFORE
    + """

# multiplication, for later
def mul(a, b):
    product = a * b
    return product
"""
)
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


def make_workspace(root: Path) -> Path:
    workspace = root / "workspace"
    (workspace / "tests").mkdir(parents=True)
    (workspace / "calc.py").write_text(CALC)
    (workspace / "tests" / "test_calc.py").write_text(TESTS)
    (workspace / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    return workspace


def run_under_coverage(
    workspace: Path, reports: Path, python: str, sandbox: Sandbox = NO_SANDBOX
) -> bool:
    config = write_coverage_config(workspace, reports)
    command = under_coverage(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml={junit}"], config
    )
    assert command is not None
    result = run_check(
        CheckSpec("tests", command),
        workspace,
        reports,
        timeout_s=120,
        max_output_bytes=100_000,
        extra_env_allow=["PYTEST_DISABLE_PLUGIN_AUTOLOAD"],
        sandbox=sandbox,
    )
    assert {t.id for t in result.tests} == {ADD, SUB}, result.output
    return result.passed


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CoverageMap]:
    root = tmp_path_factory.mktemp("coverage")
    workspace = make_workspace(root)
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    try:
        assert run_under_coverage(workspace, root / "reports", sys.executable)
    finally:
        mp.undo()
    cmap = read_coverage(root / "reports", workspace)
    assert isinstance(cmap, CoverageMap), cmap
    return workspace, cmap


def test_each_line_knows_the_tests_that_run_it(measured: tuple[Path, CoverageMap]) -> None:
    _workspace, cmap = measured
    assert cmap.tests_for("calc.py", 2) == {ADD}
    assert cmap.tests_for("calc.py", 6) == {SUB}
    assert cmap.tests_for("calc.py", 11) == frozenset()  # mul's body: nothing runs it
    assert 1 in cmap.files["calc.py"].executed  # a def runs on import, outside any test
    assert set(cmap.files) == {"calc.py"}  # the tests themselves are not measured
    assert CoverageMap.from_json(cmap.to_json()) == cmap
    assert coverage_from_record(coverage_record(cmap)) == cmap


def test_an_attempts_coverage_record_reads_back_unavailable_or_damaged() -> None:
    why = CoverageUnavailable("coverage.py is not installed in the project's .venv")
    assert coverage_from_record(coverage_record(why)) == why
    assert coverage_from_record(None) is None
    assert coverage_from_record({"map": {"calc.py": {"statements": [1]}}}) is None  # no executed
    assert coverage_from_record([1, 2]) is None


def test_a_hunk_says_which_tests_run_it_and_an_uncovered_hunk_says_so(
    measured: tuple[Path, CoverageMap],
) -> None:
    _workspace, cmap = measured
    added_mul = FileChange("calc.py", CALC_BEFORE, CALC)
    (hunk,) = added_mul.hunks
    assert (
        hunk_coverage(cmap, added_mul, hunk).describe()
        == "no test runs this hunk (run only on import)"
    )
    lines = changed_line_coverage(cmap, added_mul)
    assert lines == {7: None, 8: None, 9: None, 10: True, 11: False, 12: False}
    changed_add = FileChange("calc.py", CALC.replace("a + b", "b + a"), CALC)
    (hunk,) = changed_add.hunks
    assert hunk_coverage(cmap, changed_add, hunk).describe() == "run by test_add"
    both = FileChange("calc.py", CALC.replace("a + b", "b + a").replace("a - b", "-b + a"), CALC)
    assert [hunk_coverage(cmap, both, h).tests for h in both.hunks] == [(ADD,), (SUB,)]
    test_change = FileChange("tests/test_calc.py", TESTS, TESTS + "\n")
    assert hunk_coverage(cmap, test_change, test_change.hunks[0]).describe() == (
        "coverage not measured for this file"
    )
    summary = uncovered_lines(cmap, Proposal(1, (added_mul, test_change)))
    assert summary.describe() == "2 of 3 changed lines run by no test"


def test_a_sandboxed_check_writes_its_coverage_into_its_reports(tmp_path: Path) -> None:
    sandbox = resolve_sandbox("auto")
    if not sandbox.confined:
        pytest.skip("bubblewrap is not available")
    workspace = make_workspace(tmp_path)
    env = prepare_env(Config(), workspace, tmp_path / "install")
    assert env.failure is None, env.failure
    assert ensure_coverage(Config(), workspace) is None
    assert run_under_coverage(workspace, tmp_path / "reports", env.python, sandbox)
    cmap = read_coverage(tmp_path / "reports", workspace)
    assert isinstance(cmap, CoverageMap) and cmap.tests_for("calc.py", 2) == {ADD}
    assert not list(workspace.glob(".coverage*"))  # nothing written into the workspace


def test_coverage_is_seeded_into_a_venv_orch_tui_made_but_never_into_a_persons(
    tmp_path: Path,
) -> None:
    ours = tmp_path / "ours"
    ours.mkdir()
    env = prepare_env(Config(), ours, tmp_path / "install")
    assert env.failure is None, env.failure
    assert ensure_coverage(Config(), ours) is None
    where = subprocess.run(
        [env.python, "-c", "import coverage; print(coverage.__file__)"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert str(ours / PROJECT_VENV) in where
    (ours / PROJECT_VENV / MARKER).unlink()  # now it is a person's own venv, without coverage
    for info in (ours / PROJECT_VENV).glob("lib/python*/site-packages/coverage-*.dist-info"):
        shutil.rmtree(info)
    unavailable = ensure_coverage(Config(), ours)
    assert isinstance(unavailable, CoverageUnavailable)
    assert "not installed" in unavailable.describe()
    configured = Config()
    configured.checks.python = sys.executable  # has coverage: it runs, nothing installed
    assert ensure_coverage(configured, ours) is None
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", tmp_path / "bare"], check=True)
    configured.checks.python = str(tmp_path / "bare" / "bin" / "python")
    bare = ensure_coverage(configured, ours)
    assert isinstance(bare, CoverageUnavailable) and "checks.python" in bare.reason
    # Unavailable: the tests run as they are, never under a coverage that is not there.
    command = [sys.executable, "-m", "pytest", "-q"]
    assert with_coverage(Config(), ours, tmp_path / "r", command) == (command, unavailable)
    assert not (tmp_path / "r").exists()


def test_with_coverage_wraps_the_test_command_when_the_venv_has_coverage(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    assert prepare_env(Config(), workspace, tmp_path / "install").failure is None
    copy = tmp_path / "copy"  # a trial's copy, run with the workspace's environment
    command, problem = with_coverage(
        Config(), copy, tmp_path / "r", ["{python}", "-m", "pytest"], venv_of=workspace
    )
    assert problem is None
    assert command == [
        "{python}",
        str(tmp_path / "r" / RUNNER_NAME),
        str(tmp_path / "r" / "coveragerc"),
    ]
    assert f"source =\n    {copy.resolve()}" in (tmp_path / "r" / "coveragerc").read_text()
    script, problem = with_coverage(Config(), copy, tmp_path / "r", ["tox"], venv_of=workspace)
    assert script == ["tox"] and problem is not None and "not `{python} -m pytest" in problem.reason


def test_missing_or_broken_coverage_data_is_unavailable_never_an_error(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    missing = read_coverage(tmp_path / "reports", workspace)
    assert missing == CoverageUnavailable("the tests wrote no coverage data")
    assert missing.describe() == "coverage unavailable: the tests wrote no coverage data"
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / DATA_NAME).write_text("not a database")
    broken = read_coverage(tmp_path / "reports", workspace)
    assert isinstance(broken, CoverageUnavailable) and "cannot be read" in broken.reason


def test_the_config_keeps_the_data_out_of_the_workspace_and_an_old_file_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / DATA_NAME).write_text("left by the last run")
    temp_files = calls_to(monkeypatch, atomic, "_temp_with")
    config = write_coverage_config(tmp_path / "ws", reports)
    assert temp_files == []  # the check's own folder: written in place, no temp file and rename
    assert sorted(path.name for path in reports.iterdir()) == sorted([CONFIG_NAME, RUNNER_NAME])
    text = config.read_text()
    assert "dynamic_context" not in text and "branch = False" in text  # the runner's plugin
    assert f"data_file = {reports.resolve() / DATA_NAME}" in text
    assert not (reports / DATA_NAME).exists()
    runner = reports / RUNNER_NAME
    assert "switch_context" in runner.read_text()
    assert under_coverage(["py", "-m", "pytest", "-q"], config) == [
        "py", str(runner), str(config), "-q",
    ]  # fmt: skip
    assert under_coverage(["tox", "-e", "py"], config) is None


def test_contexts_are_node_ids_with_parameters_folded() -> None:
    assert context_test_id(ADD) == ADD
    assert context_test_id(SUB) == SUB
    assert context_test_id("tests/test_x.py::test_p[1-2]") == "tests/test_x.py::test_p"
    assert context_test_id("tests/test_x.py::TestA::test_p[a::b]") == (
        "tests/test_x.py::TestA::test_p"
    )
    assert context_test_id("") == ""


def test_pure_line_coverage_of_a_deleted_or_unmeasured_file() -> None:
    cmap = CoverageMap({"a.py": FileCoverage(frozenset({1, 2}), {1: frozenset({ADD})})})
    deleted = FileChange("a.py", "x = 1\ny = 2\n", None)
    assert changed_line_coverage(cmap, deleted) == {}
    assert not hunk_coverage(cmap, deleted, deleted.hunks[0]).measured
    added = FileChange("a.py", None, "x = 1\ny = 2\n")
    assert changed_line_coverage(cmap, added) == {1: True, 2: False}
    assert hunk_coverage(cmap, added, added.hunks[0]).describe() == "run by test_add"
    assert uncovered_lines(cmap, Proposal(1, (added,))).describe() == (
        "1 of 2 changed lines run by no test"
    )


def test_the_data_file_is_read_once(
    measured: tuple[Path, CoverageMap], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every attempt's checks are read back: the SQLite file once, not once for the contexts
    and again for the statements."""
    import coverage

    workspace, cmap = measured
    reads: list[str] = []
    real_read = coverage.CoverageData.read

    def counted(data: coverage.CoverageData) -> None:
        reads.append(data.base_filename())
        real_read(data)

    monkeypatch.setattr(coverage.CoverageData, "read", counted)
    assert read_coverage(workspace.parent / "reports", workspace) == cmap
    assert len(reads) == 1
