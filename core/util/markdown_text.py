"""Text from models, tests and files, written into Markdown so that it reads as written.

``history --export`` writes a report people paste into pull requests and wikis. A test id
with a backtick, a file name with ``|`` or a model summary that starts with ``#`` must come
out as text, never as a broken code span, a torn table row or a heading; and an escape
sequence, a bidi control or a zero-width character must reach the reader spelt out.
"""

from __future__ import annotations

import re

from orch_tui.core.util.terminal_text import escape_controls

_INLINE_SPECIALS = re.compile(r"([\\`*_\[\]<>|~&])")
"""Characters that start or end inline Markdown anywhere in a line (CommonMark allows a
backslash before any ASCII punctuation, so each escape is safe)."""

_BLOCK_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")
"""What turns a line into a heading, quote, list or rule when it starts the line."""


def one_line(text: object) -> str:
    """``text`` on one line, control, bidi and invisible characters spelt out: a line break
    inside a list item or table cell would end it."""
    return escape_controls(" ".join(str(text).split()))


def inline_text(text: object) -> str:
    """``text`` as literal inline Markdown on one line."""
    escaped = _INLINE_SPECIALS.sub(r"\\\1", one_line(text))
    return _BLOCK_START.sub(_escape_block_start, escaped, count=1)


def _escape_block_start(match: re.Match[str]) -> str:
    marker = match.group(2)
    if marker[0].isdigit():  # "1." stays a number: escape the dot or parenthesis after it
        return f"{match.group(1)}{marker[:-1]}\\{marker[-1]}"
    return f"{match.group(1)}\\{marker}"


def code_span(text: object, *, in_table: bool = False) -> str:
    """``text`` as a code span: fenced by more backticks than any run inside it, padded with a
    space where it starts or ends with a backtick (CommonMark strips one such space).

    ``in_table``: GFM splits a table's cells at every ``|``, inside code spans too; ``\\|`` is
    the escape it honours there, and shows as ``|``.
    """
    content = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * (longest + 1)
    if content.startswith("`") or content.endswith("`"):
        content = f" {content} "
    if in_table:
        content = content.replace("|", "\\|")
    return f"{fence}{content}{fence}"
