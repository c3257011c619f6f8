"""``@record``: a dataclass whose ``__eq__``, ``__repr__`` and ``__hash__`` are shared, not compiled.

``@dataclass`` writes each method of each class as source and compiles it: ~460 functions for
the ~110 classes made before ``--auto``'s first model request, most of their build time
(issue 26, item 6). :func:`record` has it compile only what the class's own signature needs
(``__init__``, and a frozen class's ``__setattr__`` and ``__delattr__``); equality, the repr
and the hash are three functions every record shares, reading the fields through an
``attrgetter`` made once per class. Everything else sees the dataclass ``@dataclass`` makes:
the same fields and parameters (``__dataclass_params__`` says ``eq`` and ``repr``), equal,
hashed and shown alike, a method the class defines itself kept, as ``@dataclass`` keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, NamedTuple, TypeVar, dataclass_transform, overload

T = TypeVar("T")


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(
    *, frozen: bool = False, kw_only: bool = False, slots: bool = False, eq: bool = True
) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def record(
    cls: type[T] | None = None,
    /,
    *,
    frozen: bool = False,
    kw_only: bool = False,
    slots: bool = False,
    eq: bool = True,
) -> type[T] | Callable[[type[T]], type[T]]:
    """``@dataclass`` with the same arguments (those the project uses), its methods shared."""

    def made(cls: type[T]) -> type[T]:
        return _record(cls, frozen=frozen, kw_only=kw_only, slots=slots, eq=eq)

    return made if cls is None else made(cls)


def _record(cls: type[T], *, frozen: bool, kw_only: bool, slots: bool, eq: bool) -> type[T]:
    own = dict(cls.__dict__)  # as written, before dataclass adds to it (or, slots, replaces it)
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = _LATER  # spares dataclass its inspect.signature: see _SignatureDoc
    made: Any = dataclass(cls, frozen=frozen, kw_only=kw_only, slots=slots, eq=False, repr=False)
    if undocumented:
        made.__doc__ = _SignatureDoc()
    every = fields(made)
    made.__record__ = _Shape(
        key=_getter([f.name for f in every if f.compare]),
        hashed=_getter([f.name for f in every if (f.compare if f.hash is None else f.hash)]),
        shown=tuple(f.name for f in every if f.repr),
    )
    if "__repr__" not in own:
        made.__repr__ = _repr
    made.__dataclass_params__.repr = True
    if not eq:
        return made  # type: ignore[no-any-return]
    made.__dataclass_params__.eq = True
    if "__eq__" not in own:
        made.__eq__ = _eq
    written_hash = own.get("__hash__", MISSING)
    if written_hash is MISSING or (written_hash is None and "__eq__" in own):
        made.__hash__ = _hash if frozen else None  # @dataclass's rule: hashed only when frozen
    return made  # type: ignore[no-any-return]


_LATER = "(the name and signature, worked out when first read)"


class _SignatureDoc:
    """An undocumented record's docstring, its name and signature as ``@dataclass`` writes it,
    worked out when it is first read: ``inspect.signature`` took a sixth of the time of making
    a record, for the ~40 undocumented ones made before ``--auto``'s first model request."""

    def __get__(self, instance: object, owner: type) -> str:
        import inspect

        try:
            signature = str(inspect.signature(owner)).replace(" -> None", "")
        except (TypeError, ValueError):
            signature = ""
        owner.__doc__ = owner.__name__ + signature
        return owner.__doc__


class _Shape(NamedTuple):
    """What the shared methods read of a record's class: its fields as they compare, hash, show."""

    key: Callable[[Any], tuple[Any, ...]]
    hashed: Callable[[Any], tuple[Any, ...]]
    shown: tuple[str, ...]


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields ``names`` of an object as a tuple, as ``@dataclass``'s methods compare them."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        name = names[0]
        return lambda obj: (getattr(obj, name),)
    return lambda obj: ()


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = self.__class__.__record__.key
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__class__.__record__.hashed(self))


@recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__class__.__record__.shown)
    return f"{self.__class__.__qualname__}({shown})"
