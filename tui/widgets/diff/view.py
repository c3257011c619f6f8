"""DiffView: a read-only, VS Code-style diff of one file change.

Rendered with Textual's Line API: ``render_line`` builds only the rows on screen, from the row
model in :mod:`tui.widgets.diff_rows`, and keeps the Strips in an LRU cache. Syntax spans
(Pygments, coloured through Textual's highlight theme, i.e. the app theme's variables) and
word-level change ranges are computed the first time a line is shown, so a 20,000-line file
opens and scrolls like a short one.

Every colour comes from a component class whose CSS reads a ``$diff-*`` theme variable
(see :mod:`themes`); nothing is hard-coded here.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.highlight import HighlightTheme
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style
from textual.timer import Timer

from orch_tui.core.domain.proposal import ChangeKind, HunkDecision
from orch_tui.core.util.terminal_text import CONTROL_CODES
from orch_tui.core.workspace.test_guard import weakening_hunks
from orch_tui.tui.widgets.diff.rows import (
    CONTEXT_LINES,
    DiffRows,
    Layout,
    LineHighlighter,
    Ranges,
    Row,
    RowKind,
    build_rows,
    line_text,
    word_ranges,
)

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

__all__ = ["DiffView"]

MARKS: dict[HunkDecision, str] = {
    HunkDecision.ACCEPTED: "✓",
    HunkDecision.REJECTED: "✗",
    HunkDecision.UNDECIDED: "●",
}
"""Gutter symbol on the first row of a hunk; its other rows show ``HUNK_BAR``."""
HUNK_BAR = "▎"
WEAKENING_MARK = "!"
"""Beside the gutter symbol of a test-file hunk that deletes an assert or a test function."""
_MARK_CLASSES = {
    HunkDecision.ACCEPTED: "diff-view--gutter-accepted",
    HunkDecision.REJECTED: "diff-view--gutter-rejected",
    HunkDecision.UNDECIDED: "diff-view--gutter-undecided",
}
_MARK_WIDTH = 2
_DIVIDER = "│"
_FILLER = "╱"
_TAB = "    "
_NO_NEWLINE = "  ⊘ no newline at end of file"
# Control characters would drive the terminal; show them as replacement characters instead.
_CONTROL = {code: "\ufffd" for code in CONTROL_CODES if code != 0x09}

_EMPTY_ROWS = DiffRows(Layout.SPLIT, [], [])

_ADDED = "diff-view--added"
_REMOVED = "diff-view--removed"

FILES_KEPT = 8
"""Files whose highlighting and styled lines stay cached, so going back to one redoes nothing."""
PRELEX_DELAY_S = 0.05
"""After a change of view, how long the widget waits before lexing the lines around it."""
PRELEX_SLICE_S = 0.004
"""Lexing done at a time in the background: a key pressed meanwhile waits at most about this."""
PRELEX_GAP_S = 0.008
"""The pause between two slices of background lexing, for keys and frames to get through."""
PRELEX_ALL_ROWS = 2000
"""A view with at most this many rows (a folded diff) is lexed whole in the background;
a longer one only a few pages around what is shown."""


@dataclass(eq=False)
class _FileCache:
    """What the widget computed for one file: kept while the reviewer moves between files."""

    change: FileChange
    highlighters: tuple[LineHighlighter, LineHighlighter]
    weakening: set[int]
    number_width: int
    longest_line: int
    words: LRUCache[tuple[int, int], tuple[Ranges, Ranges]] = field(
        default_factory=lambda: LRUCache(4096)
    )
    texts: LRUCache[tuple[Any, ...], Strip] = field(default_factory=lambda: LRUCache(4096))
    """Each line's styled text, uncropped: a horizontal scroll only crops it again."""

    @classmethod
    def of(cls, change: FileChange) -> _FileCache:
        lines = (*change.old_lines, *change.new_lines)
        return cls(
            change,
            (
                LineHighlighter(change.path, change.old_lines, _token_style),
                LineHighlighter(change.path, change.new_lines, _token_style),
            ),
            weakening_hunks(change),
            len(str(max(len(change.old_lines), len(change.new_lines), 1))),
            max((len(line) + 3 * line.count("\t") for line in lines), default=0),
        )


class DiffView(ScrollView, can_focus=True):
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

    diff_layout: reactive[str] = reactive(Layout.SPLIT.value, init=False)
    """``"split"`` (side by side) or ``"unified"``."""
    cursor_hunk: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)
    """The hunk under the cursor; setting it scrolls that hunk into view. It repaints only the
    rows of the hunks it leaves and enters (and what a scroll brings), not the whole view."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
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
        self._files: dict[int, _FileCache] = {}
        """Caches of the files shown last, by ``id`` of their FileChange, least recent first."""
        self._prelex_timer: Timer | None = None
        self._prelex_walk: Iterator[tuple[int, int]] | None = None
        """The (side, line) pairs near the view still to lex, as far as background lexing got."""
        self._prelex_stopped_at: list[tuple[int, int]] = []
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
            cache = self._file_cache(change)
            self._weakening = cache.weakening
            self._highlighters = cache.highlighters
            self._number_width = cache.number_width
            self._longest_line = cache.longest_line
            self._word_cache = cache.words
            self._text_cache = cache.texts
        self._relayout(keep_top=False)
        self.set_reactive(DiffView.cursor_hunk, 0)
        self.scroll_to(0, 0, animate=False)

    def _file_cache(self, change: FileChange) -> _FileCache:
        """The caches of ``change``, made the first time it is shown (the most recent last)."""
        cache = self._files.pop(id(change), None)
        if cache is None or cache.change is not change:
            cache = _FileCache.of(change)
        self._files[id(change)] = cache
        while len(self._files) > FILES_KEPT:
            del self._files[next(iter(self._files))]
        return cache

    def set_decisions(self, decisions: Sequence[HunkDecision]) -> None:
        """Update the gutter marks only: re-render the rows of the hunks whose mark changed."""
        before = self._decisions
        self._decisions = [HunkDecision(d) for d in decisions]
        count = max(len(before), len(self._decisions))
        self._refresh_hunks(
            *(hunk for hunk in range(count) if self.decision(hunk) != _at(before, hunk))
        )

    def _refresh_hunks(self, *hunks: int) -> None:
        """Drop the cached lines of ``hunks``' rows and repaint only those rows."""
        for hunk in set(hunks):
            if not 0 <= hunk < self._rows.hunk_count:
                continue
            rows = self._rows.hunk_rows(hunk)
            for key in [key for key in self._line_cache.keys() if key[0] in rows]:
                self._line_cache.discard(key)
            self.refresh_lines(rows.start, len(rows))

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

    def decision(self, hunk: int) -> HunkDecision:
        return _at(self._decisions, hunk)

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

    @property
    def shown_layout(self) -> str:
        """The layout drawn: an added or deleted file has one side only, so it takes the whole
        width (unified) even in split view instead of leaving half the pane hatched."""
        if self._change is not None and self._change.kind in (ChangeKind.ADDED, ChangeKind.DELETED):
            return Layout.UNIFIED.value
        return self.diff_layout

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
            return (width - _MARK_WIDTH - 1) // 2 - gutter
        return width - _MARK_WIDTH - (self._number_width + 1) - gutter

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

    # ------------------------------------------------------- background lexing

    def _prelex_later(self, delay: float = PRELEX_DELAY_S) -> None:
        """Lex the lines around the view soon, while the reviewer reads: the next page, hunk
        or layout then only styles lines Pygments has already seen. The view moved, so the
        walk over the lines near it starts again."""
        self._prelex_walk = None
        self._prelex_stopped_at = []
        if self._prelex_timer is None and self._highlighters is not None and self.is_mounted:
            self._prelex_timer = self.set_timer(delay, self._prelex)

    def _prelex(self) -> None:
        """Lex chunks near the view for about PRELEX_SLICE_S, then let the app run again.

        The walk over the rows goes on where the last slice stopped: started afresh at every
        slice, it would cost more than the lexing (a folded big file has hundreds of rows).
        """
        self._prelex_timer = None
        highlighters = self._highlighters
        if highlighters is None:
            return
        if self._prelex_walk is None:
            self._prelex_walk = self._lines_near_view()
        deadline = time.perf_counter() + PRELEX_SLICE_S
        for side, line in itertools.chain(self._prelex_stopped_at, self._prelex_walk):
            if not highlighters[side].lex_until(line, deadline):
                self._prelex_stopped_at = [(side, line)]  # its chunk is resumed first
                self._prelex_timer = self.set_timer(PRELEX_GAP_S, self._prelex)
                return
        self._prelex_walk = None
        self._prelex_stopped_at = []

    def _lines_near_view(self) -> Iterator[tuple[int, int]]:
        """(side, line) of the rows where the next keys lead: the screens of the next and the
        previous hunk, then the rows below the top of the view, then those above it."""
        rows = self._rows
        top = round(self.scroll_y)
        height = max(1, self.scrollable_content_region.height)
        hunks: list[int] = []
        for hunk in (self.cursor_hunk + 1, self.cursor_hunk - 1):
            if 0 <= hunk < rows.hunk_count:
                first = max(0, rows.hunk_rows(hunk).start - CONTEXT_LINES)
                hunks.extend(range(first, min(len(rows), first + height)))
        if len(rows) <= PRELEX_ALL_ROWS:
            below, above = range(top, len(rows)), range(min(top, len(rows)) - 1, -1, -1)
        else:
            below = range(top, min(len(rows), top + 4 * height))
            above = range(min(top, len(rows)) - 1, max(-1, top - 2 * height - 1), -1)
        for index in (*hunks, *below, *above):
            row = rows[index]
            if row.kind is RowKind.FOLD or row.kind is RowKind.EMPTY:
                continue
            if row.old is not None:
                yield 0, row.old
            if row.new is not None:
                yield 1, row.new

    def notify_style_update(self) -> None:
        """The theme or CSS changed: every cached style and Strip is stale."""
        super().notify_style_update()
        self._style_cache.clear()
        self._text_cache.clear()
        for cache in self._files.values():
            cache.texts.clear()
        self._syntax_styles.clear()
        self._line_cache.clear()

    # ---------------------------------------------------------------- styles

    def _rich(self, classes: tuple[str, ...], syntax: str | None = None) -> RichStyle:
        """The Rich style of text on a line with ``classes`` (the first gives the full style
        with the background beneath it, the others are laid over it) and a syntax style."""
        key = (classes, syntax)
        style = self._style_cache.get(key)
        if style is None:
            visual = self.get_visual_style(*classes[:1])
            for name in classes[1:]:
                visual += self._overlay(name)
            if syntax:
                visual += self._syntax_style(syntax)
            style = self._style_cache[key] = visual.rich_style
        return style

    def _overlay(self, name: str) -> Style:
        """Only what a component class sets itself (its colours may be translucent)."""
        styles = self.get_component_styles(name)
        text = styles.text_style
        return Style(
            styles.background if styles.has_rule("background") else None,
            styles.color if styles.has_rule("color") else None,
            bold=text.bold,
            italic=text.italic,
            underline=text.underline,
        )

    def _syntax_style(self, syntax: str) -> Style:
        style = self._syntax_styles.get(syntax)
        if style is None:
            try:
                style = self.app.stylesheet.parse_style(syntax)
            except Exception:  # a highlight style the current theme cannot express
                style = Style()
            self._syntax_styles[syntax] = style
        return style

    # -------------------------------------------------------------- rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        key = (index, width, self.shown_layout, scroll_x)
        strip = self._line_cache.get(key)
        if strip is None:
            strip = self._render_row(index, width, scroll_x)
            self._line_cache[key] = strip
        return strip

    def _render_row(self, index: int, width: int, scroll_x: int) -> Strip:
        base = self._rich(())
        if not 0 <= index < len(self._rows):
            if index == 0:
                message = "No file selected" if self._change is None else "No changes"
                segments = [Segment(" " * _MARK_WIDTH + message, self._rich(("diff-view--fold",)))]
                return Strip(segments).crop_extend(0, width, base)
            return Strip.blank(width, base)
        row = self._rows[index]
        segments = self._mark(row, index)
        if row.kind is RowKind.FOLD or row.kind is RowKind.EMPTY:
            segments.append(self._note(row))
            fill = self._rich(("diff-view--fold",)) if row.kind is RowKind.FOLD else base
            return Strip(segments).crop_extend(0, width, fill)
        if self.shown_layout == Layout.SPLIT:
            segments.extend(self._split(row, width, scroll_x))
        else:
            segments.extend(self._unified(row, width, scroll_x))
        return Strip(segments).crop_extend(0, width, base)

    def _mark(self, row: Row, index: int) -> list[Segment]:
        if row.hunk is None:
            return [Segment(" " * _MARK_WIDTH, self._rich(()))]
        decision = self.decision(row.hunk)
        first = self._rows.hunk_rows(row.hunk).start
        symbol = MARKS[decision] if index == first else HUNK_BAR
        classes: tuple[str, ...] = (_MARK_CLASSES[decision],)
        if row.hunk == self.cursor_hunk:
            classes += ("diff-view--cursor",)
        if index == first and row.hunk in self._weakening:
            warning = (*classes[1:], "diff-view--gutter-rejected")
            return [
                Segment(symbol, self._rich(classes)),
                Segment(WEAKENING_MARK, self._rich(warning)),
            ]
        return [Segment(symbol + " ", self._rich(classes))]

    def _note(self, row: Row) -> Segment:
        indent = " " * (self._number_width + 1)
        if row.kind is RowKind.FOLD:
            noun = "line" if row.hidden == 1 else "lines"
            text = f"{indent}⋯ {row.hidden} unchanged {noun}"
            return Segment(text, self._rich(("diff-view--fold",)))
        return Segment(f"{indent}(empty file)", self._rich(("diff-view--line-number",)))

    def _number(self, value: int | None, line_class: str | None, cursor: bool) -> Segment:
        classes = (*_classes(line_class), "diff-view--line-number")
        if cursor:
            classes += ("diff-view--cursor",)
        text = " " * self._number_width if value is None else f"{value + 1:>{self._number_width}}"
        return Segment(text, self._rich(classes))

    def _sign(self, line_class: str | None) -> Segment:
        if line_class == _ADDED:
            return Segment("+", self._rich((_ADDED, "diff-view--added-sign")))
        if line_class == _REMOVED:
            return Segment("-", self._rich((_REMOVED, "diff-view--removed-sign")))
        return Segment(" ", self._rich(()))

    def _split(self, row: Row, width: int, scroll_x: int) -> list[Segment]:
        left_width = (width - _MARK_WIDTH - 1) // 2
        right_width = width - _MARK_WIDTH - 1 - left_width
        cursor = row.hunk is not None and row.hunk == self.cursor_hunk
        changed = row.kind is RowKind.CHANGED
        words = self._words(row.old, row.new) if changed else ((), ())
        old_class = None if row.kind is RowKind.CONTEXT else _REMOVED
        new_class = None if row.kind is RowKind.CONTEXT else _ADDED
        segments = self._side(0, row.old, old_class, words[0], left_width, scroll_x, cursor)
        segments.append(Segment(_DIVIDER, self._rich(("diff-view--line-number",))))
        segments.extend(self._side(1, row.new, new_class, words[1], right_width, scroll_x, cursor))
        return segments

    def _side(
        self,
        side: int,
        line: int | None,
        line_class: str | None,
        words: Ranges,
        width: int,
        scroll_x: int,
        cursor: bool,
    ) -> list[Segment]:
        """One half of a split row: number, sign and text, or the filler hatch."""
        if line is None:
            return [Segment(_FILLER * max(0, width), self._rich(("diff-view--filler",)))]
        gutter = [
            self._number(line, line_class, cursor),
            Segment(" ", self._rich(_classes(line_class))),
            self._sign(line_class),
            Segment(" ", self._rich(_classes(line_class))),
        ]
        text_width = max(0, width - self._number_width - 3)
        return [*gutter, *self._text(side, line, line_class, words, text_width, scroll_x)]

    def _unified(self, row: Row, width: int, scroll_x: int) -> list[Segment]:
        cursor = row.hunk is not None and row.hunk == self.cursor_hunk
        line_class = {RowKind.REMOVED: _REMOVED, RowKind.ADDED: _ADDED}.get(row.kind)
        words: Ranges = ()
        if row.kind is RowKind.REMOVED and row.pair is not None and row.old is not None:
            words = self._words(row.old, row.pair)[0]
        elif row.kind is RowKind.ADDED and row.pair is not None and row.new is not None:
            words = self._words(row.pair, row.new)[1]
        side, line = (0, row.old) if row.kind is RowKind.REMOVED else (1, row.new)
        assert line is not None
        space = Segment(" ", self._rich(_classes(line_class)))
        segments = [
            self._number(row.old, line_class, cursor),
            space,
            self._number(row.new, line_class, cursor),
            space,
            self._sign(line_class),
            space,
        ]
        text_width = max(0, width - _MARK_WIDTH - 2 * self._number_width - 4)
        segments.extend(self._text(side, line, line_class, words, text_width, scroll_x))
        return segments

    def _words(self, old: int | None, new: int | None) -> tuple[Ranges, Ranges]:
        if old is None or new is None or self._change is None:
            return (), ()
        key = (old, new)
        ranges = self._word_cache.get(key)
        if ranges is None:
            ranges = word_ranges(
                line_text(self._change.old_lines[old]), line_text(self._change.new_lines[new])
            )
            self._word_cache[key] = ranges
        return ranges

    def _text(
        self,
        side: int,
        index: int,
        line_class: str | None,
        words: Ranges,
        width: int,
        scroll_x: int,
    ) -> list[Segment]:
        """A line's text with syntax and changed-word styles, scrolled and cut to ``width``."""
        key = (side, index, line_class, words)
        strip = self._text_cache.get(key)
        if strip is None:
            strip = self._text_cache[key] = self._styled_text(side, index, line_class, words)
        fill = self._rich(_classes(line_class))
        return list(strip.crop_extend(scroll_x, scroll_x + width, fill))

    def _styled_text(self, side: int, index: int, line_class: str | None, words: Ranges) -> Strip:
        """A whole line's text with its syntax and changed-word styles."""
        assert self._change is not None and self._highlighters is not None
        lines = self._change.old_lines if side == 0 else self._change.new_lines
        raw = lines[index]
        text = line_text(raw)
        spans = self._highlighters[side].spans(index)
        line_classes = _classes(line_class)
        word_classes = (*line_classes, f"{line_class}-word") if line_class else line_classes
        breaks = sorted({0, len(text), *(p for s in spans for p in s[:2]), *_flat(words)})
        segments: list[Segment] = []
        span_at = word_at = 0
        for start, end in zip(breaks, breaks[1:], strict=False):
            while span_at < len(spans) and spans[span_at][1] <= start:
                span_at += 1
            while word_at < len(words) and words[word_at][1] <= start:
                word_at += 1
            syntax = None
            if span_at < len(spans) and spans[span_at][0] <= start:
                syntax = spans[span_at][2]
            in_word = word_at < len(words) and words[word_at][0] <= start
            piece = text[start:end].translate(_CONTROL).replace("\t", _TAB)
            segments.append(
                Segment(piece, self._rich(word_classes if in_word else line_classes, syntax))
            )
        if line_class and index == len(lines) - 1 and raw == text:
            segments.append(
                Segment(_NO_NEWLINE, self._rich((*line_classes, "diff-view--line-number")))
            )
        return Strip(segments)


def _at(decisions: Sequence[HunkDecision], hunk: int) -> HunkDecision:
    return decisions[hunk] if 0 <= hunk < len(decisions) else HunkDecision.UNDECIDED


def _classes(line_class: str | None) -> tuple[str, ...]:
    return (line_class,) if line_class else ()


def _flat(ranges: Ranges) -> list[int]:
    return [point for pair in ranges for point in pair]


def _token_style(token_type: Any) -> str | None:
    """The style Textual's highlight theme gives a Pygments token (walking up its parents)."""
    styles = HighlightTheme.STYLES
    while token_type is not None:
        style = styles.get(token_type)
        if style is not None:
            return style or None
        token_type = token_type.parent
    return None
