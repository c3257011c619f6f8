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
("⋯ 120 unchanged lines") that can be expanded by its fold id.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from pygments.lexer import Lexer

    from orch_tui.core.domain.proposal import FileChange

__all__ = [
    "CONTEXT_LINES",
    "DiffRows",
    "Layout",
    "Row",
    "RowKind",
    "build_rows",
    "LineHighlighter",
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
        if self.kind is RowKind.FOLD or self.kind is RowKind.EMPTY:
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
) -> DiffRows:
    """Rows for ``change`` in ``layout``; ``expanded`` fold ids (or all, with ``unfold_all``)
    show their unchanged lines in full."""
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


LineSpans = tuple[tuple[int, int, str], ...]
StyleOf = Callable[[Any], "str | None"]


class LineHighlighter:
    """Syntax spans (start, end, style) for the lines of one side of a diff, made on demand.

    Pygments needs about a second per 15,000 lines of Python, so lines are lexed in chunks of
    ``CHUNK`` lines, each the first time one of its lines is shown (a folded view of a big file
    touches a few lines around each hunk). Each chunk is lexed with the ``WARMUP`` lines before
    it, so a string or comment opened just above the chunk is still coloured right; one opened
    earlier than that may be coloured wrongly. A file of at most ``CHUNK`` lines is always right.

    ``style_of`` maps a Pygments token type to a style string (None: unstyled); adjacent
    tokens of the same style merge, so lines keep few spans.
    """

    CHUNK = 64
    WARMUP = 16

    def __init__(self, path: str, lines: Sequence[str], style_of: StyleOf) -> None:
        self._lexer = _lexer_for(PurePosixPath(path).name)
        self._lines = lines
        self._style_of = style_of
        self._styles: dict[Any, str | None] = {}
        self._chunks: dict[int, list[LineSpans]] = {}
        self._pending: dict[int, _ChunkLexing] = {}
        """Chunks whose lexing was cut short by a deadline, to resume."""

    @property
    def language(self) -> str | None:
        return None if self._lexer is None else self._lexer.name

    def lexed(self, index: int) -> bool:
        """True when ``spans(index)`` is ready without lexing."""
        outside = self._lexer is None or not 0 <= index < len(self._lines)
        return outside or index // self.CHUNK in self._chunks

    def spans(self, index: int) -> LineSpans:
        if self._lexer is None or not 0 <= index < len(self._lines):
            return ()
        chunk, offset = divmod(index, self.CHUNK)
        spans = self._chunks.get(chunk)
        if spans is None:
            spans = self._lex_chunk(chunk, None)
            assert spans is not None
        return spans[offset]

    def lex_until(self, index: int, deadline: float) -> bool:
        """Lex towards ``spans(index)`` until ``time.perf_counter()`` passes ``deadline``; True
        when it is ready. Work left over is resumed by the next call, or by ``spans``."""
        if self.lexed(index):
            return True
        return self._lex_chunk(index // self.CHUNK, deadline) is not None

    def _lex_chunk(self, chunk: int, deadline: float | None) -> list[LineSpans] | None:
        lexing = self._pending.pop(chunk, None)
        if lexing is None:
            assert self._lexer is not None
            start = chunk * self.CHUNK
            warmup = min(start, self.WARMUP)
            lines = self._lines[start - warmup : start + self.CHUNK]
            lexing = _ChunkLexing(self._lexer, lines, warmup, self._style_for)
        if not lexing.run(deadline):
            self._pending[chunk] = lexing
            return None
        spans = self._chunks[chunk] = lexing.spans()
        return spans

    def _style_for(self, token_type: Any) -> str | None:
        styles = self._styles
        if token_type in styles:
            return styles[token_type]
        style = styles[token_type] = self._style_of(token_type)
        return style


class _ChunkLexing:
    """The lexing of one chunk, resumable: its tokens are consumed a slice at a time."""

    def __init__(
        self,
        lexer: Lexer,
        lines: Sequence[str],
        warmup: int,
        style_for: Callable[[Any], str | None],
    ) -> None:
        text = "".join(line_text(line) + "\n" for line in lines)
        self._tokens = lexer.get_tokens(text)
        self._count = len(lines)
        self._warmup = warmup
        self._style_for = style_for
        self._result: list[LineSpans] = []
        self._current: list[tuple[int, int, str]] = []
        self._column = 0

    def run(self, deadline: float | None) -> bool:
        """Consume tokens until they end (True) or ``deadline`` passes (False)."""
        style_for, current, column = self._style_for, self._current, self._column
        for token_type, value in self._tokens:
            style = style_for(token_type)
            for number, piece in enumerate(value.split("\n")):
                if number:
                    self._result.append(tuple(current))
                    current = []
                    column = 0
                end = column + len(piece)
                if style and end > column:
                    if current and current[-1][1] == column and current[-1][2] == style:
                        current[-1] = (current[-1][0], end, style)
                    else:
                        current.append((column, end, style))
                column = end
            if deadline is not None and time.perf_counter() > deadline:
                self._current, self._column = current, column
                return False
        self._current, self._column = current, column
        return True

    def spans(self) -> list[LineSpans]:
        """The chunk's spans, once :meth:`run` returned True (the warm-up lines left out)."""
        result = list(self._result)
        if self._current:
            result.append(tuple(self._current))
        result.extend(() for _ in range(self._count - len(result)))
        return result[: self._count][self._warmup :]


_EXTRA_LEXERS = {".tcss": "scss"}
_GLOB_CHARACTERS = re.compile(r"[*?\[\]]")


@lru_cache(maxsize=64)
def _lexer_for(filename: str) -> Lexer | None:
    """The Pygments lexer for a file name, or None."""
    from pygments.lexers import get_lexer_by_name
    from pygments.lexers.special import TextLexer

    options = {"stripnl": False, "stripall": False, "ensurenl": True}
    alias = _EXTRA_LEXERS.get(PurePosixPath(filename).suffix)
    if alias is not None:
        return get_lexer_by_name(alias, **options)
    found = lexer_class_for_filename(filename)
    if found is None or found is TextLexer:
        return None
    return found(**options)


def lexer_class_for_filename(filename: str) -> type[Lexer] | None:
    """The lexer class Pygments' ``find_lexer_class_for_filename`` picks for ``filename``.

    The same patterns and the same choice among several matches (priority, a bonus for a
    pattern without ``*``, then the class name), but a pattern is matched only when the name
    ends with the pattern's literal tail: Pygments compiles every one of its ~900 patterns
    into a regex on the first lookup, about 70 ms on the review screen's first diff.
    """
    from pygments.lexers import find_lexer_class, get_all_lexers

    matches: list[tuple[str, str]] = []
    for name, _aliases, patterns, _mimetypes in get_all_lexers(plugins=True):
        for pattern in patterns:
            if filename.endswith(_literal_tail(pattern)) and fnmatchcase(filename, pattern):
                matches.append((name, pattern))
    best: tuple[float, str] | None = None
    chosen: type[Lexer] | None = None
    for name, pattern in matches:
        cls = find_lexer_class(name)
        if cls is None:
            continue
        rating = (cls.priority + (0 if "*" in pattern else 0.5), cls.__name__)
        if best is None or rating >= best:
            best, chosen = rating, cls
    return chosen


@lru_cache(maxsize=4096)
def _literal_tail(pattern: str) -> str:
    """What every name ``pattern`` matches ends with: the text after its last glob character."""
    return _GLOB_CHARACTERS.split(pattern)[-1]
