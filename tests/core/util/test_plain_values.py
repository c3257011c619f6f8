"""shallow_asdict gives what dataclasses.asdict gives, without copying the leaves."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from orch_tui.core.domain import events
from orch_tui.core.util.plain_values import shallow_asdict


class Span(NamedTuple):
    first: int
    last: int


@dataclass
class Inner:
    name: str
    spans: list[Span]


@dataclass
class Outer:
    inner: Inner
    inners: tuple[Inner, ...]
    by_name: dict[str, Inner]
    data: dict[str, Any] = field(default_factory=dict)


def test_nested_values_come_out_as_asdict_gives_them() -> None:
    payload = {"list": [1, {"a": [2, 3]}], "text": "é"}
    one = Inner("a", [Span(1, 2)])
    outer = Outer(one, (one, Inner("b", [])), {"a": one}, payload)
    plain = shallow_asdict(outer)
    assert plain == asdict(outer)
    assert type(plain["inners"]) is tuple and type(plain["inner"]["spans"][0]) is Span
    assert plain["data"] is not payload and plain["data"]["list"] is not payload["list"]


def test_an_events_line_is_what_it_was() -> None:
    for event in (
        events.TestsFinished(
            attempt=2,
            passed=False,
            summary="1 failed",
            counts={"failed": 1},
            failing=["t"],
            errors=[],
        ),
        events.ToolEdit(attempt=1, command="create", path="a.py", ok=True, detail="done"),
    ):
        assert event.to_json() == {"event": event.kind, **asdict(event)}
