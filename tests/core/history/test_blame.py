"""Blame on a real run: the engine's checks record coverage, attempt 1 breaks test_add."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from orch_tui.core.history.blame import blame, revert_proposal
from orch_tui.core.history.detail import load_run, workspace_at
from orch_tui.core.runlog import layout as runlog
from tests.support.coverage_project import blame_run

ADD = "tests/test_calc.py::test_add"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        project, run_id = blame_run(tmp_path_factory.mktemp("blame") / "project", monkeypatch)
    return project.root, run_id


def test_a_test_that_went_from_passing_to_failing_names_the_attempt_and_its_hunks(
    run: tuple[Path, str],
) -> None:
    root, run_id = run
    detail = load_run(root / "logs", run_id)
    (found,) = blame(detail)
    assert (found.test, found.passed_in, found.broke_in, found.measured) == (ADD, 0, 1, True)
    # attempt 1 changed add, div and mul; test_add runs only add's line
    (hunk,) = found.hunks
    assert hunk.change.path == "calc.py"
    assert hunk.change.new_lines[hunk.hunk.new_start] == "    return b - a\n"
    assert found.describe() == (
        f"{ADD} passed in attempt 0, broken by attempt 1: calc.py line {hunk.hunk.new_start + 1}"
    )


def test_without_coverage_the_attempt_is_named_and_the_hunks_are_not(
    run: tuple[Path, str], tmp_path: Path
) -> None:
    root, run_id = run
    copy = tmp_path / "logs"
    shutil.copytree(root / "logs", copy)
    (copy / run_id / runlog.attempt_dir_name(1) / runlog.COVERAGE).write_text(
        json.dumps({"unavailable": "coverage.py is not installed in the project's .venv"})
    )
    (found,) = blame(load_run(copy, run_id))
    assert (found.broke_in, found.hunks, found.measured) == (1, (), False)
    assert found.describe().endswith("(no coverage: the hunks are not known)")


def test_the_revert_puts_the_blamed_lines_back_or_names_those_changed_since(
    run: tuple[Path, str],
) -> None:
    root, run_id = run
    detail = load_run(root / "logs", run_id)
    blames = blame(detail)
    after_break = workspace_at(detail, 1)["calc.py"]
    proposal, left = revert_proposal(blames, {"calc.py": after_break}, 3)
    (change,) = proposal.changes
    assert (proposal.attempt, left, len(change.hunks)) == (3, [], 1)  # add only, not div or mul
    assert change.new_text == after_break.replace("return b - a", "return a + b")
    mended = workspace_at(detail, 2)["calc.py"]  # attempt 2 mended add itself
    proposal, left = revert_proposal(blames, {"calc.py": mended}, 3)
    assert proposal.is_empty and len(left) == 1 and "changed since attempt 1" in left[0]
