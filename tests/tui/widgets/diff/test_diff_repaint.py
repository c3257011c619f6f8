"""What a key repaints in the diff view, and what it finds made by the idle work before it."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import ComposeResult
from textual.geometry import Region

from orch_tui.core.domain.proposal import FileChange, HunkDecision
from orch_tui.tui.widgets.diff.view import DiffView
from tests.tui.widgets.diff.test_diff_view import DiffApp, numbered, settle_lexing

pytestmark = pytest.mark.anyio
U, A = HunkDecision.UNDECIDED, HunkDecision.ACCEPTED


def hunks_of(count: int, changed: int, gap: int = 30) -> FileChange:
    """``count`` hunks of ``changed`` changed lines each, ``gap`` unchanged lines apart."""
    lines = count * (changed + gap)
    old = numbered(lines)
    new = "".join(
        f"value_{i} = {i}{' + 1' if i % (changed + gap) >= gap else ''}\n" for i in range(lines)
    )
    return FileChange("mod.py", old, new)


class RecordingDiffView(DiffView):
    """Records the regions it asks Textual to repaint and the lines it styles."""

    def __init__(self) -> None:
        super().__init__()
        self.regions: list[Region] = []
        self.styled = 0

    def refresh(self, *regions: Region, **options: Any) -> Any:
        self.regions.extend(regions)
        return super().refresh(*regions, **options)

    def _styled_text(self, key: tuple[Any, ...], of: Any = None) -> Any:
        self.styled += 1
        return super()._styled_text(key, of)


class RecordingApp(DiffApp):
    def compose(self) -> ComposeResult:
        yield RecordingDiffView()


async def test_a_decision_on_a_hunk_taller_than_the_view_repaints_only_the_rows_in_view() -> None:
    """A region past the view's bottom is cut to the pane around the view, not to the view:
    the screen would repaint whatever lies below the diff (the review screen's status line,
    tabs and log) on every ``y`` or ``n``."""
    app = RecordingApp(hunks_of(2, changed=60), (U, U))
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(RecordingDiffView)
        await settle_lexing(pilot, view)
        height = view.scrollable_content_region.height
        assert len(view.rows.hunk_rows(0)) > 2 * height
        view.regions.clear()
        view.set_decisions((A, U))
        regions = list(view.regions)
        await pilot.pause()

    assert regions  # the hunk's rows in view are repainted with their new mark
    assert all(0 <= region.y and region.bottom <= height for region in regions)


async def test_the_next_hunks_rows_are_styled_while_the_reviewer_reads() -> None:
    """Once the view is still, the idle work styles the next hunk's screen: ``]`` (and ``y``,
    ``n``, which go there) then only assembles rows from lines already styled."""
    app = RecordingApp(hunks_of(4, changed=10), (U,) * 4)
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(RecordingDiffView)
        await settle_lexing(pilot, view)
        view.styled = 0
        view.cursor_hunk = 1
        await pilot.pause()
        styled_by_the_move = view.styled
        top = round(view.scroll_y)
        shown = [view.render_line(y).text for y in range(view.scrollable_content_region.height)]

    assert top > 0  # the move scrolled to rows not shown before
    assert styled_by_the_move == 0
    assert any("value_71 = 71 + 1" in line for line in shown)  # hunk 1's first changed line


@pytest.mark.parametrize("layout", ["split", "unified"])
async def test_the_next_files_first_screen_is_styled_while_the_reviewer_reads(layout: str) -> None:
    """``}`` opens the next file on its first hunk: its lines are styled in the idle time
    before it (under the keys painting looks them up by), so the switch styles none."""
    app = RecordingApp(hunks_of(3, changed=8), (U,) * 3, layout=layout)
    following = hunks_of(3, changed=6)
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(RecordingDiffView)
        view.lex_ahead([following])
        await settle_lexing(pilot, view)
        view.styled = 0
        view.show(following, (U,) * 3)
        await pilot.pause()
        styled_by_the_switch = view.styled
        shown = [view.render_line(y).text for y in range(view.scrollable_content_region.height)]

    assert styled_by_the_switch == 0
    assert any("value_30 = 30 + 1" in line for line in shown)  # its first changed line
