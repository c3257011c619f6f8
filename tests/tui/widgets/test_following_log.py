"""FollowingLog's batched writes: held for a moment, written together, in order."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from orch_tui.tui.widgets.following_log import BATCH_S, FollowingLog

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
