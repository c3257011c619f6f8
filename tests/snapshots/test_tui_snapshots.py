"""Snapshots of the review screen in each theme and both diff layouts, and on small terminals.

Deterministic by construction: a fixed terminal size, the scripted model, a frozen header
clock, a fixed run id, and the picture taken only after the trial run has reported.
Update with ``pytest tests/test_tui_snapshots.py --snapshot-update`` after a deliberate change.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Log

from orch_tui.themes import DEFAULT_THEME, THEMES
from orch_tui.tui.app import OrchApp
from tests.support.tui_support import (
    SIZE,
    make_tui_project,
    wait_for,
    wait_for_review,
    wait_for_trial,
)


def review_app(tmp_path: Path, theme: str, layout: str) -> OrchApp:
    project = make_tui_project(tmp_path)
    # The status line names the test command: "python3" there, not this machine's venv path.
    config_text = (tmp_path / "orchestrator.toml").read_text()
    config_text = re.sub(r"^python = .*$", 'python = "python3"', config_text, count=1, flags=re.M)
    (tmp_path / "orchestrator.toml").write_text(
        config_text + f'\n[ui]\ntheme = "{theme}"\ndiff_layout = "{layout}"\n'
    )
    return project.app()


def first_hunk_accepted(app: OrchApp) -> Callable[[Any], Awaitable[None]]:
    """The picture is taken after ``y`` on the first hunk and the trial run's report."""

    async def run_before(pilot: Any) -> None:
        screen = await wait_for_review(pilot, app)
        await pilot.press("y")
        await wait_for_trial(pilot, screen)
        # The model log scrolls to its end after a refresh; under load the picture could
        # otherwise catch it a few lines short.
        log = screen.query_one("#model-log", Log)
        await wait_for(pilot, lambda: log.scroll_y >= log.max_scroll_y, "the model log's end")
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize("layout", ["split", "unified"])
def test_review_screen(snap_compare: Any, tmp_path: Path, theme: str, layout: str) -> None:
    app = review_app(tmp_path, theme, layout)
    assert snap_compare(app, terminal_size=SIZE, run_before=first_hunk_accepted(app))


@pytest.mark.parametrize(
    "size", [(80, 24), (100, 30), (120, 40)], ids=["80x24", "100x30", "120x40"]
)
def test_review_screen_on_a_small_terminal(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    """The diff takes the whole width and most rows; the spec and timeline fold away; the
    footer keeps Quit, Help and History and drops the longest hints whole, never half a key."""
    app = review_app(tmp_path, DEFAULT_THEME, "split")
    assert snap_compare(app, terminal_size=size, run_before=first_hunk_accepted(app))
