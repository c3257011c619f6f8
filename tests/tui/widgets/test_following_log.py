"""FollowingLog's batched writes: held for a moment, written together, in order."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.scroll_view import ScrollView
from textual.widgets import Static

from orch_tui.tui.widgets.following_log import BATCH_S, FollowingLog
from tests.support.spying import calls_to
from tests.support.tui_support import count_layouts

pytestmark = pytest.mark.anyio


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield FollowingLog()


async def test_text_written_soon_shows_once_the_batch_is_written_in_one_write() -> None:
    app = LogApp()
    async with app.run_test() as pilot:
        log = app.query_one(FollowingLog)
        log.write_soon("streamed ")
        assert not log.at_line_start  # a line written now must start on a line of its own
        log.write_soon("text\n")
        assert log.at_line_start
        log.write_soon("edit\n")
        assert list(log.lines) == []  # held
        await pilot.pause(BATCH_S + 0.2)
        assert list(log.lines)[:2] == ["streamed text", "edit"]


async def test_flush_writes_at_once_and_clear_drops_what_is_held() -> None:
    app = LogApp()
    async with app.run_test() as pilot:
        log = app.query_one(FollowingLog)
        log.write_soon("one\n")
        log.flush()
        assert list(log.lines)[:1] == ["one"]
        log.write_soon("two\n")
        log.clear()
        await pilot.pause(BATCH_S + 0.2)
        assert log.line_count == 0
        assert log.at_line_start


class PanelApp(App[None]):
    """A log in a panel of fixed height, as the review screen's model log is."""

    CSS = "#panel { height: 8; } FollowingLog { height: 1fr; }"

    def compose(self) -> ComposeResult:
        with Vertical(id="panel"):
            yield FollowingLog()
        yield Static("below")


async def test_lines_written_scroll_the_log_without_laying_the_screen_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every line written changed the log's virtual size, which laid the whole screen out
    again on the next frame: a 200-file proposal's edits kept the review screen doing so."""
    app = PanelApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(FollowingLog)
        log.write("first\n")
        await pilot.pause()
        layouts = count_layouts(app.screen, monkeypatch)
        for n in range(30):
            log.write(f"line {n}\n")
        await pilot.pause()
        await pilot.pause()
        assert layouts == []
        assert log.line_count == 31
        assert log.scroll_y == log.max_scroll_y > 0  # at the end, the last line in view
        assert log.vertical_scrollbar.window_virtual_size == log.virtual_size.height


async def test_a_write_repaints_its_lines_once_and_a_line_continued_shows_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Log.write`` worked out and marked a region for every line it added: a 200-file
    proposal's edit lines, flushed in one write, were 200 repaints of one line each."""
    app = PanelApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(FollowingLog)
        log.write("edits:")
        await pilot.pause()
        assert log.render_line(0).text.startswith("edits:")  # drawn, and kept drawn
        repaints = calls_to(monkeypatch, ScrollView, "refresh_lines")
        log.write(" 30 files\n" + "".join(f"  ✎ create f{n}.py\n" for n in range(30)))
        await pilot.pause()
        assert len(repaints) == 1
        assert log.line_count == 31
        assert log.scroll_y == log.max_scroll_y > 0
        shown = [
            log.render_line(y).text.rstrip() for y in range(log.scrollable_content_region.height)
        ]
        assert shown[-1] == "  ✎ create f29.py"
        log.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        assert log.render_line(0).text.startswith("edits: 30 files")  # the line continued


async def test_a_write_that_drops_the_oldest_lines_shows_the_newest() -> None:
    app = PanelApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(FollowingLog)
        log.max_lines = 10
        log.write("".join(f"old {n}\n" for n in range(8)))
        log.write("".join(f"new {n}\n" for n in range(6)))
        await pilot.pause()
        assert list(log.lines)[-2:] == ["new 5", ""]
        log.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        assert log.render_line(0).text.startswith("old 5")
