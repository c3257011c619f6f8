"""``orch-tui verify [--mutation]``: the checks again in a fresh copy, and mutants of the lines
the run changed, on a small project with a known surviving mutant and known killed ones."""

from __future__ import annotations

import argparse
import json
import threading
from pathlib import Path

import pytest

from orch_tui.core.checks.mutation import Mutant, mutants
from orch_tui.core.checks.verify_run import (
    KILLED,
    NoRun,
    fresh_copy,
    mutant_timeout,
    run_changes,
    run_mutation,
    verify_checks,
)
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.state import State, StateStore
from orch_tui.core.domain.state_records import WorkspaceRecord
from orch_tui.core.runlog import layout as runlog
from orch_tui.tui.cli.parse import sub_parser
from orch_tui.tui.cli.verify_command import run_verify

BEFORE = "def is_adult(age):\n    return False\n\n\ndef double(x):\n    return x\n"
# Line 2: the tests try 30 and 5 only, so `>=` -> `>` and 18 -> 19 survive; line 6 is pinned.
CALC = (
    "def is_adult(age):\n"
    "    return age >= 18  # the law says so\n"
    "\n"
    "\n"
    "def double(x):\n"
    "    return x * 2\n"
)
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


def test_verify_mutation_finds_the_surviving_mutants_and_kills_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path)
    assert run_verify(options(tmp_path, mutation=True, json=True)) == 0
    captured = capsys.readouterr()
    outcome = json.loads(captured.out)
    assert outcome["checks"]["passed"] is True
    mutation = outcome["mutation"]
    assert (mutation["total"], mutation["killed"], mutation["survived"]) == (6, 4, 2)
    assert mutation["survivors"] == [
        {"path": "calc.py", "line": 2, "mutation": "age >= 18 → age > 18"},
        {"path": "calc.py", "line": 2, "mutation": "18 → 19"},
    ]
    assert "survived: calc.py:2: age >= 18 → age > 18" in captured.err
    assert "mutants [" in captured.err and "6/6" in captured.err  # the progress
    assert (tmp_path / "workspace" / "calc.py").read_text() == CALC  # never touched


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


def test_cancelling_stops_between_mutants(tmp_path: Path) -> None:
    paths = make_project(tmp_path)
    config = Config()
    cancel = threading.Event()
    seen: list[tuple[int, int, Mutant | None]] = []

    def progress(done: int, total: int, upcoming: Mutant | None) -> None:
        seen.append((done, total, upcoming))
        cancel.set()  # Ctrl+C while the first mutant runs

    with fresh_copy(paths.workspace) as (copy, reports):
        baseline = verify_checks(config, paths.workspace, copy, reports)
        assert baseline.passed, baseline.summary()
        report = run_mutation(
            config,
            paths.workspace,
            copy,
            reports,
            {"calc.py": [6]},
            timeout_s=mutant_timeout(config, baseline),
            on_progress=progress,
            cancel=cancel,
        )
        assert (copy / "calc.py").read_text() == CALC  # put back after the mutant
    assert report.cancelled and len(report.results) == 1 and report.total == 3
    assert report.results[0].status == KILLED
    assert report.summary() == "3 mutants: 1 killed, 0 survived; stopped after 1 of 3"
    assert seen[0][:2] == (0, 3) and seen[-1] == (1, 3, None)


# -- the mutation engine (pure) ---------------------------------------------------------------


def test_mutants_only_touch_the_chosen_lines_and_keep_everything_else() -> None:
    found = mutants("calc.py", CALC, [2])
    assert [m.description for m in found] == [
        "return age >= 18 → return None",
        "age >= 18 → age > 18",
        "18 → 19",
    ]
    assert found[1].text == CALC.replace("age >= 18", "(age > 18)")  # the comment stays
    assert all(m.line == 2 and m.where == "calc.py:2" for m in found)
    assert mutants("calc.py", CALC, []) == []
    assert mutants("calc.py", "def broken(:\n", [1]) == []


def test_each_operator_is_mutated() -> None:
    source = (
        "def f(a, b, items):\n"
        "    '''A docstring with 1 < 2 is left alone.'''\n"
        "    x: int = 0\n"
        "    x += a - b // 2\n"
        "    if a and not b or a in items:\n"
        "        return True\n"
        "    return a % b != a ** 2\n"
    )
    described = {m.description for m in mutants("f.py", source, range(1, 8))}
    assert {
        "x += a - b // 2 → x -= a - b // 2",
        "a - b // 2 → a + b // 2",
        "b // 2 → b * 2",
        "0 → 1",
        "a and not b → a or not b",
        "not b → b",
        "a in items → a not in items",
        "True → False",
        "return True → return None",
        "a % b != a ** 2 → a % b == a ** 2",
        "a % b → a // b",
        "a ** 2 → a * 2",
    } <= described
    assert not any("docstring" in d or "int" in d for d in described)
    for mutant in mutants("f.py", source, range(1, 8)):
        compile(mutant.text, "f.py", "exec")  # every mutant is valid Python


def test_ctrl_c_during_a_mutants_tests_stops_cleanly_and_puts_the_file_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "calc.py").write_text(CALC)
    seen: list[str] = []

    def interrupted(*_args: object, **_kwargs: object) -> None:
        seen.append((copy / "calc.py").read_text())
        raise KeyboardInterrupt  # the runner has killed the test's process group by then

    monkeypatch.setattr("orch_tui.core.checks.verify_run.run_check", interrupted)
    report = run_mutation(
        Config(), tmp_path, copy, tmp_path / "reports", {"calc.py": [2]}, timeout_s=10
    )
    assert report.cancelled and report.results == [] and report.total == 3
    assert seen == [CALC.replace("return age >= 18", "return None")]  # the mutant was in place
    assert (copy / "calc.py").read_text() == CALC
