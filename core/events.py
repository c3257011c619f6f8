"""What the engine tells the world, as typed events.

The JSONL run log, the headless printer and the TUI all subscribe to these;
none of them reaches into the engine. Every event serialises to one JSON object
whose ``event`` key is the class's ``kind``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from core.state import utc_now


@dataclass(kw_only=True)
class Event:
    kind: ClassVar[str] = "event"
    at: str = field(default_factory=utc_now)

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind, **asdict(self)}


@dataclass(kw_only=True)
class RunStarted(Event):
    kind: ClassVar[str] = "run_started"
    run_id: str
    spec_path: str
    provider: str
    model: str
    max_retries: int
    resumed: bool
    state: str
    attempt: int


@dataclass(kw_only=True)
class Notice(Event):
    """Something a person should read: a replay announcement, a clamped setting."""

    kind: ClassVar[str] = "notice"
    message: str


@dataclass(kw_only=True)
class StateChanged(Event):
    kind: ClassVar[str] = "state"
    state: str
    attempt: int
    max_retries: int


@dataclass(kw_only=True)
class ModelText(Event):
    """A piece of the model's streamed text (not written to the JSONL log)."""

    kind: ClassVar[str] = "model_text"
    attempt: int
    text: str


@dataclass(kw_only=True)
class ToolEdit(Event):
    kind: ClassVar[str] = "tool_edit"
    attempt: int
    command: str
    path: str | None
    ok: bool
    detail: str


@dataclass(kw_only=True)
class ModelTurn(Event):
    """One model response finished; usage is that response's, cost the run's so far."""

    kind: ClassVar[str] = "model_turn"
    attempt: int
    turn: int
    stop_reason: str
    input_tokens: int
    output_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    run_tokens: int
    run_cost_usd: float


@dataclass(kw_only=True)
class ProposalReady(Event):
    kind: ClassVar[str] = "proposal"
    attempt: int
    files: list[str]
    added: int
    removed: int
    hunks: int


@dataclass(kw_only=True)
class ReviewFinished(Event):
    kind: ClassVar[str] = "review"
    attempt: int
    accepted: int
    rejected: int
    edited: list[str]
    reject_reason: str | None
    files_landing: list[str]


@dataclass(kw_only=True)
class ChangeApplied(Event):
    kind: ClassVar[str] = "applied"
    attempt: int
    files: list[str]


@dataclass(kw_only=True)
class CheckOutput(Event):
    """A chunk of a check's live output (not written to the JSONL log)."""

    kind: ClassVar[str] = "check_output"
    attempt: int
    check: str
    text: str


@dataclass(kw_only=True)
class TestsFinished(Event):
    kind: ClassVar[str] = "tests"
    attempt: int
    passed: bool
    summary: str
    counts: dict[str, int]
    failing: list[str]
    errors: list[str]


@dataclass(kw_only=True)
class RunFinished(Event):
    kind: ClassVar[str] = "run_finished"
    state: str
    attempt: int
    stop_reason: str | None
    exit_code: int
    tokens: int
    cost_usd: float


# Events too chatty for the append-only log: their content is saved per attempt instead.
STREAM_EVENTS = (ModelText, CheckOutput)

Subscriber = Callable[[Event], None]


class EventBus:
    """Delivers every event to every subscriber, in order, on the emitting thread."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.append(subscriber)

    def emit(self, event: Event) -> None:
        for subscriber in self._subscribers:
            subscriber(event)
