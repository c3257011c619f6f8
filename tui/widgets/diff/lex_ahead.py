"""Lexing ahead of the reviewer: the lines the next keys may show, a slice at a time.

Pure Python (no Textual): the widget starts a walk over (highlighter, line) pairs when the
view settles and calls :meth:`LexAhead.run` from a timer while the reviewer is idle, so a key
finds the lines it shows already lexed instead of paying for them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from orch_tui.tui.widgets.diff.highlight import LineHighlighter
from orch_tui.tui.widgets.diff.rows import CONTEXT_LINES, DiffRows, Layout, build_rows, lines_of

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

__all__ = ["LexAhead", "Target", "first_screen", "first_screen_rows", "first_screens"]

Target = tuple[LineHighlighter, int]
"""A line to lex: its side's highlighter and its index there."""


class LexAhead:
    """One walk over the lines to lex, resumed slice after slice where the last one stopped
    (started afresh at every slice, the walk over a folded big file's rows would cost more
    than the lexing)."""

    def __init__(self) -> None:
        self._walk: Iterator[Target] | None = None
        self._stopped_at: list[Target] = []

    @property
    def started(self) -> bool:
        return self._walk is not None

    def start(self, targets: Iterable[Target]) -> None:
        """Walk ``targets`` (lazily: a generator is only advanced as far as lexing gets)."""
        self._walk = iter(targets)
        self._stopped_at = []

    def clear(self) -> None:
        """Forget the walk (the view moved): the next :meth:`start` begins a new one."""
        self._walk = None
        self._stopped_at = []

    def run(self, deadline: float) -> bool:
        """Lex along the walk until ``time.perf_counter()`` passes ``deadline``; True when the
        walk is over (nothing left to lex), False when a later call must go on."""
        if self._walk is None:
            return True
        for highlighter, line in itertools.chain(self._stopped_at, self._walk):
            if not highlighter.lex_until(line, deadline):
                self._stopped_at = [(highlighter, line)]  # its chunk is resumed first
                return False
        self.clear()
        return True


def first_screen(rows: DiffRows, height: int) -> Iterator[tuple[int, int]]:
    """(side, line) of the rows a view ``height`` rows high shows when it opens the file on
    its first hunk (where ``}`` and ``{`` land), as the widget scrolls to it."""
    return lines_of(rows, first_screen_rows(rows, height))


def first_screen_rows(rows: DiffRows, height: int) -> range:
    """The rows of :func:`first_screen`."""
    top = 0
    if rows.hunk_count and rows.hunk_rows(0).stop > height:
        top = max(0, rows.hunk_rows(0).start - min(CONTEXT_LINES, height // 4))
    return range(top, min(len(rows), top + height))


def first_screens(
    changes: Sequence[FileChange],
    highlighters_of: Callable[[FileChange], tuple[LineHighlighter, LineHighlighter]],
    layout: Layout | str,
    height: int,
) -> Iterator[Target]:
    """The lines of each file's :func:`first_screen`, folded as a file opens, file by file
    (``highlighters_of`` is only called when the walk reaches the file)."""
    for change in changes:
        sides = highlighters_of(change)
        for side, line in first_screen(build_rows(change, layout), height):
            yield sides[side], line
