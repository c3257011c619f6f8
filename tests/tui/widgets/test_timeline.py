"""The attempt timeline: its notes, and what a note costs the screen."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from orch_tui.tui.widgets.timeline import Timeline
from tests.support.tui_support import count_layouts

pytestmark = pytest.mark.anyio


class SidebarApp(App[None]):
    """A timeline of fixed height, as in the review screen's sidebar."""

    CSS = "Timeline { height: 8; width: 34; }"

    def compose(self) -> ComposeResult:
        yield Timeline()
        yield Static("below")


def _lines(timeline: Timeline) -> list[str]:
    return [str(option.prompt) for option in timeline.options]


async def test_notes_redraw_the_timeline_without_laying_the_screen_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = SidebarApp()
    async with app.run_test(size=(60, 20)) as pilot:
        timeline = app.query_one(Timeline)
        timeline.note(0, "generating")
        await pilot.pause()
        layouts = count_layouts(app.screen, monkeypatch)
        timeline.note(0, "20 files +5 -3")
        await pilot.pause()
        timeline.note(0, "reviewing")
        timeline.note(1, "patching")
        await pilot.pause()
        await pilot.pause()
        assert layouts == []  # each note a layout of the whole screen before
        assert _lines(timeline) == [
            "#0 generate: generating · 20 files +5 -3 · reviewing",
            "#1 patch: patching",
        ]
        assert timeline.highlighted == 1
        assert timeline.virtual_size.height == 3  # the first line wraps at 30 columns


async def test_a_timeline_longer_than_its_height_scrolls() -> None:
    app = SidebarApp()
    async with app.run_test(size=(60, 20)) as pilot:
        timeline = app.query_one(Timeline)
        for attempt in range(12):
            timeline.note(attempt, "testing")
        await pilot.pause()
        assert timeline.virtual_size.height == 12
        assert timeline.max_scroll_y > 0
        assert timeline.vertical_scrollbar.window_virtual_size == 12
