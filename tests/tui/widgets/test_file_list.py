"""The file list marks a file the person edited by hand (issue 25, item 7)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from orch_tui.core.domain.proposal import Decisions, FileChange, Proposal
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
