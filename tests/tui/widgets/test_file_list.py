"""The file list marks a file the person edited by hand (issue 25, item 7) and repaints only the
lines a move or a decision changes (issue 26, item 4)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from orch_tui.core.domain.proposal import Decisions, FileChange, HunkDecision, Proposal
from orch_tui.tui.widgets.file_list import FileList, file_prompt
from tests.support.painted_lines import PaintedLines

CHANGE = FileChange("app.py", "x = 1\n", "x = 2\n")


def test_an_edited_file_shows_an_edited_mark_and_another_does_not() -> None:
    assert "✎ edited" in file_prompt(CHANGE, [], edited=True).plain
    assert "✎" not in file_prompt(CHANGE, []).plain


@pytest.mark.anyio
async def test_the_list_marks_the_files_in_the_decisions_edits() -> None:
    other = FileChange("lib.py", "y = 1\n", "y = 2\n")
    proposal = Proposal(attempt=0, changes=(CHANGE, other))
    decisions = Decisions(edits={"app.py": "x = 3\n"})

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield FileList()

    app = Host()
    async with app.run_test():
        files = app.query_one(FileList)
        files.show(proposal, decisions)
        lines = [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]
    assert ["✎ edited" in line for line in lines] == [True, False]


@pytest.mark.anyio
async def test_a_decision_redraws_only_its_files_line_as_show_would() -> None:
    """``show_decided`` gives the decided file the line a full ``show`` gives it, and leaves
    the other lines as they were."""
    proposal = Proposal(0, tuple(FileChange(f"f{n}.py", "a\nb\n", f"a\nB{n}\n") for n in range(5)))
    decisions = Decisions.undecided(proposal)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield FileList()

    async with Host().run_test() as pilot:
        files = pilot.app.query_one(FileList)
        files.show(proposal, decisions)
        decisions.set("f2.py", 0, HunkDecision.ACCEPTED)
        files.show_decided(2, proposal.changes[2], decisions)
        partly = [str(files.get_option_at_index(n).prompt) for n in range(5)]
        files.show(proposal, decisions)
        whole = [str(files.get_option_at_index(n).prompt) for n in range(5)]
    assert partly == whole and "✓" in partly[2] and "● 1" in partly[3]


class PaintedFileList(PaintedLines, FileList):
    """Records the lines (in view) Textual asks it for: the dirty ones only."""


def many_files(count: int) -> Proposal:
    return Proposal(0, tuple(FileChange(f"f{n:03}.py", "a\n", f"B{n}\n") for n in range(count)))


@pytest.mark.anyio
async def test_a_move_or_a_decision_repaints_only_the_lines_that_change() -> None:
    """On a 200-file proposal Textual's OptionList repainted every line in view for each
    move of the highlight and, after a decision, rendered every option's text again."""
    proposal = many_files(200)
    decisions = Decisions.undecided(proposal)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield PaintedFileList()

    async with Host().run_test(size=(60, 12)) as pilot:
        files = pilot.app.query_one(PaintedFileList)
        files.show(proposal, decisions)
        files.highlighted = 2
        await pilot.pause()
        files.painted = []
        files.highlighted = 3
        await pilot.pause()
        moved = sorted(files.painted)
        files.painted = []
        decisions.set("f003.py", 0, HunkDecision.ACCEPTED)
        files.show_decided(3, proposal.changes[3], decisions)
        await pilot.pause()
        decided = sorted(files.painted)
        shown = [files.render_line(y).text for y in range(5)]

    assert moved == [2, 3]
    assert decided == [3]
    assert "f003.py" in shown[3] and "✓" in shown[3] and "● 1" in shown[2]


@pytest.mark.anyio
async def test_a_move_past_the_bottom_scrolls_and_repaints_nothing_below_the_list() -> None:
    proposal = many_files(50)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield PaintedFileList()

    async with Host().run_test(size=(60, 12)) as pilot:
        files = pilot.app.query_one(PaintedFileList)
        files.show(proposal, Decisions.undecided(proposal))
        await pilot.pause()
        height = files.scrollable_content_region.height
        files.painted = []
        files.highlighted = height + 5
        await pilot.pause()
        top = round(files.scroll_y)
        bottom_line = files.render_line(height - 1).text

    assert top > 0 and f"f{height + 5:03}.py" in bottom_line  # scrolled to the highlight
    assert files.painted and max(files.painted) < height
