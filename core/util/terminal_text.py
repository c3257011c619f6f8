"""Text someone else chose (the model, its tests, a file), made safe to show on a terminal.

Printed raw, ``\\r``, ``\\x1b[2K`` or an 8-bit CSI (``\\x9b``) in a path rewrites what the
terminal shows: it can erase the line that announced a file, or fake another one. Bidi
controls (``\\u202e`` turns ``gnp.exe`` into ``exe.png``) and invisible characters (zero-width
spaces and joiners, the byte-order mark, Unicode tag characters) make a name or a line read
differently from what it is. Every such string on its way to a terminal or an export (``--auto``
lines, ``status``, ``history --export``, the TUI's labels, notifications) goes through
:func:`escape_controls`, which spells these characters out (``\\x1b``, ``\\u202e``) instead.
Lone surrogates are spelt out too: they cannot be encoded, so printing one would crash.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

CONTROL_CODES = frozenset((*range(0x20), 0x7F, *range(0x80, 0xA0)))
"""C0, DEL and C1: the code points a terminal may act on instead of showing."""

HIDDEN_CATEGORIES = frozenset(("Cf", "Zl", "Zp", "Cs"))
"""Unicode categories shown as nothing or as a reordering: format characters (bidi controls,
zero-width characters, the BOM, tag characters), line and paragraph separators, surrogates."""

_NAMED = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


def _spelt(code: int) -> str:
    """How :func:`escape_controls` shows ``code``: the way Python writes it in a string."""
    if code in _NAMED:
        return _NAMED[code]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def is_unsafe(char: str) -> bool:
    """Whether showing ``char`` as it is could change what a reader sees (see the module)."""
    code = ord(char)
    return code in CONTROL_CODES or unicodedata.category(char) in HIDDEN_CATEGORIES


_CACHED_CODES = 8192
"""How many code points a table remembers: text with many distinct characters cannot grow it."""


class _Escapes(dict[int, str]):
    """A ``str.translate`` table filled as characters are met: only non-printable text gets
    here, and the Unicode categories are too many code points to list ahead."""

    def __init__(self, kept: frozenset[int], spell: Callable[[int], str]) -> None:
        super().__init__()
        self.kept = kept
        self.spell = spell

    def __missing__(self, code: int) -> str:
        char = chr(code)
        shown = char if code in self.kept or not is_unsafe(char) else self.spell(code)
        if len(self) < _CACHED_CODES:
            self[code] = shown
        return shown


def _json_spelt(code: int) -> str:
    """``code`` as a JSON escape: a surrogate pair beyond the BMP."""
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


_ESCAPES = _Escapes(frozenset((0x09,)), _spelt)
_ESCAPES_KEEPING_NEWLINES = _Escapes(frozenset((0x09, 0x0A)), _spelt)
_MASK = _Escapes(frozenset((0x09,)), lambda _code: "\ufffd")
_JSON_ESCAPES = _Escapes(frozenset(), _json_spelt)


def escape_controls(text: str, *, newlines: bool = False) -> str:
    """``text`` with every control, bidi, invisible or surrogate character but tab (and
    newline, with ``newlines``) spelt out."""
    if text.isprintable():
        return text
    return text.translate(_ESCAPES_KEEPING_NEWLINES if newlines else _ESCAPES)


def mask_unsafe(text: str) -> str:
    """``text`` with each character :func:`escape_controls` would spell out (but tab) replaced
    by one U+FFFD: for views that keep a column per character, such as the diff."""
    if text.isprintable():
        return text
    return text.translate(_MASK)


def escape_json_controls(line: str) -> str:
    """A ``json.dumps(..., ensure_ascii=False)`` line with DEL, C1, bidi, invisible characters
    and lone surrogates as JSON escapes: ``json`` already escapes C0, but leaves those raw."""
    if line.isascii() and "\x7f" not in line:
        return line
    return line.translate(_JSON_ESCAPES)
