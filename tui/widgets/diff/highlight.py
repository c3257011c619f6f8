"""Syntax spans for the lines of one side of a diff: Pygments, lexed lazily in chunks.

Pure Python (no Textual): a caller maps Pygments token types to its own style strings.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from orch_tui.tui.widgets.diff.rows import line_text

if TYPE_CHECKING:
    from pygments.lexer import Lexer

__all__ = ["LineHighlighter", "LineSpans", "lexer_class_for_filename"]

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

    The lexers other packages install (Pygments' plugins) are looked at only for a name no
    lexer of Pygments' own takes: finding them reads every installed package's entry points
    (``importlib.metadata``, about 25 ms before the first diff), and a plugin is there for a
    language Pygments lacks.
    """
    from pygments.lexers import get_all_lexers

    own = get_all_lexers(plugins=False)
    chosen = _best_for(filename, ((name, patterns) for name, _, patterns, _ in own))
    if chosen is None:
        from pygments.plugin import find_plugin_lexers

        chosen = _best_for(filename, ((cls, cls.filenames) for cls in find_plugin_lexers()))
    return chosen


def _best_for(
    filename: str, lexers: Iterable[tuple[str | type[Lexer], Sequence[str]]]
) -> type[Lexer] | None:
    """Of ``lexers`` (each a lexer's Pygments name or class, and its file name patterns), the
    class Pygments would pick for ``filename``."""
    from pygments.lexers import find_lexer_class

    matches: list[tuple[str | type[Lexer], str]] = []
    for lexer, patterns in lexers:
        for pattern in patterns:
            if filename.endswith(_literal_tail(pattern)) and fnmatchcase(filename, pattern):
                matches.append((lexer, pattern))
    best: tuple[float, str] | None = None
    chosen: type[Lexer] | None = None
    for lexer, pattern in matches:
        cls = find_lexer_class(lexer) if isinstance(lexer, str) else lexer
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
