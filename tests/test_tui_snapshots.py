"""Snapshots of the review screen in each theme and both diff layouts.

Deterministic by construction: a fixed terminal size, the scripted model, a frozen header
clock, a fixed run id, and the picture taken only after the trial run has reported.
Update with ``pytest tests/test_tui_snapshots.py --snapshot-update`` after a deliberate change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orch_tui.themes import THEMES
from tests.tui_support import SIZE, make_tui_project, wait_for_review, wait_for_trial

RUN_ID = "20260101-120000-snap"


@pytest.fixture(autouse=True)
def _deterministic_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setattr("orch_tui.core.engine.new_run_id", lambda: RUN_ID)


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize("layout", ["split", "unified"])
def test_review_screen(snap_compare: Any, tmp_path: Path, theme: str, layout: str) -> None:
    project = make_tui_project(tmp_path)
    config_text = (tmp_path / "orchestrator.toml").read_text()
    (tmp_path / "orchestrator.toml").write_text(
        config_text + f'\n[ui]\ntheme = "{theme}"\ndiff_layout = "{layout}"\n'
    )
    app = project.app()

    async def first_hunk_accepted(pilot: Any) -> None:
        screen = await wait_for_review(pilot, app)
        await pilot.press("y")
        await wait_for_trial(pilot, screen)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=first_hunk_accepted)
