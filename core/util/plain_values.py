"""A dataclass as plain data, as ``dataclasses.asdict`` gives it, without its deep copy.

``asdict`` deep-copies every value it reaches; for a record that is serialised at once (an
event's log line) that copy is most of its cost, and nothing mutates the result.
"""

from __future__ import annotations

from dataclasses import asdict, fields, is_dataclass
from typing import Any


def shallow_asdict(instance: Any) -> dict[str, Any]:
    """``asdict(instance)``: the same keys and values, leaves shared instead of copied."""
    cls = type(instance)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return {name: _plain(getattr(instance, name)) for name in names}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""Each dataclass's field names, looked up once (``fields`` builds its tuple on every call)."""


def _plain(value: Any) -> Any:
    """``value`` as ``asdict`` holds it: dataclasses as dicts, lists, tuples and dicts walked."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {_plain(key): _plain(item) for key, item in value.items()}
    if isinstance(value, tuple):
        items = [_plain(item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return value
