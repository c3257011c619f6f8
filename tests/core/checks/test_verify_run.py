"""``orch-tui verify [--mutation]``: the checks again in a fresh copy, and mutmut on the lines
the run changed, on a small project with known surviving mutants and known killed ones."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from orch_tui.core.checks.verify_run import NoRun, fresh_copy, run_changes
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.state import State, StateStore
from orch_tui.core.domain.state_records import WorkspaceRecord
from orch_tui.core.runlog import layout as runlog
from orch_tui.tui.cli.parse import sub_parser
from orch_tui.tui.cli.verify_command import run_verify

HALF = "\n\ndef half(x):\n    return x // 2\n"
BEFORE = "def is_adult(age):\n    return False\n\n\ndef double(x):\n    return x\n" + HALF
# Line 2: the tests try 30 and 5 only, so `>=` -> `>` and 18 -> 19 survive; line 6 is pinned.
CALC = (
    "def is_adult(age):\n"
    "    return age >= 18  # the law says so\n"
    "\n"
    "\n"
    "def double(x):\n"
    "    return x * 2\n"
) + HALF
SURVIVOR_A = "return age >= 18 → return age > 18"
SURVIVOR_B = "return age >= 18 → return age >= 19"
TESTS = (
    "from calc import double, is_adult\n\n\n"
    "def test_is_adult():\n    assert is_adult(30)\n    assert not is_adult(5)\n\n\n"
    "def test_double():\n    assert double(3) == 6\n"
)


def make_project(root: Path) -> ProjectPaths:
    """A project whose one run changed calc.py from BEFORE to CALC and added the tests."""
    (root / "orchestrator.toml").write_text("")
    workspace = root / "workspace"
    (workspace / "tests").mkdir(parents=True)
    (workspace / "calc.py").write_text(CALC)
    (workspace / "tests" / "test_calc.py").write_text(TESTS)
    state = State("run-1", "spec.md", "0" * 64, 3, workspace=WorkspaceRecord(path=str(workspace)))
    StateStore(root / "state.json").save(state)
    attempt = root / "logs" / "run-1" / "attempt-01"
    attempt.mkdir(parents=True)
    files = {"calc.py": CALC, "tests/test_calc.py": TESTS}
    (attempt / runlog.APPLIED).write_text(json.dumps({"files": files}))
    originals = root / "logs" / "run-1" / runlog.ORIGINALS
    (originals / "files").mkdir(parents=True)
    (originals / "files" / "calc.py").write_text(BEFORE)
    manifest = {"calc.py": {"existed": True}, "tests/test_calc.py": {"existed": False}}
    (originals / runlog.MANIFEST).write_text(json.dumps(manifest))
    return ProjectPaths(root)


def options(root: Path, **values: bool) -> argparse.Namespace:
    args = ["--config", str(root / "orchestrator.toml")]
    args += [f"--{name}" for name, on in values.items() if on]
    return sub_parser("verify").parse_args(args)


def test_the_runs_changes_are_its_files_from_before_the_run_to_now(tmp_path: Path) -> None:
    changes = run_changes(make_project(tmp_path))
    assert changes.run_id == "run-1"
    assert [c.path for c in changes.changes] == ["calc.py", "tests/test_calc.py"]
    assert changes.mutable_lines() == {"calc.py": [2, 6]}  # tests are never mutated


def test_verify_mutation_runs_mutmut_on_the_changed_lines_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path)
    assert run_verify(options(tmp_path, mutation=True, json=True)) == 0
    captured = capsys.readouterr()
    outcome = json.loads(captured.out)
    assert outcome["checks"]["passed"] is True
    mutation = outcome["mutation"]
    # Line 2's mutants survive (the tests try 30 and 5 only), line 6's are killed; half() on
    # line 10 is untouched by the run, so none of its mutants (no test runs it) is made.
    assert (mutation["total"], mutation["killed"], mutation["survived"]) == (4, 2, 2), mutation
    assert mutation["survivors"] == [
        {"path": "calc.py", "line": 2, "mutation": SURVIVOR_A, "status": "survived"},
        {"path": "calc.py", "line": 2, "mutation": SURVIVOR_B, "status": "survived"},
    ]
    assert f"survived: calc.py:2: {SURVIVOR_A}" in captured.err
    assert "mutants [" in captured.err and "4/4" in captured.err  # the progress
    assert "mutmut: running the tests once to see which tests run which" in captured.err
    assert (tmp_path / "workspace" / "calc.py").read_text() == CALC  # never touched
    assert not (tmp_path / "workspace" / "mutants").exists()


def test_verify_on_a_folder_with_no_run_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "orchestrator.toml").write_text("")
    assert run_verify(options(tmp_path, mutation=True)) == 1
    assert "no run in" in capsys.readouterr().err
    with pytest.raises(NoRun, match="nothing to verify"):
        run_changes(ProjectPaths(tmp_path))


def test_failing_checks_in_the_fresh_copy_fail_verify_and_skip_mutation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path)
    (tmp_path / "workspace" / "calc.py").write_text(CALC.replace("x * 2", "x * 3"))
    assert run_verify(options(tmp_path, mutation=True)) == 1
    out = capsys.readouterr().out
    assert "the checks fail on the finished workspace: tests/test_calc.py::test_double" in out
    assert "mutation:" not in out


def test_the_fresh_copy_has_no_git_venv_or_caches(tmp_path: Path) -> None:
    workspace = make_project(tmp_path).workspace
    for cache in (".git", ".pytest_cache", "__pycache__", "tests/__pycache__"):
        (workspace / cache).mkdir()
        (workspace / cache / "x").write_text("stale")
    with fresh_copy(workspace) as (copy, reports):
        assert sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*")) == [
            "calc.py",
            "tests",
            "tests/test_calc.py",
        ]
        assert reports.is_dir() and not reports.is_relative_to(copy)
    assert not copy.exists()
