"""FileList: the files of a proposal, one line each, with their review progress.

``A src/app.py  +12 -3  ● 2``: the change kind, the path, lines added and removed, and how many
hunks are still undecided (``✓`` once every hunk is decided, ``✗`` when all were rejected),
and ``✎ edited`` when the person edited the proposed text by hand (``e``).
Colours come from the ``$diff-*`` theme variables.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from orch_tui.core.domain.proposal import ChangeKind, Decisions, FileChange, HunkDecision, Proposal
from orch_tui.core.domain.proposal import effective_proposal as with_edits
from orch_tui.core.util.terminal_text import escape_controls

__all__ = ["FileList", "file_prompt"]

_KIND_STYLES = {
    ChangeKind.ADDED: "bold $diff-added-sign",
    ChangeKind.MODIFIED: "bold $diff-modified-sign",
    ChangeKind.DELETED: "bold $diff-removed-sign",
}


def file_prompt(
    change: FileChange,
    decisions: Sequence[HunkDecision],
    path_width: int = 0,
    *,
    edited: bool = False,
) -> Content:
    """One file's line in the list; the path is padded to ``path_width`` to align counts."""
    undecided = sum(1 for d in decisions if d is HunkDecision.UNDECIDED)
    if undecided:
        status = (f"● {undecided}", "$diff-gutter-undecided")
    elif decisions and all(d is HunkDecision.REJECTED for d in decisions):
        status = ("✗", "bold $diff-gutter-rejected")
    else:
        status = ("✓", "bold $diff-gutter-accepted")
    return Content.assemble(
        (change.kind.value, _KIND_STYLES[change.kind]),
        " ",
        escape_controls(change.path).ljust(path_width),
        "  ",
        (f"+{change.added}", "$diff-added-sign"),
        " ",
        (f"-{change.removed}", "$diff-removed-sign"),
        "  ",
        status,
        ("  ✎ edited", "bold $diff-modified-sign") if edited else "",
    )


class FileList(OptionList):
    """The proposal's files; enter or a click on one posts :class:`FileList.Selected`.

    A move of the highlight repaints the two lines it leaves and enters, and a decision the
    decided file's line: Textual's OptionList repaints every line it shows for either (and
    renders each option's text again after a prompt changes).
    """

    highlighted: reactive[int | None] = reactive(None, repaint=False)
    """The highlighted file; its watcher repaints only the lines that change."""

    _path_width = 0
    """The paths' width in the last :meth:`show` (lines are aligned on it)."""
    _highlight_shown: int | None = None
    """The option drawn highlighted: the line to repaint when the highlight moves on."""

    class Selected(Message):
        """The person picked the file at ``index`` (in the proposal's path order)."""

        def __init__(self, file_list: FileList, index: int) -> None:
            super().__init__()
            self.file_list = file_list
            self.index = index

        @property
        def control(self) -> FileList:
            return self.file_list

    def show(self, proposal: Proposal, decisions: Decisions) -> None:
        """List the proposal's files (with the person's edits), keeping the current one."""
        current = self.highlighted
        changes = with_edits(proposal, decisions).changes
        width = max((len(escape_controls(change.path)) for change in changes), default=0)
        self._path_width = width
        self.set_options(
            Option(
                file_prompt(
                    change, decisions.for_file(change), width, edited=change.path in decisions.edits
                )
            )
            for change in changes
        )
        if changes:
            self.highlighted = min(current or 0, len(changes) - 1)

    def show_decided(self, index: int, change: FileChange, decisions: Decisions) -> None:
        """Redraw one file's line after a decision on it (the others are as they were): on
        a 200-file proposal, rebuilding every line made each ``y`` cost 40 ms of CPU."""
        prompt = file_prompt(
            change,
            decisions.for_file(change),
            self._path_width,
            edited=change.path in decisions.edits,
        )
        option = self.get_option_at_index(index)
        if self._heights.get(index) != 1 or prompt.cell_length > self._text_width:
            self.replace_option_prompt_at_index(index, prompt)  # its height may change
            return
        option._set_prompt(prompt)
        cache = self._option_render_cache
        for key in [key for key in cache.keys() if key[0] is option]:
            cache.discard(key)
        self._refresh_option(index)

    @property
    def _text_width(self) -> int:
        """Columns an option's text has before it wraps."""
        padding = self.get_component_styles("option-list--option").padding
        gutter = self._get_left_gutter_width()
        return self.scrollable_content_region.width - gutter - padding.width

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)  # scrolls it into view (a scroll repaints all)
        for index in {self._highlight_shown, highlighted}:
            if index is not None:
                self._refresh_option(index)
        self._highlight_shown = highlighted

    def _refresh_option(self, index: int) -> None:
        """Repaint the lines of the option at ``index`` that are in view (a region below the
        list would be cut to the pane around it, repainting the diff beneath)."""
        line = self._index_to_line.get(index)
        if line is None:
            return
        top = round(self.scroll_y)
        start = max(line, top)
        stop = min(line + self._heights[index], top + self.scrollable_content_region.height)
        if start < stop:
            self.refresh_lines(start, stop - start)

    @property
    def current(self) -> int | None:
        """Index of the highlighted file, or None when the list is empty."""
        return self.highlighted

    @current.setter
    def current(self, index: int | None) -> None:
        self.highlighted = index

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Selected(self, event.option_index))
