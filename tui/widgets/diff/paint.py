"""The painting half of the diff view: its rows as Strips of styled Segments.

``render_line`` builds only the rows on screen and keeps their Strips in an LRU cache; a line's
styled text (syntax spans from :mod:`highlight`, coloured through Textual's highlight theme, and
changed-word ranges from :mod:`rows`) is made the first time it is shown and kept uncropped, so a
horizontal scroll only crops it again. Every colour comes from a component class whose CSS reads
a ``$diff-*`` theme variable (see :mod:`themes`); nothing is hard-coded here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.cache import LRUCache
from textual.reactive import reactive
from textual.strip import Strip
from textual.style import Style

from orch_tui.core.domain.proposal import ChangeKind, HunkDecision
from orch_tui.core.util.terminal_text import mask_unsafe
from orch_tui.tui.widgets.diff.coverage_gutter import CoverageGutter
from orch_tui.tui.widgets.diff.file_cache import FileCache
from orch_tui.tui.widgets.diff.highlight import LineHighlighter
from orch_tui.tui.widgets.diff.rows import (
    DiffRows,
    Layout,
    Ranges,
    Row,
    RowKind,
    line_text,
    word_ranges,
)

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

MARKS: dict[HunkDecision, str] = {
    HunkDecision.ACCEPTED: "✓",
    HunkDecision.REJECTED: "✗",
    HunkDecision.UNDECIDED: "●",
}
"""Gutter symbol on the first row of a hunk; its other rows show ``HUNK_BAR``."""
HUNK_BAR = "▎"
WEAKENING_MARK = "!"
"""Beside the gutter symbol of a test-file hunk that weakens a test (see ``weakening_hunks``)."""
_MARK_CLASSES = {
    HunkDecision.ACCEPTED: "diff-view--gutter-accepted",
    HunkDecision.REJECTED: "diff-view--gutter-rejected",
    HunkDecision.UNDECIDED: "diff-view--gutter-undecided",
}
MARK_WIDTH = 2
"""Columns of the gutter: a hunk's decision mark, then a space or the weakening mark."""
_DIVIDER = "│"
_FILLER = "╱"
_TAB = "    "
_NO_NEWLINE = "  ⊘ no newline at end of file"
HIDDEN_START = "…"
"""First column of a changed line shown from its change on: the start before it is hidden."""
CHANGE_CONTEXT = 12
"""At most this many columns of a line before its change, when shown from the change on."""


_ADDED, _REMOVED = "diff-view--added", "diff-view--removed"


class DiffPaint(CoverageGutter):
    """Paints a diff's rows: the gutter marks, line numbers, signs and styled text.

    :class:`~orch_tui.tui.widgets.diff.view.DiffView`, the widget, decides what is shown: it
    sets the file, its rows and decisions, and owns navigation, folds, sizing and lexing ahead.
    """

    diff_layout: reactive[str] = reactive(Layout.SPLIT.value, init=False)
    """``"split"`` (side by side) or ``"unified"``."""
    cursor_hunk: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)
    """The hunk under the cursor; setting it scrolls that hunk into view. It repaints only the
    rows of the hunks it leaves and enters (and what a scroll brings), not the whole view."""

    _change: FileChange | None
    _decisions: list[HunkDecision]
    _weakening: set[int]
    _rows: DiffRows
    _highlighters: tuple[LineHighlighter, LineHighlighter] | None
    _number_width: int
    _line_cache: LRUCache[tuple[Any, ...], Strip]
    _word_cache: LRUCache[tuple[int, int], tuple[Ranges, Ranges]]
    _text_cache: LRUCache[tuple[Any, ...], Strip]
    _files: dict[int, FileCache]
    """Caches of the files shown last, by ``id`` of their FileChange, least recent first."""
    _style_cache: dict[tuple[Any, ...], RichStyle]
    _syntax_styles: dict[str, Style]

    def decision(self, hunk: int) -> HunkDecision:
        return decision_at(self._decisions, hunk)

    def weakens_a_test(self, hunk: int) -> bool:
        """``hunk`` of the file shown weakens a test (it is marked ``!``)."""
        return hunk in self._weakening

    @property
    def shown_layout(self) -> str:
        """The layout drawn: an added or deleted file has one side only, so it takes the whole
        width (unified) even in split view instead of leaving half the pane hatched."""
        if self._change is not None and self._change.kind in (ChangeKind.ADDED, ChangeKind.DELETED):
            return Layout.UNIFIED.value
        return self.diff_layout

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
                segments = [Segment(" " * MARK_WIDTH + message, self._rich(("diff-view--fold",)))]
                return Strip(segments).crop_extend(0, width, base)
            return Strip.blank(width, base)
        row = self._rows[index]
        segments = self._mark(row, index)
        if row.kind is RowKind.NOTE:
            segments.append(self.coverage_note(row.hunk))
            return Strip(segments).crop_extend(0, width, base)
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
            return [Segment(" " * MARK_WIDTH, self._rich(()))]
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
        left_width = (width - MARK_WIDTH - 1) // 2
        right_width = width - MARK_WIDTH - 1 - left_width
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
            self.coverage_cell(side, line, _classes(line_class)),
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
            self.coverage_cell(0, row.old, _classes(line_class)),
            self._number(row.new, line_class, cursor),
            self.coverage_cell(1, row.new, _classes(line_class)),
            self._sign(line_class),
            space,
        ]
        text_width = max(0, width - MARK_WIDTH - 2 * self._number_width - 4)
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
        """A line's text with syntax and changed-word styles, scrolled (or shown from its change
        on, see :func:`window_start`) and cut to ``width``."""
        key = (side, index, line_class, words)
        strip = self._text_cache.get(key)
        if strip is None:
            strip = self._text_cache[key] = self._styled_text(key)
        fill = self._rich(_classes(line_class))
        start = scroll_x
        if words and self._change is not None:
            lines = self._change.old_lines if side == 0 else self._change.new_lines
            start = window_start(line_text(lines[index]), words, width, scroll_x)
        if start == scroll_x:
            return list(strip.crop_extend(scroll_x, scroll_x + width, fill))
        hidden = Segment(
            HIDDEN_START, self._rich((*_classes(line_class), "diff-view--line-number"))
        )
        return [hidden, *strip.crop_extend(start + 1, start + width, fill)]

    def _styled_text(self, key: tuple[Any, ...], of: FileCache | None = None) -> Strip:
        """A line's syntax and changed-word styles (of the FileCache ``of`` or the file shown)."""
        side, index, line_class, words = key  # the text cache's key
        change, sides = (of.change, of.highlighters) if of else (self._change, self._highlighters)
        assert change is not None and sides is not None
        lines = change.old_lines if side == 0 else change.new_lines
        raw = lines[index]
        text = line_text(raw)
        spans = sides[side].spans(index)
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
            piece = mask_unsafe(text[start:end]).replace("\t", _TAB)
            segments.append(
                Segment(piece, self._rich(word_classes if in_word else line_classes, syntax))
            )
        if line_class and index == len(lines) - 1 and raw == text:
            segments.append(
                Segment(_NO_NEWLINE, self._rich((*line_classes, "diff-view--line-number")))
            )
        return Strip(segments)


def window_start(text: str, words: Ranges, width: int, scroll_x: int) -> int:
    """The column a line's text is shown from: ``scroll_x``, unless the line's first changed
    word starts past the pane's right edge. Then the text is shown from a word boundary just
    before it (at most ``CHANGE_CONTEXT`` columns and a third of the width before it), so a long
    line changed near its end never looks unchanged; ``HIDDEN_START`` covers that column."""
    if not words or width < 3:
        return scroll_x
    first = words[0][0]
    if _cells(text[:first]) < scroll_x + width:
        return scroll_x
    context = max(first - min(CHANGE_CONTEXT, width // 3), 0)
    space = text.find(" ", context, first - 1)
    return _cells(text[: space if space != -1 else context])


def _cells(text: str) -> int:
    """Columns ``text`` takes in the diff (tabs and masked characters as painted)."""
    return cell_len(mask_unsafe(text).replace("\t", _TAB))


def decision_at(decisions: Sequence[HunkDecision], hunk: int) -> HunkDecision:
    return decisions[hunk] if 0 <= hunk < len(decisions) else HunkDecision.UNDECIDED


def _classes(line_class: str | None) -> tuple[str, ...]:
    return (line_class,) if line_class else ()


def _flat(ranges: Ranges) -> list[int]:
    return [point for pair in ranges for point in pair]
