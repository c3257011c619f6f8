"""Keeping mutmut to the lines a run changed: ``# pragma: no mutate`` on every other line.

mutmut (``core.checks.mutation``) mutates whole files; the one per-line control it documents
is the comment ``# pragma: no mutate``, which stops the mutations of the nodes that start on
the line it marks. :func:`mark_unchanged` appends it, in the throwaway copy, wherever that
keeps a node starting on an unchanged line from being mutated. Which line a comment marks
follows from where mutmut (through libcst) finds it, read here with :mod:`tokenize`:

- at the end of a logical line (the ``NEWLINE`` token): the line the statement or clause
  header *starts* on, so it is added there when that first line is unchanged;
- at a line break inside brackets (an ``NL`` token within a logical line): that very line.

No comment can go where a line ends inside a string (it would become part of the string) or
with a backslash continuation, and the last line of a statement that spans several can only
mark its first. Nodes starting on such unchanged lines may still be mutated, so the results
are filtered again by line when they are read (``core.checks.mutation``): the counts always
cover exactly the changed lines. A file that does not tokenize is left as it was.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Collection

PRAGMA = "# pragma: no mutate"

_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
    tokenize.ENCODING,
}


def mark_unchanged(source: str, wanted: Collection[int]) -> str:
    """``source`` with :data:`PRAGMA` appended where it keeps mutmut off the lines not in
    ``wanted`` (1-based) without touching the code; line numbers stay as they were."""
    lines = source.splitlines(keepends=True)
    marks = [line for line in _comment_lines(source, set(wanted)) if line <= len(lines)]
    for number in marks:
        text = lines[number - 1]
        body = text.rstrip("\r\n")
        lines[number - 1] = f"{body}  {PRAGMA}{text[len(body) :]}"
    return "".join(lines)


def _comment_lines(source: str, wanted: set[int]) -> list[int]:
    """The lines whose end gets the pragma (see the module's docstring)."""
    found: list[int] = []
    start: int | None = None  # the first line of the logical line being read
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            line = token.start[0]
            if token.type not in _NOT_CODE and start is None:
                start = line
            elif token.type == tokenize.NEWLINE and start is not None:
                if start not in wanted:
                    found.append(line)
                start = None
            elif token.type == tokenize.NL and start is not None and line not in wanted:
                found.append(line)
    except (tokenize.TokenError, SyntaxError):
        return []
    return found
