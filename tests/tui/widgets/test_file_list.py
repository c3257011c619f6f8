"""The file list marks a file the person edited by hand (issue 25, item 7)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from orch_tui.core.domain.proposal import Decisions, FileChange, HunkDecision, Proposal
from orch_tui.tui.widgets.file_list import FileList, file_prompt


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


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
