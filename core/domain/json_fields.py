"""Reading a field of a saved JSON object, with a message that names it when it is wrong.

``state.json`` and its records are read with these: a damaged file is refused with the first
field of the wrong shape (``workspace.git.branch is 3, expected a string``), never half-read.
"""

from __future__ import annotations

import json
from typing import Any

MAX_COUNT = 2**63
"""Above any real attempt, exit code or token count: a bigger number is a damaged file."""

_KINDS = {
    str: "a string",
    int: "a whole number",
    dict: "an object",
    list: "a list",
    bool: "true or false",
}


def field_of(
    data: dict[str, Any], key: str, kind: type, *, optional: bool = False, within: str = ""
) -> Any:
    """``data[key]`` if it is a ``kind`` (None too, when ``optional``); else ValueError.

    ``within`` names the object ``data`` sits in, for the message (``last_test``)."""
    name = f"{within}.{key}" if within else key
    if key not in data and not optional:
        raise ValueError(f"missing key {name!r}")
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValueError(f"{name} is {shown(value)}, expected {_KINDS.get(kind, kind.__name__)}")
    if isinstance(value, int) and not -MAX_COUNT < value < MAX_COUNT:
        raise ValueError(f"{name} is {shown(value)}, out of range")
    return value


def shown(value: Any) -> str:
    """``value`` as a message quotes it: JSON for scalars, the type's name otherwise, short."""
    text = (
        json.dumps(value)
        if isinstance(value, str | int | float | bool | None)
        else type(value).__name__
    )
    return text if len(text) <= 40 else text[:39] + "…"


def count_of(data: dict[str, Any], key: str, within: str = "") -> int:
    """A whole number of 0 or more."""
    value: int = field_of(data, key, int, within=within)
    if value < 0:
        raise ValueError(f"{within + '.' if within else ''}{key} is {value}, expected 0 or more")
    return value


def object_of(value: Any, name: str) -> dict[str, Any] | None:
    """``value`` when it is an object (or None); else ValueError naming it ``name``."""
    found: dict[str, Any] | None = field_of({name: value}, name, dict, optional=True)
    return found


def texts_of(data: dict[str, Any], key: str, within: str) -> list[str]:
    """``data[key]``, when there, must be a list of strings; [] when absent."""
    items = field_of(data, key, list, optional=True, within=within) or []
    if not all(isinstance(item, str) for item in items):
        raise ValueError(f"{within}.{key} holds something other than text")
    return list(items)
