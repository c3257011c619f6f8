"""Any other file: its kind, from its first bytes (and its name's suffix for text)."""

from __future__ import annotations

import mimetypes
from pathlib import Path

from orch_tui.core.datafiles.head import read_head

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"PAR1", "Parquet file"),
)


def file_kind(path: Path) -> str:
    """What the file is: a known binary format, text, or binary data."""
    head = read_head(path, 4096)
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if b"\0" in head:
        return "binary data"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:
            return "binary data"
    guessed, _ = mimetypes.guess_type(path.name)
    return f"text ({guessed})" if guessed else "text"
