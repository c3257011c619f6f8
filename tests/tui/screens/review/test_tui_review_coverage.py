"""Coverage in the review screen, against the real engine: nothing before any checks; then the
last checks' coverage marks the lines each hunk replaces, and ``u`` goes to the next hunk no
test runs. The checks record coverage with coverage_map's own functions (see coverage_project).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown

from orch_tui.tui.screens.dialogs import HELP, HelpScreen
from orch_tui.tui.widgets.diff.coverage_gutter import COVERED_MARK, NOTE_MARK, UNCOVERED_MARK
from orch_tui.tui.widgets.diff.rows import RowKind
from orch_tui.tui.widgets.diff.view import DiffView
from tests.support.coverage_project import blame_attempts, record_coverage_in_checks
from tests.support.tui_support import (
    SIZE,
    make_tui_project,
    wait_for,
    wait_for_review,
    wait_for_screen,
    wait_for_trial,
)
from tests.tui.widgets.diff.test_diff_view import row_text

pytestmark = pytest.mark.anyio


def notes(view: DiffView) -> list[str]:
    return [
        row_text(view, i).strip() for i, row in enumerate(view.rows) if row.kind is RowKind.NOTE
    ]


async def test_marks_come_from_the_last_checks_and_u_goes_to_the_untested_hunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_coverage_in_checks(monkeypatch)
    project = make_tui_project(tmp_path, blame_attempts())
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app, 0)
        view = screen.query_one(DiffView)
        await pilot.pause(0.2)
        # The first review: no checks have run, so no coverage: nothing is shown.
        assert screen.coverage is None and notes(view) == []
        await pilot.press("u")
        await pilot.press("enter")
        screen = await wait_for_review(pilot, app, 1)
        await wait_for(pilot, lambda: screen.coverage is not None, "attempt 0's coverage")
        await pilot.pause()
        assert (project.run_dir() / "attempt-00" / "coverage.json").is_file()
        view = screen.query_one(DiffView)
        assert [n.split(NOTE_MARK)[-1].strip() for n in notes(view)] == [
            "replaces lines run by test_add",
            "replaces lines no test runs",
            "replaces lines run by test_mul",
        ]
        add = next(i for i in view.rows.hunk_rows(0) if "return a + b" in row_text(view, i))
        assert COVERED_MARK in row_text(view, add).split("│")[0]  # the old side
        div = next(i for i in view.rows.hunk_rows(1) if "return a / b" in row_text(view, i))
        assert UNCOVERED_MARK in row_text(view, div).split("│")[0]
        assert screen.cursor is not None and screen.cursor.hunk == 0
        await pilot.press("u")
        assert (screen.cursor.file, screen.cursor.hunk) == (0, 1)
        assert view.cursor_hunk == 1
        await pilot.press("right_square_bracket", "u")  # past the last one: round to the first
        assert screen.cursor.hunk == 1
        await pilot.press("question_mark")
        help_screen = await wait_for_screen(pilot, app, HelpScreen, "the help")
        assert (
            "`u`: the next one no test runs" in HELP and help_screen.query_one(Markdown) is not None
        )
        await pilot.press("escape")
        await pilot.press("q")


async def test_the_trial_run_marks_the_new_lines_and_u_follows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before acceptance, the trial run (real pytest under coverage in a scratch copy) marks
    the lines each hunk adds, names the tests that run them, and ``u`` goes by it. A rejected
    hunk's lines were not in what the trial ran: no mark, no note."""
    record_coverage_in_checks(monkeypatch)
    project = make_tui_project(tmp_path, blame_attempts()[:2])
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app, 0)
        await pilot.press("enter")
        screen = await wait_for_review(pilot, app, 1)
        view = screen.query_one(DiffView)
        await wait_for(pilot, lambda: screen.coverage is not None, "attempt 0's coverage")
        await pilot.press("t")  # no sandbox here: the trial waits for its key
        await wait_for_trial(pilot, screen)
        await pilot.pause()
        assert [n.split(NOTE_MARK)[-1].strip() for n in notes(view)] == [
            "run by test_add",
            "no test runs this hunk",
            "run by test_mul",
        ]
        broken = next(i for i in view.rows.hunk_rows(0) if "return b - a" in row_text(view, i))
        old, new = row_text(view, broken).split("│")[:2]
        assert COVERED_MARK in new and COVERED_MARK not in old  # the new side, b - a
        guard = next(i for i in view.rows.hunk_rows(1) if "if b else" in row_text(view, i))
        assert UNCOVERED_MARK in row_text(view, guard).split("│")[1]
        assert screen.cursor is not None and screen.cursor.hunk == 0
        await pilot.press("u")
        assert (screen.cursor.file, screen.cursor.hunk) == (0, 1)
        await pilot.press("n", "t")  # reject the untested guard: the trial runs without it
        await wait_for_trial(pilot, screen)
        await pilot.pause()
        assert [n.split(NOTE_MARK)[-1].strip() for n in notes(view)] == [
            "run by test_add",
            "run by test_mul",
        ]
        assert (screen.cursor.file, screen.cursor.hunk) == (0, 2)
        await pilot.press("u")  # no untested hunk left: it stays (the old side's would go to 1)
        assert (screen.cursor.file, screen.cursor.hunk) == (0, 2)
        await pilot.press("q")
