"""Events read back from the JSON they were logged as, each field checked against its type.

``events.jsonl`` outlives the version that wrote it and can be cut short or edited by hand, and
history has always read what a line holds and passed over the rest. So a field that is missing,
or whose value is not of its type, takes its default: the dataclass's own, else None where the
field may be None, else the type's empty value (``""``, 0, False, an empty list). A field of an
enum type has no empty value: without a valid value the line is unreadable (:class:`_FieldError`,
and the caller keeps it as an unknown event). Either way no wrong type reaches history or the TUI.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any, NamedTuple

from orch_tui.core.domain import evidence as _evidence  # noqa: F401  registers EvidenceFound
from orch_tui.core.domain.events import EVENT_TYPES, Event, UnknownEvent
from orch_tui.core.domain.state import RunState

Convert = Callable[[Any], Any]
"""Turns a JSON value into the field's value, or raises :class:`_FieldError`."""


class _FieldError(ValueError):
    """A field's value is missing or not of the field's type; the message names the field."""


def _scalar(kind: type, check: Callable[[Any], bool], make: Convert) -> Convert:
    def convert(value: Any) -> Any:
        if not check(value):
            raise _FieldError(f"not a {kind.__name__}: {value!r}")
        return make(value)

    return convert


def _enum(kind: type[Enum]) -> Convert:
    members = {member.value: member for member in kind}  # a lookup: faster than kind(value)

    def convert(value: Any) -> Any:
        try:
            return members[value]
        except (KeyError, TypeError):  # TypeError: a list or an object is no key
            raise _FieldError(f"not a {kind.__name__}: {value!r}") from None

    return convert


def _optional(inner: Convert) -> Convert:
    return lambda value: None if value is None else inner(value)


def _list(item: Convert) -> Convert:
    def convert(value: Any) -> Any:
        if not isinstance(value, list):
            raise _FieldError(f"not a list: {value!r}")
        return [item(entry) for entry in value]

    return convert


def _dict(item: Convert) -> Convert:
    def convert(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _FieldError(f"not an object: {value!r}")
        return {key: item(entry) for key, entry in value.items()}

    return convert


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_SCALARS: dict[Any, Convert] = {
    str: _scalar(str, lambda value: isinstance(value, str), str),
    int: _scalar(int, _is_int, int),
    float: _scalar(float, _is_number, float),
    bool: _scalar(bool, lambda value: isinstance(value, bool), bool),
    Any: lambda value: value,
}


def _converter(hint: Any) -> Convert:
    """The converter for a field annotated ``hint`` (the types events use: str, int, float,
    bool, Any, enums, ``X | None``, lists and string-keyed dicts of those)."""
    if hint in _SCALARS:
        return _SCALARS[hint]
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _enum(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        others = [arg for arg in args if arg is not type(None)]
        if len(others) == 1 and len(args) == 2:
            return _optional(_converter(others[0]))
    if origin is list:
        return _list(_converter(args[0]))
    if origin is dict and args[0] is str:
        return _dict(_converter(args[1]))
    raise TypeError(f"an event field of type {hint!r} cannot be read back")


class _FieldReader(NamedTuple):
    """How one field is read. (A tuple: history reads every event of every run through these,
    so the common case, a value of exactly the field's type, is one ``type(value) is`` test.)"""

    name: str
    exact: type | None
    """A value of exactly this type is taken as it is; any other goes through ``convert``."""
    convert: Convert
    default: Callable[[], Any] | None
    """What a missing or mistyped field becomes; None: nothing can (the line is unreadable)."""


def _field_readers(
    cls: type, namespace: dict[str, Any], defaults: dict[str, Callable[[], Any]]
) -> tuple[_FieldReader, ...]:
    """A reader per field of the dataclass ``cls``. ``namespace`` resolves annotations its
    module imports only for type checking; ``defaults`` overrides what a missing field
    becomes (an event's ``at`` is not stamped with the time it is read)."""
    hints = typing.get_type_hints(cls, localns=namespace)
    return tuple(
        _FieldReader(
            field.name,
            _EXACT.get(hints[field.name]),
            _converter(hints[field.name]),
            defaults.get(field.name) or _default(field, hints[field.name]),
        )
        for field in dataclasses.fields(cls)
    )


def _default(field: dataclasses.Field[Any], hint: Any) -> Callable[[], Any] | None:
    """What ``field`` becomes when a line lacks it or holds a value of another type; None
    when nothing can stand in for it (an enum)."""
    if field.default is not dataclasses.MISSING:
        value = field.default
        return lambda: value
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory
    if type(None) in typing.get_args(hint) or hint is Any:
        return lambda: None
    origin = typing.get_origin(hint) or hint
    return _EMPTY.get(origin)


_EXACT: dict[Any, type] = {
    str: str,
    int: int,
    float: float,
    bool: bool,
    str | None: str,
    int | None: int,
    float | None: float,
}
"""The field types whose values JSON gives back as they are, by the type a value must be."""

_MISSING = object()

_EMPTY: dict[Any, Callable[[], Any]] = {
    str: str,
    int: int,
    float: float,
    bool: bool,
    list: list,
    dict: dict,
}
"""The empty value of each type that has one: ``str()`` is "", ``int()`` is 0, and so on."""


def _read_fields(readers: tuple[_FieldReader, ...], data: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments to construct the event from ``data``; keys no field names are
    ignored (a newer version's additions)."""
    values = {}
    for name, exact, convert, default in readers:
        value = data.get(name, _MISSING)
        if type(value) is exact:
            values[name] = value
            continue
        problem = f"{name} is missing"
        if value is not _MISSING:
            try:
                values[name] = convert(value)
                continue
            except _FieldError as exc:
                problem = f"{name}: {exc}"
        if default is None:
            raise _FieldError(problem)
        values[name] = default()
    return values


def event_from_json(data: Any) -> Event:
    """The event a logged JSON object holds (what :meth:`Event.to_json` wrote), of the class
    its ``event`` key names. Never raises: an unknown kind, or a field missing or of the wrong
    type, gives an :class:`UnknownEvent` that says what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("event"), str):
        return UnknownEvent(event="", problem="not an event object", data={"value": data})
    kind = EVENT_TYPES.get(data["event"])
    if kind is None:
        return _unknown(data, "an event kind this version does not know")
    try:
        return kind(**_read_fields(_readers(kind), data))
    except _FieldError as exc:
        return _unknown(data, str(exc))


def _unknown(data: dict[str, Any], problem: str) -> UnknownEvent:
    at = data.get("at")
    return UnknownEvent(
        event=data["event"], at=at if isinstance(at, str) else "", problem=problem, data=data
    )


_READERS: dict[type[Event], tuple[_FieldReader, ...]] = {}
_NOT_LOGGED: dict[str, Callable[[], Any]] = {"at": str, "attempt": lambda: -1}
"""What a line without these fields reads as: no time (not the time it is read), no attempt
(not attempt 0)."""


def _readers(kind: type[Event]) -> tuple[_FieldReader, ...]:
    """How to read each field of ``kind``, worked out on its first read."""
    if kind not in _READERS:
        _READERS[kind] = _field_readers(kind, {"RunState": RunState}, _NOT_LOGGED)
    return _READERS[kind]
