"""DiffView: a read-only, VS Code-style diff of one file change (Textual's Line API).

The widget: what is shown (file, decisions, folds, layout), the cursor hunk and keys, the
scrollable size. Rows come from :mod:`rows`, drawn by :mod:`paint`;
:mod:`idle_work` lexes and styles ahead of the view while the reviewer reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style

from orch_tui.core.domain.proposal import HunkDecision
from orch_tui.tui.widgets.diff.file_cache import FileCache, cached_file
from orch_tui.tui.widgets.diff.highlight import LineHighlighter
from orch_tui.tui.widgets.diff.idle_work import IdleWork
from orch_tui.tui.widgets.diff.lex_ahead import LexAhead
from orch_tui.tui.widgets.diff.paint import MARK_WIDTH, decision_at
from orch_tui.tui.widgets.diff.rows import (
    CONTEXT_LINES,
    DiffRows,
    Layout,
    Ranges,
    RowKind,
    build_rows,
)

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

__all__ = ["DiffView"]

_EMPTY_ROWS = DiffRows(Layout.SPLIT, [], [])


class DiffView(IdleWork, can_focus=True):
    """A side-by-side (``split``) or ``unified`` diff of one FileChange."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--added",
        "diff-view--removed",
        "diff-view--added-word",
        "diff-view--removed-word",
        "diff-view--added-sign",
        "diff-view--removed-sign",
        "diff-view--line-number",
        "diff-view--filler",
        "diff-view--fold",
        "diff-view--gutter-accepted",
        "diff-view--gutter-rejected",
        "diff-view--gutter-undecided",
        "diff-view--cursor",
    }

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        color: $foreground;
        /* Always there, so a short file after a long one (or back) keeps the layout: no
           screen-wide layout pass for a scrollbar that comes or goes, no text shifting sideways. */
        overflow-y: scroll;
    }
    DiffView > .diff-view--added { background: $diff-added-background; }
    DiffView > .diff-view--removed { background: $diff-removed-background; }
    DiffView > .diff-view--added-word { background: $diff-added-word; }
    DiffView > .diff-view--removed-word { background: $diff-removed-word; }
    DiffView > .diff-view--added-sign { color: $diff-added-sign; text-style: bold; }
    DiffView > .diff-view--removed-sign { color: $diff-removed-sign; text-style: bold; }
    DiffView > .diff-view--line-number { color: $diff-line-number; }
    DiffView > .diff-view--filler { color: $diff-filler; }
    DiffView > .diff-view--fold {
        color: $diff-fold;
        background: $diff-fold-background;
        text-style: italic;
    }
    DiffView > .diff-view--gutter-accepted { color: $diff-gutter-accepted; text-style: bold; }
    DiffView > .diff-view--gutter-rejected { color: $diff-gutter-rejected; text-style: bold; }
    DiffView > .diff-view--gutter-undecided { color: $diff-gutter-undecided; text-style: bold; }
    DiffView > .diff-view--cursor { background: $diff-cursor; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Long lines are cut at the pane's edge: the footer says how to see the rest.
        Binding("left", "scroll_left", "Scroll sideways", key_display="←→", id="diff.scroll_left"),
        Binding("right", "scroll_right", "Scroll right", show=False, id="diff.scroll_right"),
        Binding("z", "toggle_folds", "Unfold all", show=False, id="diff.toggle_folds"),
        Binding("o", "expand_folds", "More context", show=False, id="diff.expand_folds"),
        Binding("j", "scroll_down", "Down", show=False, id="diff.scroll_down"),
        Binding("k", "scroll_up", "Up", show=False, id="diff.scroll_up"),
        Binding("space", "page_down", "Page down", show=False, id="diff.page_down"),
        Binding("b", "page_up", "Page up", show=False, id="diff.page_up"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._change: FileChange | None = None
        self._decisions: list[HunkDecision] = []
        self._weakening: set[int] = set()
        self._rows: DiffRows = _EMPTY_ROWS
        self._expanded: set[int] = set()
        self._unfold_all = False
        self._highlighters: tuple[LineHighlighter, LineHighlighter] | None = None
        self._number_width = 1
        self._longest_line = 0
        self._line_cache: LRUCache[tuple[Any, ...], Strip] = LRUCache(1024)
        self._word_cache: LRUCache[tuple[int, int], tuple[Ranges, Ranges]] = LRUCache(1)
        self._text_cache: LRUCache[tuple[Any, ...], Strip] = LRUCache(1)
        self._files: dict[int, FileCache] = {}
        self._prelex_timer = None
        self._lex_ahead = LexAhead()
        self._ahead: tuple[FileChange, ...] = ()
        self._style_cache: dict[tuple[Any, ...], RichStyle] = {}
        self._syntax_styles: dict[str, Style] = {}

    # ----------------------------------------------------------------- public API

    @property
    def change(self) -> FileChange | None:
        return self._change

    @property
    def rows(self) -> DiffRows:
        """The rows currently laid out (for the review screen and tests)."""
        return self._rows

    @property
    def unfolded(self) -> bool:
        """True while every unchanged region is shown in full."""
        return self._unfold_all

    def show(self, change: FileChange | None, decisions: Sequence[HunkDecision]) -> None:
        """Replace the content: folds reset, cursor on the first hunk, scrolled to the top."""
        self._change = change
        self._decisions = [HunkDecision(d) for d in decisions]
        self._expanded.clear()
        self._unfold_all = False
        if change is None:
            self._weakening = set()
            self._highlighters = None
            self._number_width = 1
            self._longest_line = 0
        else:
            cache = cached_file(self._files, change)
            self._weakening = cache.weakening
            self._highlighters = cache.highlighters
            self._number_width = cache.number_width
            self._longest_line = cache.longest_line
            self._word_cache = cache.words
            self._text_cache = cache.texts
        self._relayout(keep_top=False)
        self.set_reactive(DiffView.cursor_hunk, 0)
        self.scroll_to(0, 0, animate=False)

    def lex_ahead(self, changes: Sequence[FileChange]) -> None:
        """Files the next keys may open (the next, the previous): their first screens are
        lexed while the reviewer is idle."""
        self._ahead = tuple(changes)

    def set_decisions(self, decisions: Sequence[HunkDecision]) -> None:
        """Update the gutter marks only: re-render the rows of the hunks whose mark changed."""
        before = self._decisions
        self._decisions = [HunkDecision(d) for d in decisions]
        count = max(len(before), len(self._decisions))
        self._refresh_hunks(
            *(hunk for hunk in range(count) if self.decision(hunk) != decision_at(before, hunk))
        )

    def _refresh_hunks(self, *hunks: int) -> None:
        """Drop the cached lines of ``hunks``' rows and repaint those of them on screen.

        Only the rows in view: a region past the view's edge is not cut to the widget but
        to the pane around it, so the screen would repaint whatever lies below the diff."""
        top = round(self.scroll_y)
        bottom = top + self.scrollable_content_region.height
        for hunk in set(hunks):
            if not 0 <= hunk < self._rows.hunk_count:
                continue
            rows = self._rows.hunk_rows(hunk)
            for key in [key for key in self._line_cache.keys() if key[0] in rows]:
                self._line_cache.discard(key)
            start, stop = max(rows.start, top), min(rows.stop, bottom)
            if start < stop:
                self.refresh_lines(start, stop - start)

    def toggle_folds(self) -> None:
        """Unfold every unchanged region, or fold them all again."""
        self._unfold_all = not self._unfold_all
        self._expanded.clear()
        self._relayout(keep_top=True)

    def expand_fold(self, fold: int) -> None:
        """Show the unchanged lines of one fold (ids as in ``rows.folds``)."""
        if fold in self._rows.folds:
            self._expanded.add(fold)
            self._relayout(keep_top=True)

    # -------------------------------------------------------------- reactives

    def validate_diff_layout(self, layout: str) -> str:
        return Layout(layout).value

    def watch_diff_layout(self) -> None:
        self._relayout(keep_top=True)

    def validate_cursor_hunk(self, hunk: int) -> int:
        return max(0, min(hunk, self._rows.hunk_count - 1))

    def watch_cursor_hunk(self, previous: int, hunk: int) -> None:
        self._refresh_hunks(previous, hunk)  # their gutters show the cursor
        self.scroll_to_hunk(hunk)
        self._prelex_later()  # the hunks next to this one

    def scroll_to_hunk(self, hunk: int, *, retry: bool = True) -> None:
        """Scroll so the hunk is on screen (nothing moves when it already is)."""
        if not 0 <= hunk < self._rows.hunk_count:
            return
        height = self.scrollable_content_region.height
        if height <= 0:
            if retry:  # not laid out yet: try once more after the next refresh
                self.call_after_refresh(self.scroll_to_hunk, hunk, retry=False)
            return
        rows = self._rows.hunk_rows(hunk)
        top = round(self.scroll_y)
        if rows.start >= top and rows.stop <= top + height:
            return
        lead = min(CONTEXT_LINES, height // 4)
        self.scroll_to(y=max(0, rows.start - lead), animate=False)

    # ---------------------------------------------------------------- actions

    def action_page_down(self) -> None:
        # Not animated: a reviewer paging through a long file wants the page now, not in 600 ms.
        self.scroll_page_down(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_toggle_folds(self) -> None:
        self.toggle_folds()

    def action_expand_folds(self) -> None:
        """Expand the folds just above and below the cursor hunk."""
        around = {self.cursor_hunk, self.cursor_hunk + 1}
        folds = around.intersection(self._rows.folds)
        if folds:
            self._expanded.update(folds)
            self._relayout(keep_top=True)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = round(self.scroll_y) + offset.y
        if not 0 <= index < len(self._rows):
            return
        row = self._rows[index]
        if row.kind is RowKind.FOLD and row.fold is not None:
            self.expand_fold(row.fold)
        elif row.hunk is not None and row.hunk != self.cursor_hunk:
            self.cursor_hunk = row.hunk

    # ---------------------------------------------------------------- layout

    def _relayout(self, *, keep_top: bool) -> None:
        """Rebuild the rows; with ``keep_top`` the line at the top of the view stays there."""
        anchor = self._top_anchor() if keep_top else None
        if self._change is None:
            self._rows = _EMPTY_ROWS
        else:
            self._rows = build_rows(
                self._change,
                self.shown_layout,
                expanded=frozenset(self._expanded),
                unfold_all=self._unfold_all,
                notes=self.noted_hunks,
            )
        self._line_cache.clear()
        self._update_virtual_size()
        if anchor is not None:
            row = self._rows.find(**anchor)
            if row is not None:
                self.scroll_to(y=row, animate=False)
        self.refresh()
        self._prelex_later()

    def _top_anchor(self) -> dict[str, int] | None:
        index = round(self.scroll_y)
        if not 0 <= index < len(self._rows):
            return None
        row = self._rows[index]
        if row.old is not None:
            return {"old": row.old}
        if row.new is not None:
            return {"new": row.new}
        return None

    def _text_width(self, width: int) -> int:
        """Columns available for line text on one side."""
        gutter = self._number_width + 3
        if self.shown_layout == Layout.SPLIT:
            return (width - MARK_WIDTH - 1) // 2 - gutter
        return width - MARK_WIDTH - (self._number_width + 1) - gutter

    def _update_virtual_size(self) -> None:
        """Size the content without a layout pass: the view's own size never depends on it.

        Only a scrollbar shown or hidden lays the screen out (once, with the scrollbars set
        here); a file switch or a layout change that keeps them repaints this widget alone.
        """
        size = self._content_size()
        if size != self.virtual_size:
            self.set_reactive(DiffView.virtual_size, size)
            self._scroll_update(size)  # scrollbars shown or hidden, their thumbs, scroll clamped

    def _content_size(self) -> Size:
        """The rows' size, as wide as the longest line needs beside the scrollbars they call
        for (a vertical one takes columns from the text)."""
        rows = max(len(self._rows), 1)
        width, height = self.container_size
        if not width:
            return Size(0, rows)
        bar_width = self.styles.scrollbar_size_vertical
        vertical = self.styles.overflow_y == "scroll" or rows > height
        overflow = self._overflow(width - bar_width * vertical)
        if overflow and not vertical and rows > height - self.styles.scrollbar_size_horizontal:
            vertical = True  # the horizontal scrollbar takes the row the last line needed
            overflow = self._overflow(width - bar_width)
        return Size(width - bar_width * vertical + overflow, rows)

    def _overflow(self, width: int) -> int:
        """Columns the longest line needs beyond a view ``width`` wide."""
        return max(0, self._longest_line + 1 - self._text_width(width))

    def on_resize(self) -> None:
        self._update_virtual_size()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._prelex_later()
