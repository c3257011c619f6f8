"""The diff view's work while the reviewer reads: lexing, then styling, ahead of the keys.

Once the view has been still for ``PRELEX_DELAY_S``, a timer lexes the lines the next keys may
show (the walk of :mod:`lex_ahead`), a slice at a time, then styles the lines of the next
hunk's screen and of the next file's first screen (their syntax and changed-word Segments,
most of what painting a row costs the first time it is shown), so ``]``, ``y``, ``n`` and
``}`` find them made. A key or a scroll puts it off.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.timer import Timer

from orch_tui.core.domain.proposal import ChangeKind
from orch_tui.tui.widgets.diff.file_cache import FileCache, cached_file
from orch_tui.tui.widgets.diff.highlight import LineHighlighter
from orch_tui.tui.widgets.diff.lex_ahead import LexAhead, Target, first_screen_rows, first_screens
from orch_tui.tui.widgets.diff.paint import _ADDED, _REMOVED, DiffPaint
from orch_tui.tui.widgets.diff.rows import (
    Layout,
    Ranges,
    Row,
    RowKind,
    build_rows,
    hunk_screen,
    line_text,
    lines_near,
    lines_of,
    word_ranges,
)

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

PRELEX_DELAY_S = 0.2
"""How long the view must stay still before the lines around it are lexed in the background:
longer than a key takes to be handled and painted, so a key never pays for lexing ahead (a
key pressed sooner puts it off again). Keys held down lex only the view they show."""
PRELEX_SLICE_S = 0.004
"""Lexing done at a time in the background: a key pressed meanwhile waits at most about this."""
PRELEX_GAP_S = 0.008
"""The pause between two slices of background lexing, for keys and frames to get through."""


class IdleWork(DiffPaint):
    """Lexing and styling ahead of the view while it is still (see the module docstring)."""

    _prelex_timer: Timer | None
    _lex_ahead: LexAhead
    _ahead: tuple[FileChange, ...]
    _styled_ahead: Iterator[None] | None = None
    """The styling still to do once the lexing walk is over, a line at a time."""

    def _prelex_later(self, delay: float = PRELEX_DELAY_S) -> None:
        """Lex around the view once it has been still for ``delay``, while the reviewer reads:
        the next page, hunk or file then only styles lines Pygments has already seen."""
        self._lex_ahead.clear()
        self._styled_ahead = None
        if self._prelex_timer is not None:
            self._prelex_timer.stop()
            self._prelex_timer = None
        if self._highlighters is not None and self.is_mounted:
            self._prelex_timer = self.set_timer(delay, self._prelex)

    def _prelex(self) -> None:
        """Lex (then style) for about PRELEX_SLICE_S along the walk, then let the app run."""
        self._prelex_timer = None
        if self._highlighters is None:
            return
        if not self._lex_ahead.started and self._styled_ahead is None:
            self._lex_ahead.start(self._targets(self._highlighters))
            self._styled_ahead = self._styling()
        deadline = time.perf_counter() + PRELEX_SLICE_S
        if not self._lex_ahead.run(deadline) or not self._style_ahead(deadline):
            self._prelex_timer = self.set_timer(PRELEX_GAP_S, self._prelex)

    def _style_ahead(self, deadline: float) -> bool:
        """Style lines along :meth:`_styling` until ``deadline``; True when none is left."""
        for _ in self._styled_ahead or ():
            if time.perf_counter() > deadline:
                return False
        return True

    def _styling(self) -> Iterator[None]:
        """Style the next hunk's screen, then the next file's first (where ``}`` lands)."""
        height = self.scrollable_content_region.height
        width, scroll_x = self.scrollable_content_region.width, round(self.scroll_x)
        for index in hunk_screen(self._rows, self.cursor_hunk + 1, height):
            self._render_row(index, width, scroll_x)  # keeps each line's styled text
            yield
        for change in self._ahead[:1]:
            layout = self.diff_layout
            if change.kind in (ChangeKind.ADDED, ChangeKind.DELETED):
                layout = Layout.UNIFIED.value  # as ``shown_layout`` draws it
            rows, file = build_rows(change, layout), cached_file(self._files, change)
            for index in first_screen_rows(rows, height):
                for side, line, line_class, pair in row_texts(rows[index], layout):
                    self._style_line(file, side, line, line_class, pair)
                yield

    def _style_line(
        self,
        file: FileCache,
        side: int,
        line: int,
        line_class: str | None,
        pair: tuple[int, int] | None,
    ) -> None:
        """Keep a line's styled text in ``file``'s cache, under the key painting looks up."""
        words: Ranges = ()
        if pair is not None:
            ranges = file.words.get(pair)
            if ranges is None:
                old, new = file.change.old_lines[pair[0]], file.change.new_lines[pair[1]]
                ranges = file.words[pair] = word_ranges(line_text(old), line_text(new))
            words = ranges[side]
        key = (side, line, line_class, words)
        if file.texts.get(key) is None:
            file.texts[key] = self._styled_text(key, of=file)

    def _targets(self, sides: tuple[LineHighlighter, LineHighlighter]) -> Iterator[Target]:
        """The likeliest first: the next hunk's screen (``]`` ``y`` ``n``), the next file's
        (``}``), the rest near the view (:func:`rows.lines_near`), the previous file's."""
        layout, height = self.shown_layout, self.scrollable_content_region.height
        of = lambda change: cached_file(self._files, change).highlighters  # noqa: E731
        next_hunk = lines_of(self._rows, hunk_screen(self._rows, self.cursor_hunk + 1, height))
        yield from ((sides[side], line) for side, line in next_hunk)
        yield from first_screens(self._ahead[:1], of, layout, height)
        yield from ((sides[side], line) for side, line in self._lines_near_view())
        yield from first_screens(self._ahead[1:], of, layout, height)

    def _lines_near_view(self) -> Iterator[tuple[int, int]]:
        """(side, line) of the rows where the next keys lead (see :func:`rows.lines_near`)."""
        height = max(1, self.scrollable_content_region.height)
        top, hunk = round(self.scroll_y), self.cursor_hunk
        return lines_near(self._rows, top, height, hunk)


TextKey = tuple[int, int, str | None, tuple[int, int] | None]
"""A line a row shows: side, line, its line class and the (old, new) pair of its words."""


def row_texts(row: Row, layout: str) -> list[TextKey]:
    """The lines ``row`` shows, as painting styles them (``DiffPaint._split``/``_unified``)."""
    if row.kind in (RowKind.FOLD, RowKind.EMPTY, RowKind.NOTE):
        return []
    if layout == Layout.SPLIT:
        both: tuple[int, int] | None = None
        if row.kind is RowKind.CHANGED and row.old is not None and row.new is not None:
            both = (row.old, row.new)
        context = row.kind is RowKind.CONTEXT
        texts: list[TextKey] = []
        if row.old is not None:
            texts.append((0, row.old, None if context else _REMOVED, both))
        if row.new is not None:
            texts.append((1, row.new, None if context else _ADDED, both))
        return texts
    if row.kind is RowKind.REMOVED and row.old is not None:
        return [(0, row.old, _REMOVED, (row.old, row.pair) if row.pair is not None else None)]
    if row.new is None:
        return []
    pair = (row.pair, row.new) if row.kind is RowKind.ADDED and row.pair is not None else None
    return [(1, row.new, _ADDED if row.kind is RowKind.ADDED else None, pair)]
