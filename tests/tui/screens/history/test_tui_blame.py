"""Coverage and blame in the history screens, over a real run whose checks recorded coverage:
attempt 1 broke test_add (which passed in attempt 0) by changing add."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Static

from orch_tui.themes import DEFAULT_THEME, register_themes, theme_variable_defaults
from orch_tui.tui.messages import ResumeRun
from orch_tui.tui.screens.history.attempt import AttemptScreen
from orch_tui.tui.screens.history.run import RunScreen
from orch_tui.tui.screens.history.runs_list import RunsScreen
from orch_tui.tui.screens.needs_help import NeedsHelpScreen
from orch_tui.tui.widgets.diff.coverage_gutter import COVERED_MARK, NOTE_MARK, UNCOVERED_MARK
from orch_tui.tui.widgets.diff.rows import RowKind
from orch_tui.tui.widgets.diff.view import DiffView
from tests.support.coverage_project import (
    blame_attempts,
    blame_run,
    record_coverage_in_checks,
)
from tests.support.tui_support import (
    make_tui_project,
    wait_for,
    wait_for_finish,
    wait_for_history,
    wait_for_review,
    wait_for_screen,
)
from tests.tui.widgets.diff.test_diff_view import row_text

pytestmark = pytest.mark.anyio
SIZE = (120, 40)


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, str]:
    return blame_run(tmp_path / "project", monkeypatch)


class RunHost(App[None]):
    def __init__(self, logs: Path, run_id: str) -> None:
        super().__init__()
        self.logs, self.run_id = logs, run_id

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        register_themes(self)
        self.theme = DEFAULT_THEME
        self.push_screen(RunScreen(self.logs, self.run_id))


async def test_the_run_names_the_attempt_and_hunk_that_broke_a_test_and_its_diff_is_marked(
    run: tuple[Any, str],
) -> None:
    project, run_id = run
    app = RunHost(project.root / "logs", run_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunScreen, "the run")
        shown = str(screen.query_one("#blame", Static).render())
        blamed = "tests/test_calc.py::test_add passed in attempt 0, broken by attempt 1: calc.py"
        assert blamed + " line" in shown
        assert "X puts their revert up for review" in shown
        assert screen.check_action("revert_blamed", ()) is True
        assert screen.query_one("#blame").display
        await pilot.press("down", "enter")  # attempt 1
        attempt = await wait_for_screen(pilot, app, AttemptScreen, "attempt 1")
        view = attempt.query_one("#diff", DiffView)
        await wait_for(pilot, lambda: view.change is not None, "the diff")
        await pilot.pause()
        notes = [
            row_text(view, i).split(NOTE_MARK)[-1].strip()
            for i, row in enumerate(view.rows)
            if row.kind is RowKind.NOTE
        ]
        # its own checks measured what it landed: add and mul are tested, div's guard is not
        assert notes == ["run by test_add", "no test runs this hunk", "run by test_mul"]
        div = next(i for i in view.rows.hunk_rows(1) if "if b else None" in row_text(view, i))
        assert UNCOVERED_MARK in row_text(view, div).split("│")[1]
        add = next(i for i in view.rows.hunk_rows(0) if "return b - a" in row_text(view, i))
        assert COVERED_MARK in row_text(view, add).split("│")[1]


async def test_a_run_without_flips_shows_no_blame(run: tuple[Any, str], tmp_path: Path) -> None:
    project, run_id = run
    for report in (project.root / "logs" / run_id).glob("attempt-01/report.json"):
        report.unlink()  # attempt 1's checks unknown: no pass-to-fail flip left
    app = RunHost(project.root / "logs", run_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunScreen, "the run")
        assert not screen.blames and not screen.query_one("#blame").display
        assert screen.check_action("revert_blamed", ()) is False  # not offered


class ResumingRunHost(RunHost):
    def __init__(self, logs: Path, run_id: str) -> None:
        super().__init__(logs, run_id)
        self.resumed: list[str] = []

    def on_resume_run(self, message: ResumeRun) -> None:
        self.resumed.append(message.run_id)


async def test_x_puts_the_revert_of_the_blamed_hunks_up_for_review_and_it_lands_only_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, run_id = blame_run(tmp_path / "project", monkeypatch, attempts=2, max_retries=1)
    assert project.state()["state"] == "FAILED"
    broken = project.read("calc.py")
    assert broken is not None and "return b - a" in broken
    history = ResumingRunHost(project.root / "logs", run_id)
    async with history.run_test(size=SIZE) as pilot:
        await wait_for_history(pilot, history, RunScreen, "the run")
        await pilot.press("X")
        await wait_for(pilot, lambda: history.resumed == [run_id], "the run to be resumed")
    # Nothing was applied: the revert waits as attempt 2's proposal, in review.
    assert project.read("calc.py") == broken
    assert (project.state()["state"], project.state()["attempt"]) == ("REVIEWING", 2)
    (change,) = project.log_json(2, "proposal.json")["changes"]
    assert change["path"] == "calc.py"
    assert change["new_text"] == broken.replace("return b - a", "return a + b")
    # Resumed (as `orch-tui spec.md` does), it is reviewed like any proposal, then tested.
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app, 2)
        view = screen.query_one(DiffView)
        assert view.change is not None and view.change.path == "calc.py"
        assert any("return a + b" in row_text(view, i) for i in view.rows.hunk_rows(0))
        await pilot.press("y", "enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"
        await pilot.press("q")
    assert project.read("calc.py") == change["new_text"]
    assert project.log_json(2, "decisions.json")["hunks"]["calc.py"] == ["accepted"]


async def test_x_on_a_run_whose_breakage_was_mended_has_nothing_to_revert(
    run: tuple[Any, str],
) -> None:
    project, run_id = run
    history = ResumingRunHost(project.root / "logs", run_id)
    async with history.run_test(size=SIZE) as pilot:
        await wait_for_history(pilot, history, RunScreen, "the run")
        await pilot.press("X")
        await pilot.pause()
    assert history.resumed == [] and project.state()["state"] == "SUCCESS"
    assert not (project.run_dir() / "attempt-03").exists()


async def test_x_in_the_history_of_the_open_run_reviews_the_revert_in_the_same_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the TUI: the run stops, asking for help, with test_add broken; h, enter, X: the
    revert comes up in the review screen of the same app; accepted and tested, the run
    succeeds."""
    record_coverage_in_checks(monkeypatch)
    project = make_tui_project(tmp_path / "project", blame_attempts()[:2])
    app = project.app(max_retries=1)
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for_review(pilot, app, 0)
        await pilot.press("enter")
        await wait_for_review(pilot, app, 1)
        await pilot.press("enter")
        await wait_for_screen(pilot, app, NeedsHelpScreen, "the run to ask for help")
        await pilot.press("escape", "h")
        await wait_for_history(pilot, app, RunsScreen, "the runs list")
        await pilot.press("enter")
        await wait_for_history(pilot, app, RunScreen, "the run")
        await pilot.press("X")
        screen = await wait_for_review(pilot, app, 2)
        view = screen.query_one(DiffView)
        assert view.change is not None and view.change.path == "calc.py"
        await pilot.press("y", "enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"
        await pilot.press("q")
    assert "return a + b" in (project.read("calc.py") or "")
