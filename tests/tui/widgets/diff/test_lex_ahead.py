"""Lexing ahead while the reviewer is idle: the next and previous files' first screens."""

from __future__ import annotations

import time

import pytest

from orch_tui.core.domain.proposal import FileChange, HunkDecision
from orch_tui.tui.widgets.diff.file_cache import cached_file
from orch_tui.tui.widgets.diff.highlight import LineHighlighter
from orch_tui.tui.widgets.diff.lex_ahead import LexAhead, first_screen
from orch_tui.tui.widgets.diff.rows import build_rows
from orch_tui.tui.widgets.diff.view import DiffView
from tests.tui.widgets.diff.test_diff_view import DiffApp, numbered, settle_lexing

U = HunkDecision.UNDECIDED

pytestmark = pytest.mark.anyio


def changed_at(path: str, lines: int, *at: int) -> FileChange:
    old = numbered(lines)
    new = old
    for line in at:
        new = new.replace(f"value_{line} = {line}\n", f"value_{line} = {line} + 1\n")
    return FileChange(path, old, new)


def test_the_first_screen_is_where_the_view_opens_a_file() -> None:
    near = build_rows(changed_at("a.py", 2_000, 3, 1_500))
    far = build_rows(changed_at("b.py", 2_000, 1_000))

    assert list(first_screen(near, 10))[:2] == [(0, 0), (1, 0)]  # the first hunk fits: top
    lines = [line for side, line in first_screen(far, 10) if side == 1]
    assert lines[0] == 1_000 - 3 and 1_000 in lines  # scrolled to the hunk, context above it


def test_lexing_ahead_resumes_where_the_deadline_stopped_it() -> None:
    text = numbered(1_000)
    highlighter = LineHighlighter("a.py", text.splitlines(keepends=True), lambda _t: "x")
    walk = LexAhead()
    walk.start((highlighter, line) for line in range(0, 1_000, 64))
    slices = 1
    while not walk.run(time.perf_counter() + 0.001):
        slices += 1

    assert slices > 1
    assert all(highlighter.lexed(line) for line in range(1_000))
    assert not walk.started


async def test_the_next_and_previous_files_first_screens_are_lexed_without_a_key() -> None:
    current = changed_at("current.py", 3_000, 1_500)
    following = changed_at("next.py", 3_000, 2_000)
    previous = changed_at("previous.py", 3_000, 10)
    app = DiffApp(current, (U,))
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(DiffView)
        view.lex_ahead([following, previous])
        await settle_lexing(pilot, view)
        height = view.scrollable_content_region.height
        ahead = {
            change.path: [
                cached_file(view._files, change).highlighters[side].lexed(line)
                for side, line in first_screen(build_rows(change), height)
            ]
            for change in (following, previous)
        }
        view.show(following, (U,))  # what } does: its lines are ready, nothing left to lex
        assert view._highlighters is not None
        shown = [view.rows[i] for i in range(view.rows.hunk_rows(0).start, len(view.rows))]
        ready = all(view._highlighters[1].lexed(row.new) for row in shown[:height] if row.new)

    assert ahead["next.py"] and all(ahead["next.py"])
    assert ahead["previous.py"] and all(ahead["previous.py"])
    assert ready


async def test_the_walk_goes_to_the_next_hunk_then_the_next_file_then_the_rest() -> None:
    current = changed_at("current.py", 3_000, 500, 1_500, 2_500)
    following = changed_at("next.py", 3_000, 2_000)
    previous = changed_at("previous.py", 3_000, 10)
    app = DiffApp(current, (U, U, U))
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        view.lex_ahead([following, previous])
        assert view._highlighters is not None
        walk = list(view._targets(view._highlighters))
        files = {
            id(highlighter): change.path
            for change in (following, previous)
            for highlighter in cached_file(view._files, change).highlighters
        }
        files.update({id(highlighter): "current.py" for highlighter in view._highlighters})
        order = [files.get(id(highlighter), "?") for highlighter, _line in walk]
        next_hunk = view.rows.hunk_rows(1).start
        first_lines = [line for _h, line in walk[:4]]

    runs = [path for n, path in enumerate(order) if n == 0 or order[n - 1] != path]
    assert runs[:3] == ["current.py", "next.py", "current.py"] and runs[-1] == "previous.py"
    assert min(first_lines) >= view.rows[next_hunk - 3].new - 1  # ] goes there: lexed first
