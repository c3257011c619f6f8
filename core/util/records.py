"""``@record``: a dataclass that compiles nothing until it is first made, and shares the rest.

``@dataclass`` writes each method of each class as source and compiles it: ~460 functions for
the ~110 classes made before ``--auto``'s first model request, most of their build time
(issue 26, item 6), though a run makes instances of only some of them. :func:`record` compiles
a class's ``__init__`` when it is first looked up (the first instance, ``inspect.signature``:
:mod:`.record_init`), and writes no frozen guard at all: a frozen class's ``__setattr__`` and
``__delattr__`` are closures, as ``@dataclass`` words them;
equality, the repr and the hash are three functions every record shares, reading the fields
through an ``attrgetter`` made once per class. Everything else sees the dataclass
``@dataclass`` makes: the same fields and parameters, the same ``__init__`` and its errors,
equal, hashed and shown alike, a method the class defines itself kept, as ``@dataclass`` keeps
it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, NamedTuple, TypeVar, dataclass_transform, overload

from orch_tui.core.util.record_init import InitLater, refusal

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
    # A frozen class's guards are ours when nothing else has a say in them: no record base to
    # agree with on frozenness, no slots (whose frozen pickling dataclass sets up), none written.
    own_guards = frozen and not slots and not _has_record_base(cls) and not _writes_guards(own)
    made: Any = dataclass(
        cls,
        init=False,
        frozen=frozen and not own_guards,
        kw_only=kw_only,
        slots=slots,
        eq=False,
        repr=False,
    )
    made.__dataclass_params__.init = True
    if undocumented:
        made.__doc__ = _SignatureDoc()
    every = fields(made)
    if own_guards:
        made.__dataclass_params__.frozen = True
        made.__setattr__, made.__delattr__ = _frozen_guards(made, {f.name for f in every})
    if refused := refusal(made):
        raise refused  # as @dataclass refuses it: as the class is made
    if "__init__" not in own:
        made.__init__ = InitLater(made, slots=slots)
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


def _has_record_base(cls: type) -> bool:
    return any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:])


def _writes_guards(own: dict[str, Any]) -> bool:
    return "__setattr__" in own or "__delattr__" in own


def _frozen_guards(cls: Any, names: set[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    """A frozen class's ``__setattr__`` and ``__delattr__``, as ``@dataclass`` writes them."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __setattr__, __delattr__


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
