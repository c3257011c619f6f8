"""JSON: the top-level shape and a sample.

A file up to :data:`WHOLE_LIMIT` is parsed whole (a malformed one is refused, with the line
and column); a larger one is described from its head only: its opening bracket and first bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orch_tui.core.datafiles.head import HEAD_BYTES, DataError, read_head, text_head

WHOLE_LIMIT = HEAD_BYTES
"""JSON files up to this size are parsed whole; larger ones are described from their head."""
SAMPLE_CHARS = 1500
SAMPLE_ITEMS = 3


def describe_json(path: Path, size: int) -> str:
    head = read_head(path)
    text = text_head(path, head, "JSON text")
    if size > len(head):
        return _from_head(path, text)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    return f"top level: {shape(value)}\nsample:\n{_clip(json.dumps(_sample(value), ensure_ascii=False))}"


def shape(value: Any) -> str:
    """``an array of 120 objects with keys id, name``, ``an object with keys a, b``, ``a string``."""
    if isinstance(value, dict):
        keys = ", ".join(list(value)[:20]) + (", …" if len(value) > 20 else "")
        return f"an object with {len(value)} keys: {keys}" if value else "an empty object"
    if isinstance(value, list):
        if not value:
            return "an empty array"
        kinds = sorted({_kind(item) for item in value})
        first = value[0]
        keys = (
            f" (the first with keys {', '.join(list(first)[:20])})"
            if isinstance(first, dict)
            else ""
        )
        return f"an array of {len(value):,} items: {' / '.join(kinds)}{keys}"
    return f"a single {_kind(value)}"


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "null" if value is None else "string"


def _sample(value: Any) -> Any:
    if isinstance(value, list):
        return value[:SAMPLE_ITEMS]
    if isinstance(value, dict):
        return {key: value[key] for key in list(value)[:10]}
    return value


def _from_head(path: Path, text: str) -> str:
    opening = text.lstrip()[:1]
    if opening not in ("[", "{"):
        raise DataError(f"{path}: does not start like JSON (an array or an object is expected)")
    kind = "an array" if opening == "[" else "an object"
    return (
        f"top level: {kind} (read from the first {HEAD_BYTES:,} bytes only)\n"
        f"sample (the file's first characters):\n{_clip(text.lstrip())}"
    )


def _clip(text: str) -> str:
    return text if len(text) <= SAMPLE_CHARS else text[:SAMPLE_CHARS] + "\n…"
