"""The shared half of the attempt and compare screens: a file list beside a read-only diff."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from orch_tui.core.domain.proposal import ChangeKind, FileChange, HunkDecision
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.tui.messages import SettingChanged
from orch_tui.tui.screens.history.themed import ThemedScreen, palette
from orch_tui.tui.widgets.diff.view import DiffView

_KIND_VARIABLES = {
    ChangeKind.ADDED: "diff-added-sign",
    ChangeKind.MODIFIED: "diff-modified-sign",
    ChangeKind.DELETED: "diff-removed-sign",
}


def _decision_marks(decisions: Sequence[HunkDecision]) -> str:
    accepted = sum(d is not HunkDecision.REJECTED for d in decisions)
    rejected = len(decisions) - accepted
    return f"✓{accepted}" + (f" ✗{rejected}" if rejected else "")


def remembered_layout(app: App[object]) -> str:
    """The diff layout the person last chose with ``v`` in the review or here: the app's
    ``[ui] diff_layout``, which the app keeps in step with ui.json; ``split`` in an app
    without a config (a test's bare host)."""
    config = getattr(app, "config", None)
    return str(config.ui.diff_layout) if config is not None else "split"


class FilesAndDiff(ThemedScreen):
    """A file list beside a read-only DiffView; ``{``/``}`` and the list pick the file."""

    FIRST_FOCUS = "#files"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right_curly_bracket", "file(1)", "Next file", id="history.next_file"),
        Binding("left_curly_bracket", "file(-1)", "Prev file", id="history.prev_file"),
        Binding("v", "layout", "Split/unified", id="history.layout"),
        Binding("escape", "back", "Back", id="history.diff_back"),
    ]

    files: list[tuple[FileChange, list[HunkDecision]]]

    def compose_files(self) -> ComposeResult:
        with Horizontal(classes="files-and-diff"):
            yield OptionList(id="files")
            diff = DiffView(id="diff")
            diff.set_reactive(DiffView.diff_layout, remembered_layout(self.app))
            yield diff

    def repaint_files(self, empty: str) -> None:
        style = palette(self)
        files = self.query_one("#files", OptionList)
        highlighted = files.highlighted
        files.clear_options()
        for change, decisions in self.files:
            prompt = Text.assemble(
                (change.kind.value, style(_KIND_VARIABLES[change.kind], bold=True)),
                f" {escape_controls(change.path)} ",
                (f"+{change.added}", style("diff-added-sign")),
                " ",
                (f"-{change.removed}", style("diff-removed-sign")),
                f"  {_decision_marks(decisions)}" if decisions else "",
            )
            files.add_option(Option(prompt))
        if not self.files:
            files.add_option(Option(Text(empty), disabled=True))
            self.query_one("#diff", DiffView).show(None, [])
            return
        files.highlighted = highlighted if highlighted is not None else 0

    @on(OptionList.OptionHighlighted, "#files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if 0 <= event.option_index < len(self.files):
            change, decisions = self.files[event.option_index]
            self.query_one("#diff", DiffView).show(change, decisions)

    def action_file(self, step: int) -> None:
        files = self.query_one("#files", OptionList)
        if self.files:
            current = files.highlighted or 0
            files.highlighted = (current + step) % len(self.files)

    def action_layout(self) -> None:
        diff = self.query_one("#diff", DiffView)
        diff.diff_layout = "unified" if diff.diff_layout == "split" else "split"
        self.post_message(SettingChanged("diff_layout", diff.diff_layout))

    def action_back(self) -> None:
        self.dismiss(None)
