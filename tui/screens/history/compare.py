"""Two attempts of a run compared: the workspace after one against after the other."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from orch_tui.core.domain.proposal import HunkDecision
from orch_tui.core.history.detail import RunDetail, compare
from orch_tui.tui.screens.history.files_and_diff import FilesAndDiff
from orch_tui.tui.widgets.key_footer import KeyFooter


class CompareScreen(FilesAndDiff):
    """The workspace after attempt ``a`` against after attempt ``b``, file by file."""

    def __init__(self, detail: RunDetail, a: int, b: int) -> None:
        super().__init__()
        self.detail = detail
        self.a, self.b = a, b
        self.files = [
            (change, [HunkDecision.ACCEPTED] * len(change.hunks))
            for change in compare(detail, a, b)
        ]

    def compose(self) -> ComposeResult:
        yield Static(id="compare-title", classes="title")
        yield from self.compose_files()
        yield KeyFooter()

    def repaint(self) -> None:
        count = len(self.files)
        noun = "file differs" if count == 1 else "files differ"
        self.query_one("#compare-title", Static).update(
            Text(
                f"Run {self.detail.summary.run_id} · workspace after attempt {self.a} → after "
                f"attempt {self.b} · {count} {noun}"
            )
        )
        self.repaint_files("(the workspace is the same after both attempts)")
