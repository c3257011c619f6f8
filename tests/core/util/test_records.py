"""``@record`` makes the dataclass ``@dataclass`` makes, compiling nothing until it is first made
(then its ``__init__``): each shape below is built both ways and compared."""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import Any, ClassVar

import pytest

from orch_tui.core.util.records import record


def _compiled(cls: type) -> set[str]:
    """The methods of ``cls`` that ``dataclasses`` wrote as source and compiled (``<string>``)."""
    names = set()
    for name, value in vars(cls).items():
        function = getattr(value, "__wrapped__", value)  # the repr's recursion guard wraps it
        code = getattr(function, "__code__", None)
        if code is not None and code.co_filename == "<string>":
            names.add(name)
    return names


def test_a_frozen_record_compiles_nothing_as_it_is_made_and_its_init_when_first_made() -> None:
    """Issue 26: a run makes instances of a third of the records it loads before its first
    model request; ``@dataclass`` compiles six functions for each frozen class as it is made."""

    def point(decorator: Callable[..., Any]) -> type:
        @decorator(frozen=True)
        class Point:
            x: int
            y: int = 0

        return Point

    assert _compiled(point(dataclass)) == {
        "__init__",
        "__repr__",
        "__eq__",
        "__hash__",
        "__setattr__",
        "__delattr__",
    }
    made = point(record)
    assert _compiled(made) == set()
    assert made(1).y == 0
    assert _compiled(made) == {"__init__"}
    compiled = vars(made)["__init__"]
    assert made(2, 3).y == 3
    assert vars(made)["__init__"] is compiled  # compiled once


def test_a_plain_record_compiles_nothing_until_its_init_is_looked_up() -> None:
    @record
    class Plain:
        x: int

    class Sub(Plain):  # not a record: it inherits Plain's __init__, compiled on Plain
        pass

    assert _compiled(Plain) == set()
    assert Sub(1).x == 1
    assert _compiled(Plain) == {"__init__"} and _compiled(Sub) == set()


def test_a_records_init_compiles_its_body_and_sets_its_annotations_as_a_dict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 26: ``@dataclass`` writes the annotations into the source it compiles
    (``name:_type_name``, ``-> None``), a fifth of an ``__init__``'s compile time; a record's
    source holds none, and its ``__init__`` has the same annotations (compared with
    ``@dataclass``'s for every shape below)."""
    import builtins

    sources: list[str] = []
    real = builtins.compile

    def counted(source: Any, *args: Any, **kwargs: Any) -> Any:
        sources.append(source)
        return real(source, *args, **kwargs)

    @record(frozen=True, kw_only=True)
    class Sized:
        name: str
        size: int = 1
        tags: list[str] = field(default_factory=list)

    monkeypatch.setattr(builtins, "compile", counted)
    made = Sized(name="a")
    monkeypatch.undo()

    (source,) = sources
    parameters, rest = source.split("def __init__(", 1)[1].split(")", 1)
    assert parameters == "self, *, name, size=_dflt_size, tags=_HAS_FACTORY"
    assert not rest.startswith(" ->")
    assert Sized.__init__.__annotations__ == {
        "name": "str",
        "size": "int",
        "tags": "list[str]",
        "return": None,
    }
    assert (made.size, made.tags) == (1, [])


def test_a_record_whose_init_cannot_be_written_is_refused_as_it_is_made() -> None:
    for decorate in (dataclass, record):
        with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):

            @decorate
            class Bad:
                x: int = 0
                y: int


def _shapes(decorate: Callable[..., Any]) -> dict[str, Callable[[], list[Any]]]:
    """Each shape's instances (two equal ones, one not), the class made with ``decorate``."""

    def plain() -> list[Any]:
        @decorate
        class Plain:
            name: str
            count: int = 0
            tags: list[str] = field(default_factory=list)

        return [Plain("a", 1, ["t"]), Plain("a", 1, ["t"]), Plain("a", 2)]

    def frozen() -> list[Any]:
        @decorate(frozen=True)
        class Frozen:
            name: str
            hidden: str = field(default="", repr=False)
            ignored: int = field(default=0, compare=False)
            unhashed: float = field(default=0.0, hash=False)

        return [Frozen("a", "h", 1, 2.0), Frozen("a", "h", 9, 2.0), Frozen("b")]

    def slotted() -> list[Any]:
        @decorate(slots=True)
        class Slotted:
            value: float

        return [Slotted(1.5), Slotted(1.5), Slotted(2.5)]

    def frozen_slotted() -> list[Any]:
        @decorate(frozen=True, slots=True)
        class Both:
            value: tuple[int, ...]

        return [Both((1,)), Both((1,)), Both(())]

    def inherited() -> list[Any]:
        @decorate(kw_only=True)
        class Base:
            kind: ClassVar[str] = "base"
            at: str = "now"

        @decorate(kw_only=True)
        class Child(Base):
            value: int
            seed: InitVar[int] = 0

            def __post_init__(self, seed: int) -> None:
                self.value += seed

        return [Child(value=1, seed=1), Child(value=2), Child(at="then", value=2)]

    def written() -> list[Any]:
        @decorate(frozen=True)
        class Written:
            value: int

            def __eq__(self, other: object) -> bool:
                return isinstance(other, Written) and abs(self.value - other.value) < 2

            def __repr__(self) -> str:
                return f"W{self.value}"

        return [Written(1), Written(2), Written(5)]

    def own_hash() -> list[Any]:
        @decorate
        class OwnHash:
            value: int

            def __hash__(self) -> int:
                return self.value % 2

        return [OwnHash(1), OwnHash(1), OwnHash(2)]

    def identity() -> list[Any]:
        @decorate(eq=False)
        class Identity:
            value: int

        one = Identity(1)
        return [one, one, Identity(1)]

    def empty() -> list[Any]:
        @decorate(frozen=True)
        class Empty:
            pass

        return [Empty(), Empty(), 0]

    def not_a_number() -> list[Any]:
        @decorate(frozen=True)
        class Measured:
            value: float

        nan = math.nan
        return [Measured(nan), Measured(nan), Measured(float("nan"))]

    def unset() -> list[Any]:
        @decorate(frozen=True)
        class Unset:
            name: str
            _: KW_ONLY
            later: list[int] = field(default_factory=list, init=False, hash=False)
            size: int = 1

            def __post_init__(self) -> None:
                self.later.append(self.size)

        return [Unset("a", size=2), Unset("a", size=2), Unset("b")]

    def selfish() -> list[Any]:
        @decorate(slots=True)
        class Selfish:
            self: int
            kept: str = field(default="k", init=False)
            made: list[int] = field(default_factory=list, init=False, repr=False)

        return [Selfish(1), Selfish(self=1), Selfish(2)]

    def seeded() -> list[Any]:
        @decorate(frozen=True)
        class Seeded:
            base: int
            seed: InitVar[int] = 0
            total: int = field(default=0, init=False)

            def __post_init__(self, seed: int) -> None:
                object.__setattr__(self, "total", self.base + seed)

        return [Seeded(1, 2), Seeded(1, seed=2), Seeded(1)]

    shapes = (plain, frozen, slotted, frozen_slotted, inherited, written, own_hash, identity)
    return {
        shape.__name__: shape for shape in (*shapes, empty, not_a_number, unset, selfish, seeded)
    }


def _refused(*calls: Callable[[], Any]) -> list[str]:
    """What each of ``calls`` raises: its error's type and message."""
    errors = []
    for call in calls:
        try:
            call()
        except Exception as error:  # noqa: BLE001 - any error is what is compared
            errors.append(f"{type(error).__name__}: {error}")
        else:
            errors.append("")
    return errors


def _behaviour(instances: list[Any]) -> dict[str, Any]:
    """Everything an outside reader can see of a shape's instances and class."""
    first, second, other = instances
    cls = type(first)
    seen: dict[str, Any] = {
        "repr": [repr(i) for i in instances],
        "eq": [first == second, first == other, second == other, first != second],
        "params": repr(cls.__dataclass_params__) if dataclasses.is_dataclass(cls) else None,
        "hashable": cls.__hash__ is not None,
        "match_args": getattr(cls, "__match_args__", None),
        "slots": getattr(cls, "__slots__", None),
        "doc": (cls.__doc__, first.__doc__),
        "init": (
            str(inspect.signature(cls)),
            cls.__init__.__qualname__,
            cls.__init__.__annotations__,
        ),
        "init refuses": _refused(cls),
        "frozen refuses": _refused(lambda: setattr(first, "x", 1), lambda: delattr(first, "x")),
    }
    if dataclasses.is_dataclass(first):
        seen["fields"] = [
            (f.name, f.repr, f.compare, f.hash, f.kw_only) for f in dataclasses.fields(first)
        ]
        seen["asdict"] = dataclasses.asdict(first)
        seen["replaced"] = repr(dataclasses.replace(first))
    if seen["hashable"]:
        seen["hash equal"] = hash(first) == hash(second)
    return seen


@pytest.mark.parametrize("shape", sorted(_shapes(dataclass)))
def test_a_record_behaves_as_the_dataclass_would(shape: str) -> None:
    assert _behaviour(_shapes(record)[shape]()) == _behaviour(_shapes(dataclass)[shape]())


def test_making_a_record_asks_no_signature_for_its_docstring_until_it_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 26: ``@dataclass`` writes an undocumented class's docstring from
    ``inspect.signature`` as it makes the class; a record leaves that to the first reader."""
    asked: list[object] = []
    real_signature = inspect.signature

    def counted(target: Any, *args: Any, **kwargs: Any) -> inspect.Signature:
        asked.append(target)
        return real_signature(target, *args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counted)
    made = [shape() for shape in _shapes(record).values()]
    assert asked == []
    first = type(made[0][0])
    assert first.__doc__ is not None and first.__doc__.startswith("Plain(name: ")  # as @dataclass's
    assert asked == [first]


def test_a_frozen_record_stays_frozen_and_a_recursive_repr_ends() -> None:
    @record(frozen=True)
    class Frozen:
        value: int

    with pytest.raises(dataclasses.FrozenInstanceError):
        Frozen(1).value = 2  # type: ignore[misc]

    @record
    class Node:
        children: list[Any]

    node = Node([])
    node.children.append(node)
    assert (
        repr(node)
        == "test_a_frozen_record_stays_frozen_and_a_recursive_repr_ends.<locals>.Node(children=[...])"
    )
