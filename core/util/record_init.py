"""A record's ``__init__``, written and compiled when it is first looked up, not as the class is made.

``@dataclass`` compiles every class's ``__init__`` as it makes the class; before ``--auto``'s
first model request that was 108 functions, and the run had made instances of 32 of those
classes (issue 26, item 6). :class:`InitLater` stands in for the method until something looks
it up (the first instance, ``inspect.signature``, a subclass's ``super().__init__``), then
:func:`compiled_init` writes the source ``@dataclass`` writes (CPython's ``_init_fn`` and
``_field_init``: the same parameters, defaults, body and ``__post_init__`` call; the same
annotations, set as a dict rather than compiled) and puts the function in its place.
``tests/core/util/test_records.py`` compares both ways.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import MISSING, Field, fields
from typing import Any


class _Factory:
    """The default of a parameter whose field has a default factory (``<factory>``)."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _Factory()


class InitLater:
    """``cls.__init__`` until it is first looked up: then compiled and put in this one's place."""

    def __init__(self, cls: Any, *, slots: bool) -> None:
        self.cls = cls
        self.slots = slots

    def __get__(self, instance: object, owner: type) -> Any:
        init = compiled_init(self.cls, slots=self.slots)
        self.cls.__init__ = init
        return init.__get__(instance, owner)


def refusal(cls: Any) -> TypeError | None:
    """``@dataclass``'s error for a class whose ``__init__`` cannot be written (a positional
    parameter without a default after one with), which it raises as the class is made."""
    seen_default = False
    for f in _init_fields(cls):
        if f.init and not f.kw_only:
            if f.default is not MISSING or f.default_factory is not MISSING:
                seen_default = True
            elif seen_default:
                return TypeError(f"non-default argument {f.name!r} follows default argument")
    return None


def _init_fields(cls: Any) -> list[Field[Any]]:
    """The fields and ``InitVar``\\ s of ``cls``, in order, without its ``ClassVar``\\ s (the
    pseudo-fields whose ``kw_only`` ``@dataclass`` leaves unset)."""
    regular = {f.name for f in fields(cls)}
    return [
        f
        for f in cls.__dataclass_fields__.values()
        if f.name in regular or f.kw_only is not MISSING
    ]


def compiled_init(cls: Any, *, slots: bool) -> Callable[..., None]:
    """The ``__init__`` ``@dataclass`` writes for ``cls``."""
    every = _init_fields(cls)
    regular = {f.name for f in fields(cls)}
    self_name = "__dataclass_self__" if "self" in {f.name for f in every} else "self"
    frozen = cls.__dataclass_params__.frozen
    names: dict[str, Any] = {"_HAS_FACTORY": _HAS_FACTORY, "__dataclass_builtins_object__": object}
    body = []
    for f in every:
        value = _field_value(f, names, slots=slots)
        if value is None or f.name not in regular:  # nothing to set, or an InitVar
            continue
        if frozen:
            body.append(
                f"__dataclass_builtins_object__.__setattr__({self_name},{f.name!r},{value})"
            )
        else:
            body.append(f"{self_name}.{f.name}={value}")
    if hasattr(cls, "__post_init__"):
        initvars = ",".join(f.name for f in every if f.name not in regular)
        body.append(f"{self_name}.__post_init__({initvars})")
    positional = [f for f in every if f.init and not f.kw_only]
    keywords = [f for f in every if f.init and f.kw_only]
    parameters = [_parameter(f) for f in positional]
    if keywords:
        parameters += ["*", *(_parameter(f) for f in keywords)]
    source = (
        f"def __create_fn__({', '.join(names)}):\n"
        f" def __init__({', '.join([self_name, *parameters])}):\n"
        + "".join(f"  {line}\n" for line in body or ["pass"])
        + " return __init__"
    )
    module = sys.modules.get(cls.__module__)
    made: dict[str, Any] = {}
    # Not under this module's `from __future__ import annotations`: the annotations are values.
    code = compile(source, "<string>", "exec", dont_inherit=True)
    exec(code, vars(module) if module else {}, made)  # our own source, as dataclass's
    init: Callable[..., None] = made["__create_fn__"](**names)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    # The annotations @dataclass writes into the source (``name:_type_name``, ``-> None``), set
    # as the same dict: compiling them took a fifth of the time of writing an ``__init__``.
    init.__annotations__ = {f.name: f.type for f in (*positional, *keywords)} | {"return": None}
    return init


def _parameter(f: Field[Any]) -> str:
    if f.default is not MISSING:
        return f"{f.name}=_dflt_{f.name}"
    if f.default_factory is not MISSING:
        return f"{f.name}=_HAS_FACTORY"
    return f.name


def _field_value(f: Field[Any], names: dict[str, Any], *, slots: bool) -> str | None:
    """What ``__init__`` sets field ``f`` to (its default's name added to ``names``), or None
    when it sets nothing: an ``__init__``-less field read from the class's default."""
    default = f"_dflt_{f.name}"
    if f.default_factory is not MISSING:
        names[default] = f.default_factory
        return (
            f"{default}() if {f.name} is _HAS_FACTORY else {f.name}" if f.init else f"{default}()"
        )
    if f.init:
        if f.default is not MISSING:
            names[default] = f.default
        return f.name
    if slots and f.default is not MISSING:
        names[default] = f.default
        return default
    return None
