"""Events read back from JSON as the dataclasses they were written as (core/domain/events.py)."""

from __future__ import annotations

import dataclasses
import json
import typing
from enum import Enum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orch_tui.core.domain import events as ev  # TestsFinished by name would be collected
from orch_tui.core.domain.asking import QuestionSource
from orch_tui.core.domain.event_reading import event_from_json
from orch_tui.core.domain.events import (
    EVENT_TYPES,
    ChangeApplied,
    CheckOutput,
    Escalated,
    Event,
    EventKind,
    GuidanceGiven,
    ModelText,
    ModelTurn,
    Notice,
    PlanApproved,
    ProposalReady,
    QuestionAsked,
    ReviewFinished,
    RoleDecided,
    RunFinished,
    RunReopened,
    RunRestored,
    RunStarted,
    StateChanged,
    TaskFinished,
    TaskStarted,
    ToolEdit,
    UnknownEvent,
)
from orch_tui.core.domain.evidence import EvidenceFound
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.state import RunState

AT = "2026-11-25T08:00:00.000Z"

SAMPLES: list[Event] = [
    RunStarted(
        at=AT, run_id="r1", spec_path="spec.md", provider="scripted", model="m", max_retries=5,
        resumed=True, state=RunState.REVIEWING, attempt=1, sandbox="bwrap", model_in_use="m2",
        tokens=1200, cost_usd=0.5,
    ),
    Notice(at=AT, message="checks run without a sandbox"),
    StateChanged(at=AT, state=RunState.TESTING, attempt=2, max_retries=5),
    ModelText(at=AT, attempt=0, text="Writing."),
    ToolEdit(at=AT, attempt=0, command="str_replace", path="a.py", ok=False, detail="No match\nx"),
    ModelTurn(
        at=AT, attempt=0, turn=1, stop_reason="end_turn", input_tokens=10, output_tokens=20,
        cache_write_tokens=30, cache_read_tokens=40, run_tokens=100, run_cost_usd=0.25,
    ),
    ProposalReady(at=AT, attempt=0, files=["a.py", "b.py"], added=3, removed=1, hunks=2),
    ReviewFinished(
        at=AT, attempt=0, accepted=2, rejected=1, edited=["a.py"], reject_reason=None,
        files_landing=["a.py"],
    ),
    ChangeApplied(at=AT, attempt=0, files=["a.py"]),
    CheckOutput(at=AT, attempt=0, check="pytest", text="....\n"),
    ev.TestsFinished(
        at=AT, attempt=0, passed=False, summary="4 passed, 7 failed", counts={"passed": 4},
        failing=[f"t{n}" for n in range(7)], errors=["collection error"],
    ),
    PlanApproved(at=AT, tasks=[{"id": "t1", "title": "Parse"}], source="model"),
    TaskStarted(at=AT, task_id="t1", title="Parse", index=0, total=2, first_attempt=1),
    TaskFinished(at=AT, task_id="t1", status=TaskStatus.DONE),
    QuestionAsked(
        at=AT, attempt=0, question="Strings too?", options=["yes", "no"], recommendation="no",
        source=QuestionSource.MODEL,
    ),
    GuidanceGiven(at=AT, attempt=1, text="yes", question="Strings too?"),
    RunReopened(at=AT, from_state="FAILED", attempt=3, max_retries=8),
    Escalated(at=AT, attempt=2, from_model="small", to_model="big", failed_attempts=2),
    RoleDecided(
        at=AT, attempt=1, role="verifier", model="judge-m", decision="insufficient",
        gaps=["no test of empty input", "no CLI"], reason="gaps",
    ),
    EvidenceFound(
        at=AT, attempt=2, added=["tests/test_a.py::test_new"],
        passes_without=["tests/test_a.py::test_new"],
        rewritten={"tests/test_a.py::test_old": "failed"},
        weakened=["tests/test_a.py: assert replaced by a constant in test_old"],
        uncovered_lines=3, changed_lines=140, uncovered={"calc.py": [4, 5, 9]},
        coverage_unavailable="x", problems=["y"],
    ),
    ev.FinalChecksFinished(
        at=AT, attempt=2, passed=False, summary="e2e failed (exit 3)", failed=["e2e"]
    ),
    RunRestored(
        at=AT, message="restored attempt 1: undid 2 files from attempts 2–3", to_attempt=1,
        undone=[2, 3], files=["a.py", "b.py"],
    ),
    RunFinished(
        at=AT, state=RunState.SUCCESS, attempt=1, stop_reason=None, retryable=False,
        exit_code=0, tokens=1500, cost_usd=0.75,
        evidence={"summary": "1 test passes (1 added, 0 rewritten, 0 weakened)", "added": 1},
        summary="2 files changed · tests: 4 passed · 2 attempts · $0.7500 · 12s",
    ),
]  # fmt: skip
"""One event of every kind, every field set to something other than its default."""


def through_json(event: Event) -> Event:
    return event_from_json(json.loads(json.dumps(event.to_json(), ensure_ascii=False)))


def test_every_kind_has_one_class_and_one_sample() -> None:
    assert set(EVENT_TYPES) == set(EventKind)
    assert sorted(type(event).kind for event in SAMPLES) == sorted(EventKind)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda event: event.name)
def test_an_event_written_as_json_reads_back_equal(event: Event) -> None:
    read = through_json(event)
    assert type(read) is type(event) and read == event


def test_enum_fields_read_back_as_their_enums() -> None:
    started, question = through_json(SAMPLES[0]), through_json(SAMPLES[14])
    assert isinstance(started, RunStarted) and type(started.state) is RunState
    assert isinstance(question, QuestionAsked) and type(question.source) is QuestionSource


# -- every kind, any values -------------------------------------------------------------------


def _strategy(hint: Any) -> st.SearchStrategy[Any]:
    """Values of the types event fields have, as JSON carries them back."""
    if isinstance(hint, type) and issubclass(hint, Enum):
        return st.sampled_from(list(hint))
    simple: dict[Any, st.SearchStrategy[Any]] = {
        str: st.text(max_size=12),
        int: st.integers(min_value=-(2**53), max_value=2**53),
        float: st.floats(allow_nan=False, allow_infinity=False),
        bool: st.booleans(),
    }
    if hint in simple:
        return simple[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list:
        return st.lists(_strategy(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(st.text(max_size=6), _strategy(args[1]), max_size=3)
    if hint is Any:
        return st.none() | st.integers() | st.text(max_size=6)
    others = [arg for arg in args if arg is not type(None)]
    return st.none() | _strategy(others[0])


def _events(kind: type[Event]) -> st.SearchStrategy[Event]:
    hints = typing.get_type_hints(kind, localns={"RunState": RunState})
    fields = {field.name: _strategy(hints[field.name]) for field in dataclasses.fields(kind)}
    return st.builds(kind, **fields)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(EVENT_TYPES.values(), key=lambda kind: kind.kind)).flatmap(_events))
def test_any_event_of_any_kind_reads_back_equal(event: Event) -> None:
    assert through_json(event) == event


# -- what a log may hold that this version did not write ---------------------------------------


def test_an_unknown_kind_is_kept_as_an_unknown_event() -> None:
    line = {"event": "batch_started", "at": AT, "jobs": 4}
    read = event_from_json(line)
    assert isinstance(read, UnknownEvent)
    assert (read.name, read.at, read.to_json()) == ("batch_started", AT, line)
    assert "does not know" in read.problem


@pytest.mark.parametrize("value", [["a list"], "text", None, {"event": 3}])
def test_a_value_that_is_no_event_object_is_an_unknown_event(value: Any) -> None:
    read = event_from_json(value)
    assert isinstance(read, UnknownEvent) and read.problem == "not an event object"


def test_a_line_from_before_a_field_existed_reads_with_its_default() -> None:
    older = SAMPLES[0].to_json()
    for added in ("sandbox", "model_in_use", "tokens", "cost_usd"):
        del older[added]
    read = event_from_json(older)
    assert isinstance(read, RunStarted)
    assert (read.sandbox, read.model_in_use, read.tokens, read.cost_usd) == ("none", "", 0, 0.0)
    assert read.run_id == "r1" and read.state == RunState.REVIEWING


def test_missing_or_mistyped_fields_take_empty_values_never_now_or_attempt_0() -> None:
    read = event_from_json({"event": "model_turn", "turn": "two", "run_cost_usd": 1})
    assert isinstance(read, ModelTurn)
    assert (read.at, read.attempt, read.turn, read.stop_reason) == ("", -1, 0, "")
    assert read.run_cost_usd == 1.0 and type(read.run_cost_usd) is float
    review = event_from_json({"event": "review", "edited": "a.py", "reject_reason": 3})
    assert isinstance(review, ReviewFinished)
    assert (review.edited, review.reject_reason) == ([], None)


def test_a_bool_is_not_read_as_a_number() -> None:
    read = event_from_json({"event": "applied", "attempt": True, "files": ["a.py", 2]})
    assert isinstance(read, ChangeApplied) and (read.attempt, read.files) == (-1, [])


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"event": "state", "attempt": 0, "max_retries": 5}, "state is missing"),
        ({"event": "state", "state": "DANCING", "attempt": 0}, "state: not a RunState"),
        (
            {"event": "question", "question": "?", "source": "oracle"},
            "source: not a QuestionSource",
        ),
        ({"event": "task_finished", "task_id": "t1"}, "status is missing"),
    ],
)
def test_an_enum_field_without_a_valid_value_makes_the_line_unknown(
    line: dict[str, Any], field: str
) -> None:
    read = event_from_json({"at": AT, **line})
    assert isinstance(read, UnknownEvent)
    assert (read.name, read.at, read.to_json()) == (line["event"], AT, {"at": AT, **line})
    assert read.problem.startswith(field)
