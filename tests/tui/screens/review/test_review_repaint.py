"""What a review key repaints on the review screen (issue 26, item 4: big proposals).

A key changes the file list, the diff and the status line. Textual repaints every widget
that overlaps the bounding box of what changed, so a region that strays below the status
line also redraws the tabs and the model's log; a full layout redraws everything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region

from tests.support.e2e_support import attempt_turns
from tests.support.tui_support import SIZE, count_layouts, make_tui_project, wait_for_review

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _fast_workspace_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def texts(hunks: int, changed: int, gap: int = 20) -> tuple[str, str]:
    """A file's old and new text: ``hunks`` runs of ``changed`` changed lines."""
    old, new = [], []
    for n in range(hunks * (gap + changed)):
        old.append(f"value_{n} = {n}\n")
        new.append(f"value_{n} = {n}{' + 1' if n % (gap + changed) >= gap else ''}\n")
    return "".join(old), "".join(new)


def record_repaints(
    screen: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Region], list[bool]]:
    """The screen regions each refresh repaints, and whether each layout was a full one."""
    regions: list[Region] = []
    refresh = screen._compositor_refresh

    def compositor_refresh() -> None:
        regions.extend(screen._compositor._dirty_regions)
        refresh()

    monkeypatch.setattr(screen, "_compositor_refresh", compositor_refresh)
    return regions, count_layouts(screen, monkeypatch)


async def test_review_keys_repaint_nothing_below_the_status_line_and_lay_nothing_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = texts(hunks=3, changed=40)  # each hunk taller than the diff pane
    paths = [f"pkg/mod_{n}.py" for n in range(6)]
    edits = [("create", path, new) for path in paths]
    project = make_tui_project(
        tmp_path, [attempt_turns("Big.", edits)], seed=dict.fromkeys(paths, old)
    )
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("]")  # the first key after the screen opened settles more than the diff
        await pilot.pause(0.3)
        status = screen.query_one("#review-status").region
        regions, layouts = record_repaints(screen, monkeypatch)
        strays: list[tuple[str, Region]] = []
        for key in ["y", "n", "]", "}", "{", "["]:
            regions.clear()
            await pilot.press(key)
            await pilot.pause()
            strays += [(key, region) for region in regions if region.bottom > status.bottom]
        decided = screen.session is not None and screen.session.counts()[:2]

    assert decided == (1, 1)  # y and n decided the hunks they were on
    assert strays == []
    assert True not in layouts  # a full layout repaints every widget on the screen
