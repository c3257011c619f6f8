"""The row model of a diff view: which old and new line each screen row shows.

Pure Python (no Textual) so it can be tested on its own. Rows are stored as runs (a block of
context, a hunk's removed lines, a fold...), so building the model costs O(hunks) rather than
O(lines): a 20,000-line file with a handful of hunks builds in microseconds, and even an
unfolded one is a few runs. A row is materialised only when the widget asks for it.

Layouts:

* ``split``: old on the left, new on the right. A hunk's old and new lines are paired up
  (``CHANGED`` rows); the longer side continues alone (``REMOVED`` or ``ADDED`` rows).
* ``unified``: a hunk's removed lines, then its added lines. Removed line ``i`` and added line
  ``i`` of a hunk are partners (``Row.pair``) for word-level highlights.

Unchanged regions keep ``context`` lines next to each hunk; the rest becomes one ``FOLD`` row
("⋯ 120 unchanged lines") that can be expanded by its fold id. A hunk named in ``notes`` ends
with one ``NOTE`` row, a line about the hunk as a whole (which tests run it).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

__all__ = [
    "CONTEXT_LINES",
    "DiffRows",
    "Layout",
    "Row",
    "RowKind",
    "build_rows",
    "hunk_screen",
    "lines_near",
    "lines_of",
    "line_text",
    "word_ranges",
]

CONTEXT_LINES = 3
"""Unchanged lines kept visible on each side of a hunk."""

_MIN_FOLD = 2
"""A fold row replaces at least this many lines (folding one line into one row saves nothing)."""


class Layout(StrEnum):
    SPLIT = "split"
    UNIFIED = "unified"


class RowKind(StrEnum):
    CONTEXT = "context"
    REMOVED = "removed"
    ADDED = "added"
    CHANGED = "changed"
    """Split layout only: an old line beside the new line that replaced it."""
    FOLD = "fold"
    EMPTY = "empty"
    """The single row of a zero-length hunk (an added or deleted empty file)."""
    NOTE = "note"
    """The last row of a hunk that has a note: no line of either side, only the hunk."""


@dataclass(frozen=True, slots=True)
class Row:
    """One screen row. Line indexes are 0-based into ``old_lines`` / ``new_lines``."""

    kind: RowKind
    old: int | None = None
    new: int | None = None
    hunk: int | None = None
    pair: int | None = None
    """Unified layout: the line on the other side this one is compared with word by word."""
    fold: int | None = None
    """Fold rows: the fold id (the index of the unchanged gap, 0 = before the first hunk)."""
    hidden: int = 0
    """Fold rows: how many unchanged lines the row stands for."""


_LINELESS = frozenset({RowKind.FOLD, RowKind.EMPTY, RowKind.NOTE})
"""Rows that show no line of their own, only a note about what they stand for."""


@dataclass(frozen=True, slots=True)
class _Run:
    """``count`` consecutive rows of one kind whose line indexes advance together."""

    start: int
    count: int
    kind: RowKind
    old: int | None = None
    new: int | None = None
    hunk: int | None = None
    pair: int | None = None
    paired: int = 0
    """How many leading rows of the run have a partner (starting at ``pair``)."""
    fold: int | None = None
    hidden: int = 0

    def row(self, offset: int) -> Row:
        if self.kind in _LINELESS:
            return Row(self.kind, self.old, self.new, self.hunk, None, self.fold, self.hidden)
        return Row(
            self.kind,
            None if self.old is None else self.old + offset,
            None if self.new is None else self.new + offset,
            self.hunk,
            self.pair + offset if self.pair is not None and offset < self.paired else None,
        )

    def covers(self, old: int | None, new: int | None) -> int | None:
        """Row offset inside this run showing old line ``old`` (or new line ``new``), or None."""
        span = self.hidden if self.kind is RowKind.FOLD else self.count
        for wanted, first in ((old, self.old), (new, self.new)):
            if wanted is not None and first is not None and first <= wanted < first + span:
                return 0 if self.kind is RowKind.FOLD else wanted - first
        return None


class DiffRows(Sequence[Row]):
    """The rows of one file's diff in one layout, with its hunk and fold positions."""

    def __init__(self, layout: Layout, runs: list[_Run], hunk_spans: list[tuple[int, int]]):
        self.layout = layout
        self._runs = runs
        self._starts = [run.start for run in runs]
        self._length = runs[-1].start + runs[-1].count if runs else 0
        self._hunk_spans = tuple(hunk_spans)
        self.folds: tuple[int, ...] = tuple(run.fold for run in runs if run.fold is not None)
        """The fold ids currently folded, top to bottom."""

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        run = self._runs[bisect_right(self._starts, index) - 1]
        return run.row(index - run.start)

    def __iter__(self) -> Iterator[Row]:
        for run in self._runs:
            for offset in range(run.count):
                yield run.row(offset)

    @property
    def hunk_count(self) -> int:
        return len(self._hunk_spans)

    def hunk_rows(self, hunk: int) -> range:
        """The rows of one hunk (never empty: a zero-length hunk has its EMPTY row)."""
        return range(*self._hunk_spans[hunk])

    def hunk_at(self, index: int) -> int | None:
        """The hunk a row belongs to, or None for context and fold rows."""
        return self[index].hunk

    def fold_row(self, fold: int) -> int | None:
        """The row of a fold id, or None when that gap is not folded."""
        for run in self._runs:
            if run.fold == fold:
                return run.start
        return None

    def find(self, *, old: int | None = None, new: int | None = None) -> int | None:
        """The row showing old line ``old`` or new line ``new`` (a fold row if it is hidden)."""
        for run in self._runs:
            offset = run.covers(old, new)
            if offset is not None:
                return run.start + offset
        return None


class _RunBuilder:
    def __init__(self) -> None:
        self.runs: list[_Run] = []
        self.length = 0

    def add(self, count: int, kind: RowKind, **fields: Any) -> None:
        if count > 0:
            self.runs.append(_Run(self.length, count, kind, **fields))
            self.length += count


def build_rows(
    change: FileChange,
    layout: Layout | str = Layout.SPLIT,
    *,
    context: int = CONTEXT_LINES,
    expanded: frozenset[int] | set[int] = frozenset(),
    unfold_all: bool = False,
    notes: frozenset[int] | set[int] = frozenset(),
) -> DiffRows:
    """Rows for ``change`` in ``layout``; ``expanded`` fold ids (or all, with ``unfold_all``)
    show their unchanged lines in full; each hunk in ``notes`` ends with a ``NOTE`` row."""
    layout = Layout(layout)
    hunks = change.hunks
    old_count = len(change.old_lines)
    builder = _RunBuilder()
    hunk_spans: list[tuple[int, int]] = []
    old_pos = new_pos = 0
    for gap in range(len(hunks) + 1):
        if gap < len(hunks):
            hunk = hunks[gap]
            gap_end = hunk.old_start
        else:
            gap_end = old_count
        _add_gap(
            builder,
            gap,
            old_pos,
            new_pos,
            gap_end - old_pos,
            keep_before=context if gap > 0 else 0,
            keep_after=context if gap < len(hunks) else 0,
            folded=not unfold_all and gap not in expanded,
        )
        if gap == len(hunks):
            break
        first = builder.length
        _add_hunk(builder, layout, gap, hunk)
        if gap in notes:
            builder.add(1, RowKind.NOTE, hunk=gap)
        hunk_spans.append((first, builder.length))
        old_pos, new_pos = hunk.old_end, hunk.new_end
    return DiffRows(layout, builder.runs, hunk_spans)


def _add_gap(
    builder: _RunBuilder,
    gap: int,
    old: int,
    new: int,
    length: int,
    *,
    keep_before: int,
    keep_after: int,
    folded: bool,
) -> None:
    """An unchanged region: context rows, with its middle folded when long enough."""
    hidden = length - keep_before - keep_after
    if not folded or hidden < _MIN_FOLD:
        builder.add(length, RowKind.CONTEXT, old=old, new=new)
        return
    builder.add(keep_before, RowKind.CONTEXT, old=old, new=new)
    at = keep_before
    builder.add(1, RowKind.FOLD, old=old + at, new=new + at, fold=gap, hidden=hidden)
    at += hidden
    builder.add(keep_after, RowKind.CONTEXT, old=old + at, new=new + at)


def _add_hunk(builder: _RunBuilder, layout: Layout, index: int, hunk: Any) -> None:
    removed = hunk.old_end - hunk.old_start
    added = hunk.new_end - hunk.new_start
    if removed == 0 and added == 0:
        builder.add(1, RowKind.EMPTY, old=hunk.old_start, new=hunk.new_start, hunk=index)
        return
    both = min(removed, added)
    if layout is Layout.SPLIT:
        builder.add(both, RowKind.CHANGED, old=hunk.old_start, new=hunk.new_start, hunk=index)
        builder.add(removed - both, RowKind.REMOVED, old=hunk.old_start + both, hunk=index)
        builder.add(added - both, RowKind.ADDED, new=hunk.new_start + both, hunk=index)
        return
    builder.add(
        removed,
        RowKind.REMOVED,
        old=hunk.old_start,
        hunk=index,
        pair=hunk.new_start,
        paired=both,
    )
    builder.add(
        added, RowKind.ADDED, new=hunk.new_start, hunk=index, pair=hunk.old_start, paired=both
    )


def lines_near(rows: DiffRows, top: int, height: int, hunk: int) -> Iterator[tuple[int, int]]:
    """(side, line) of the rows where the next keys lead from a view ``height`` rows high at
    row ``top`` with the cursor on ``hunk``: the screens of the next and the previous hunk,
    then the view and half a page below it, then half a page above it. Never the whole file: a
    file switch or a scroll pays only for what the next key can show; rows further away are
    lexed when a scroll brings the view near them."""
    hunks = [*hunk_screen(rows, hunk + 1, height), *hunk_screen(rows, hunk - 1, height)]
    margin = height // 2
    below = range(top, min(len(rows), top + height + margin))
    above = range(min(top, len(rows)) - 1, max(-1, top - margin - 1), -1)
    return lines_of(rows, (*hunks, *below, *above))


def hunk_screen(rows: DiffRows, hunk: int, height: int) -> range:
    """The rows a view ``height`` rows high shows from ``hunk`` on (none for no such hunk)."""
    if not 0 <= hunk < rows.hunk_count:
        return range(0)
    first = max(0, rows.hunk_rows(hunk).start - CONTEXT_LINES)
    return range(first, min(len(rows), first + height))


def lines_of(rows: DiffRows, indexes: Iterable[int]) -> Iterator[tuple[int, int]]:
    """(side, line) of the lines the rows at ``indexes`` show (a fold or a note shows none)."""
    for index in indexes:
        row = rows[index]
        if row.kind in _LINELESS:
            continue
        if row.old is not None:
            yield 0, row.old
        if row.new is not None:
            yield 1, row.new


_LINE_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def line_text(line: str) -> str:
    """A line as shown: without its line break."""
    return line.rstrip(_LINE_BREAKS)


_WORD = re.compile(r"\w+|\s+|[^\w\s]")
_MAX_WORD_TOKENS = 2000
"""Longer lines get no word highlights (SequenceMatcher is quadratic in the worst case)."""

Ranges = tuple[tuple[int, int], ...]


def word_ranges(old: str, new: str) -> tuple[Ranges, Ranges]:
    """Character ranges (start, end) that differ between two paired lines, per side.

    Lines are compared word by word (runs of word characters, of spaces, single symbols), so
    a renamed identifier is highlighted whole rather than letter by letter.
    """
    old_words = _WORD.findall(old)
    new_words = _WORD.findall(new)
    if len(old_words) > _MAX_WORD_TOKENS or len(new_words) > _MAX_WORD_TOKENS:
        return (), ()
    old_offsets = _offsets(old_words)
    new_offsets = _offsets(new_words)
    old_ranges: list[tuple[int, int]] = []
    new_ranges: list[tuple[int, int]] = []
    matcher = SequenceMatcher(None, old_words, new_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        _append_range(old_ranges, old_offsets[i1], old_offsets[i2])
        _append_range(new_ranges, new_offsets[j1], new_offsets[j2])
    return tuple(old_ranges), tuple(new_ranges)


def _offsets(words: list[str]) -> list[int]:
    offsets = [0]
    for word in words:
        offsets.append(offsets[-1] + len(word))
    return offsets


def _append_range(ranges: list[tuple[int, int]], start: int, end: int) -> None:
    if start == end:
        return
    if ranges and ranges[-1][1] == start:
        ranges[-1] = (ranges[-1][0], end)
    else:
        ranges.append((start, end))
