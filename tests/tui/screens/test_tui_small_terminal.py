"""The review screen on small terminals: the diff keeps real rows, help fits and scrolls, and
the footer says where help is and that long lines scroll sideways."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets._footer import FooterKey

from orch_tui.core.domain.proposal import FileChange, HunkDecision
from orch_tui.tui.screens.dialogs import HelpScreen
from orch_tui.tui.widgets.diff.view import DiffView
from tests.support.tui_support import make_tui_project, wait_for, wait_for_review, wait_for_screen

pytestmark = pytest.mark.anyio
UNDECIDED = HunkDecision.UNDECIDED


@pytest.mark.parametrize(("size", "rows"), [((80, 24), 8), ((100, 30), 12)])
async def test_on_a_small_terminal_the_diff_takes_the_width_and_keeps_rows(
    tmp_path: Path, size: tuple[int, int], rows: int
) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_review(pilot, app)
        diff = screen.query_one(DiffView)
        assert diff.scrollable_content_region.height >= rows
        assert diff.region.width == size[0]
        sidebar = screen.query_one("#sidebar")
        assert not sidebar.display
        await pilot.press("s")
        assert sidebar.display and screen.query_one("#spec-pane").region.height > 0
        await pilot.press("s")
        assert not sidebar.display
        await pilot.press("q")


async def test_on_a_wide_terminal_s_hides_the_spec_and_timeline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The choice holds through a resize. And ``s`` styles no more widgets than hiding the
    sidebar does by itself (none, on the newest Textual): a class set on the screen for it
    restyled all ~60 of the screen's widgets, most of the key's cost (it is the key issue 26's
    first-frame benchmark answers the review screen's readiness with)."""
    project = make_tui_project(tmp_path)
    app = project.app()
    styled: list[DOMNode] = []
    apply = Stylesheet.apply

    def counting(stylesheet: Stylesheet, node: DOMNode, *args: Any, **kwargs: Any) -> None:
        styled.append(node)
        apply(stylesheet, node, *args, **kwargs)

    async with app.run_test(size=(140, 45)) as pilot:
        screen = await wait_for_review(pilot, app)
        sidebar = screen.query_one("#sidebar")
        diff = screen.query_one(DiffView)
        assert sidebar.display and diff.region.width < 140
        await pilot.pause()
        monkeypatch.setattr(Stylesheet, "apply", counting)
        sidebar.display = False  # what hiding it costs by itself, whatever Textual's version
        await pilot.pause()
        by_hiding, styled[:] = len(styled), []
        sidebar.styles.clear_rule("display")  # shown again by the stylesheet, as before
        await pilot.pause()
        assert sidebar.display
        styled.clear()
        await pilot.press("s")
        await pilot.pause()
        assert not sidebar.display and diff.region.width == 140
        assert len(styled) <= by_hiding
        monkeypatch.undo()
        await pilot.resize_terminal(160, 45)
        await pilot.pause()
        assert not sidebar.display and diff.region.width == 160
        await pilot.press("s")
        await pilot.pause()
        assert sidebar.display and diff.region.width < 160
        await pilot.press("q")


def shown_in_footer(widget: Widget) -> bool:
    """Whether a footer key is drawn whole, within the terminal and left of the command
    palette's key when that shows."""
    assert isinstance(widget, FooterKey)
    keys = list(widget.screen.query(FooterKey))
    palette = next(key for key in keys if key.has_class("-command-palette"))
    right_edge = palette.region.x if palette.display else widget.screen.region.right
    return widget.display and widget.region.width > 0 and widget.region.right <= right_edge


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_footer_keeps_quit_help_and_history_and_sideways_scrolling_works(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """At 80 columns the longest hint (sideways scrolling, in the help) makes room for the
    keys a person needs whole; at 160 every key shows. The keys work either way."""
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_review(pilot, app)
        # The footer recomposes once the diff has the focus: on a loaded machine, after the review.
        await wait_for(
            pilot,
            lambda: any(key.description == "Scroll sideways" for key in screen.query(FooterKey)),
            "the diff's keys in the footer",
        )
        await pilot.pause()
        keys = {key.description: key for key in screen.query(FooterKey)}
        assert keys["Scroll sideways"].key_display == "←→"
        assert all(shown_in_footer(keys[name]) for name in ("Help", "History", "Quit"))
        assert shown_in_footer(keys["Scroll sideways"]) == (size == (160, 48))
        diff = screen.query_one(DiffView)
        diff.show(FileChange("long.py", None, "x = '" + "a" * 200 + "'\n"), [UNDECIDED])
        await pilot.pause()
        await pilot.press("right")
        assert diff.scroll_x > 0
        await pilot.press("left")
        assert diff.scroll_x == 0
        await pilot.press("q")


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_help_fits_the_terminal_and_scrolls_to_its_end(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=size) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("question_mark")
        help_screen = await wait_for_screen(pilot, app, HelpScreen, "the help")
        await pilot.pause()
        dialog = help_screen.query_one("#help-dialog")
        assert app.screen.region.contains_region(dialog.region)
        if size == (160, 48):
            assert dialog.max_scroll_y == 0, "the whole help fits at 160x48"
        else:
            assert dialog.max_scroll_y > 0
            await pilot.press("end")
            await pilot.pause()
            assert dialog.scroll_y == dialog.max_scroll_y
        assert "show / hide the spec" in help_screen.query_one(Markdown).source
        await pilot.press("escape")
        await pilot.press("q")
