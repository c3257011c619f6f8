"""Reading a bounded head of a file, and the words for its size.

A data file may be gigabytes: every description is made from at most :data:`HEAD_BYTES` of it.
"""

from __future__ import annotations

from pathlib import Path

HEAD_BYTES = 64 * 1024
"""The most of a file read to describe it."""


class DataError(Exception):
    """A data file that cannot be used, with the file and the reason for a person."""


def read_head(path: Path, limit: int = HEAD_BYTES) -> bytes:
    """The first ``limit`` bytes of ``path`` (all of it when smaller), read once."""
    with path.open("rb") as handle:
        return handle.read(limit)


def text_head(path: Path, head: bytes, what: str) -> str:
    """``head`` as text: refused when it looks binary or is not UTF-8 (a cut last character is
    dropped, since the head may end inside one)."""
    if b"\0" in head:
        raise DataError(f"{path}: looks binary (it has NUL bytes), not {what}")
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not merely a character cut at the end of the head
            raise DataError(
                f"{path}: is not UTF-8 text ({exc.reason} at byte {exc.start}), not {what}"
            ) from None
        text = head[: exc.start].decode("utf-8-sig")
    return text


def size_words(size: int) -> str:
    """``1,234 bytes``, ``12.3 KB``, ``4.5 MB``, ``2.0 GB``."""
    if size < 1000:
        return f"{size:,} bytes"
    for unit, scale in (("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12)):
        if size < scale * 1000 or unit == "TB":
            return f"{size / scale:.1f} {unit}"
    raise AssertionError("unreachable")
