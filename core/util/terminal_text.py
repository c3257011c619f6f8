"""Text someone else chose (the model, its tests, a file), made safe to show on a terminal.

Printed raw, ``\\r``, ``\\x1b[2K`` or an 8-bit CSI (``\\x9b``) in a path rewrites what the
terminal shows: it can erase the line that announced a file, or fake another one. Every
model-chosen string on its way to a terminal (``--auto`` lines, ``status``, the TUI's labels)
goes through :func:`escape_controls`, which spells such characters out (``\\x1b``) instead.
Lone surrogates are spelt out too: they cannot be encoded, so printing one would crash.
"""

from __future__ import annotations

CONTROL_CODES = frozenset((*range(0x20), 0x7F, *range(0x80, 0xA0)))
"""C0, DEL and C1: the code points a terminal may act on instead of showing."""

_NAMED = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}
_SURROGATES = {code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)}
_ESCAPES = {
    **{code: _NAMED.get(code, f"\\x{code:02x}") for code in CONTROL_CODES if code != 0x09},
    **_SURROGATES,
}
_ESCAPES_KEEPING_NEWLINES = {code: text for code, text in _ESCAPES.items() if code != 0x0A}
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in (*range(0x7F, 0xA0), *_SURROGATES)}


def escape_controls(text: str, *, newlines: bool = False) -> str:
    """``text`` with every control character but tab (and newline, with ``newlines``) spelt out."""
    if text.isprintable():
        return text
    return text.translate(_ESCAPES_KEEPING_NEWLINES if newlines else _ESCAPES)


def escape_json_controls(line: str) -> str:
    """A ``json.dumps(..., ensure_ascii=False)`` line with DEL, C1 and lone surrogates as JSON
    escapes: ``json`` already escapes C0, but leaves those raw."""
    if line.isascii() and "\x7f" not in line:
        return line
    return line.translate(_JSON_ESCAPES)
