"""The stop and needs-help dialogs at 80x24 and 120x40: the whole message (scrolling when it
is long), the advice and the keys on screen (issue 25, item 6)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widget import Widget

from orch_tui.core.domain.asking import Question, QuestionSource
from orch_tui.themes import DEFAULT_THEME
from orch_tui.tui.app import OrchApp
from orch_tui.tui.screens.dialogs import StoppedScreen
from orch_tui.tui.screens.needs_help import NeedsHelpScreen
from tests.snapshots.test_tui_snapshots import review_app
from tests.support.tui_support import wait_for_review

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])

FAILING = [f"tests/test_report.py::test_column_{n} fails: AssertionError" for n in range(12)]
STOP_REASON = "retries exhausted: checks failed: 12 failed after 5 patch attempts.\n" + "\n".join(
    FAILING
)
STUCK = Question(
    text=(
        "The run is stuck (retries exhausted: checks failed: 12 failed after 5 patch attempts). "
        "These tests still fail: " + ", ".join(f"test_column_{n}" for n in range(12)) + ". "
        "How should the model go on?"
    ),
    options=["Explain what the tests expect", "Relax or fix the tests", "Give up on this run"],
    recommendation="Explain what the failing tests expect, in a sentence or two.",
    source=QuestionSource.STUCK,
)


def stopped() -> StoppedScreen:
    return StoppedScreen(
        "The run stopped",
        STOP_REASON,
        can_retry=False,
        can_continue=True,
        advice="Start again with --fresh, or change the spec.",
    )


def dialog_over_review(
    app: OrchApp, dialog: Callable[[], Screen[Any]]
) -> Callable[[Any], Awaitable[None]]:
    async def run_before(pilot: Any) -> None:
        await wait_for_review(pilot, app)
        app.push_screen(dialog())
        await pilot.pause()
        await pilot.pause()

    return run_before


def on_screen(widget: Widget, screen: Screen[Any]) -> bool:
    """The whole of ``widget`` lies within the terminal."""
    region = widget.region
    return region.height > 0 and screen.region.contains_region(region)


@SIZES
def test_the_stop_dialog(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    app = review_app(tmp_path, DEFAULT_THEME, "split")
    assert snap_compare(app, terminal_size=size, run_before=dialog_over_review(app, stopped))


@SIZES
def test_the_needs_help_dialog(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    app = review_app(tmp_path, DEFAULT_THEME, "split")
    run_before = dialog_over_review(app, lambda: NeedsHelpScreen(STUCK))
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.anyio
async def test_at_80x24_the_advice_and_keys_show_and_the_message_scrolls_to_its_end(
    tmp_path: Path,
) -> None:
    app = review_app(tmp_path, DEFAULT_THEME, "split")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_review(pilot, app)
        app.push_screen(stopped())
        await pilot.pause()
        dialog = app.screen
        for part in ("#stopped-title", "#stopped-advice", "#stopped-keys"):
            assert on_screen(dialog.query_one(part), dialog), part
        body = dialog.query_one("#stopped-body")
        assert on_screen(body, dialog)
        body.scroll_end(animate=False)
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y > 0  # long: it scrolls, and to the last test
        await pilot.press("escape")
        app.push_screen(NeedsHelpScreen(STUCK))
        await pilot.pause()
        asking = app.screen
        for part in ("#needs-help-title", "#needs-help-options", "#guidance", "#needs-help-keys"):
            assert on_screen(asking.query_one(part), asking), part
        await pilot.press("escape")
        await pilot.press("q")
