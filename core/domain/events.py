"""What the engine tells the world, as typed events.

The JSONL run log, the headless printer and the TUI all subscribe to these;
none of them reaches into the engine. Every event serialises to one JSON object
whose ``event`` key is the class's ``kind``, one of :class:`EventKind`: the log
writer and the history reader share that set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from orch_tui.core.domain.asking import QuestionSource
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.roles import RoleDecision
from orch_tui.core.util.plain_values import shallow_asdict
from orch_tui.core.util.records import record
from orch_tui.core.util.timestamps import utc_now

if TYPE_CHECKING:
    from orch_tui.core.domain.state import RunState


class EventKind(StrEnum):
    """The ``event`` key of every logged event."""

    RUN_STARTED = "run_started"
    NOTICE = "notice"
    STATE = "state"
    MODEL_TEXT = "model_text"
    TOOL_EDIT = "tool_edit"
    MODEL_TURN = "model_turn"
    PROPOSAL = "proposal"
    REVIEW = "review"
    APPLIED = "applied"
    CHECK_OUTPUT = "check_output"
    TESTS = "tests"
    FINAL_CHECKS = "final_checks"
    PLAN = "plan"
    TASK_STARTED = "task_started"
    TASK_FINISHED = "task_finished"
    QUESTION = "question"
    GUIDANCE = "guidance"
    REOPENED = "reopened"
    ESCALATED = "escalated"
    ROLE_DECISION = "role_decision"
    EVIDENCE = "evidence"
    RESTORED = "restored"
    RUN_FINISHED = "run_finished"


EVENT_TYPES: dict[str, type[Event]] = {}
"""Every event class by its kind: what a logged line is read back as."""


@record(kw_only=True)
class Event:
    kind: ClassVar[EventKind]
    at: str = field(default_factory=utc_now)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if isinstance(kind := cls.__dict__.get("kind"), EventKind):
            EVENT_TYPES[kind] = cls

    @property
    def name(self) -> str:
        """The ``event`` key this event is logged under."""
        return self.kind.value

    def to_json(self) -> dict[str, Any]:
        """The logged line's fields: as ``asdict`` gives them, without its deep copy of every
        value (a dozen events an attempt; nothing mutates the result, it is serialised)."""
        return {"event": self.kind, **shallow_asdict(self)}


@record(kw_only=True)
class UnknownEvent(Event):
    """A logged line this version cannot read as an event (see
    :func:`~orch_tui.core.domain.event_reading.event_from_json`): an unknown kind (a newer version's)
    or fields that do not fit. Kept, with what is wrong, so a reader can skip or show it."""

    event: str
    """The line's ``event`` key ("" when the line is no event object at all)."""
    problem: str
    data: dict[str, Any]
    """The line as logged."""

    @property
    def name(self) -> str:
        return self.event

    def to_json(self) -> dict[str, Any]:
        return dict(self.data)


@record(kw_only=True)
class RunStarted(Event):
    kind: ClassVar[EventKind] = EventKind.RUN_STARTED
    run_id: str
    spec_path: str
    provider: str
    model: str
    max_retries: int
    resumed: bool
    state: RunState
    attempt: int
    sandbox: str = "none"
    """What confines the checks: "bwrap" or "none" (checks.sandbox resolved on this machine)."""
    model_in_use: str = ""
    """The model answering now: model.escalate_to once escalated (empty in older logs)."""
    tokens: int = 0
    cost_usd: float = 0.0
    """The run's tokens and cost so far: a resumed run's totals from state.json."""
    follows: str | None = None
    """A change run: the run whose project it changes."""


@record(kw_only=True)
class Notice(Event):
    """Something a person should read: a replay announcement, a clamped setting."""

    kind: ClassVar[EventKind] = EventKind.NOTICE
    message: str


@record(kw_only=True)
class RunRestored(Notice):
    """The person put the workspace back to an earlier attempt's result (``orch-tui restore
    K``, history's ``R``). Read as a notice; logged apart, as it happens outside the run's
    own time, which the run's duration leaves out (:mod:`core.runlog.active_time`)."""

    kind: ClassVar[EventKind] = EventKind.RESTORED
    to_attempt: int = 0
    undone: list[int] = field(default_factory=list)
    """The applied attempts the restore undid."""
    files: list[str] = field(default_factory=list)
    """The files whose text it changed."""


@record(kw_only=True)
class StateChanged(Event):
    kind: ClassVar[EventKind] = EventKind.STATE
    state: RunState
    attempt: int
    max_retries: int


@record(kw_only=True)
class ModelText(Event):
    """A piece of the model's streamed text (not written to the JSONL log)."""

    kind: ClassVar[EventKind] = EventKind.MODEL_TEXT
    attempt: int
    text: str


@record(kw_only=True)
class ToolEdit(Event):
    kind: ClassVar[EventKind] = EventKind.TOOL_EDIT
    attempt: int
    command: str
    path: str | None
    ok: bool
    detail: str


@record(kw_only=True)
class ModelTurn(Event):
    """One model response finished; usage is that response's, cost the run's so far."""

    kind: ClassVar[EventKind] = EventKind.MODEL_TURN
    attempt: int
    turn: int
    stop_reason: str
    input_tokens: int
    output_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    run_tokens: int
    run_cost_usd: float

    @property
    def tokens(self) -> int:
        """This response's tokens of every kind."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_write_tokens
            + self.cache_read_tokens
        )


@record(kw_only=True)
class ProposalReady(Event):
    kind: ClassVar[EventKind] = EventKind.PROPOSAL
    attempt: int
    files: list[str]
    added: int
    removed: int
    hunks: int


@record(kw_only=True)
class ReviewFinished(Event):
    kind: ClassVar[EventKind] = EventKind.REVIEW
    attempt: int
    accepted: int
    rejected: int
    edited: list[str]
    reject_reason: str | None
    files_landing: list[str]


@record(kw_only=True)
class ChangeApplied(Event):
    kind: ClassVar[EventKind] = EventKind.APPLIED
    attempt: int
    files: list[str]
    workspace: str = "workspace/"  # where they landed: workspace/, or --workspace's folder


@record(kw_only=True)
class CheckOutput(Event):
    """A chunk of a check's live output (not written to the JSONL log)."""

    kind: ClassVar[EventKind] = EventKind.CHECK_OUTPUT
    attempt: int
    check: str
    text: str


@record(kw_only=True)
class TestsFinished(Event):
    kind: ClassVar[EventKind] = EventKind.TESTS
    attempt: int
    passed: bool
    summary: str
    counts: dict[str, int]
    failing: list[str]
    errors: list[str]


@record(kw_only=True)
class FinalChecksFinished(Event):
    """``checks.final`` ran, once every task was done (or before SUCCESS without a plan)."""

    kind: ClassVar[EventKind] = EventKind.FINAL_CHECKS
    attempt: int
    passed: bool
    summary: str
    failed: list[str]
    """The names of the final checks that failed."""


@record(kw_only=True)
class PlanApproved(Event):
    """Plan mode: the tasks the run will build, in order (``logs/<run_id>/plan.json``)."""

    kind: ClassVar[EventKind] = EventKind.PLAN
    tasks: list[dict[str, str]]
    source: str
    """Where the plan came from: "spec" (written in it) or "model" (a submit_plan call)."""
    tokens: int = 0
    cost_usd: float = 0.0
    """What the model's planning conversation took (0 when the spec wrote the plan)."""


@record(kw_only=True)
class TaskStarted(Event):
    """Plan mode: a task begins (or resumes); its attempts count from ``first_attempt``."""

    kind: ClassVar[EventKind] = EventKind.TASK_STARTED
    task_id: str
    title: str
    index: int
    total: int
    first_attempt: int


@record(kw_only=True)
class TaskFinished(Event):
    kind: ClassVar[EventKind] = EventKind.TASK_FINISHED
    task_id: str
    status: TaskStatus


@record(kw_only=True)
class RunFinished(Event):
    kind: ClassVar[EventKind] = EventKind.RUN_FINISHED
    state: RunState
    attempt: int
    stop_reason: str | None
    retryable: bool
    """Stopped by a model error: asking the model again may succeed (nothing was written)."""
    exit_code: int
    tokens: int
    cost_usd: float
    evidence: dict[str, Any] | None = None
    """At SUCCESS: the run's evidence (``core.domain.evidence.Verdict.to_json``)."""
    summary: str = ""
    """The run in one line: files changed, tests, attempts, cost, time ("" in older logs)."""


@record(kw_only=True)
class QuestionAsked(Event):
    """The run stopped to ask a person (see :class:`QuestionSource` for who asked)."""

    kind: ClassVar[EventKind] = EventKind.QUESTION
    attempt: int
    question: str
    options: list[str]
    recommendation: str
    source: QuestionSource


@record(kw_only=True)
class GuidanceGiven(Event):
    """A person's answer or guidance; it goes verbatim into the prompt of ``attempt``."""

    kind: ClassVar[EventKind] = EventKind.GUIDANCE
    attempt: int
    text: str
    question: str | None


@record(kw_only=True)
class RunReopened(Event):
    """A FAILED or NEEDS_HELP run continues with a fresh retry budget."""

    kind: ClassVar[EventKind] = EventKind.REOPENED
    from_state: str
    attempt: int
    max_retries: int


@record(kw_only=True)
class Escalated(Event):
    """A stronger model takes over after repeated failures."""

    kind: ClassVar[EventKind] = EventKind.ESCALATED
    attempt: int
    from_model: str
    to_model: str
    failed_attempts: int


@record(kw_only=True)
class RoleDecided(Event, RoleDecision):
    """A judge or verifier decided about ``attempt`` (core.roles), every field logged."""

    kind: ClassVar[EventKind] = EventKind.ROLE_DECISION
    attempt: int


NOTE_EVENTS = (
    QuestionAsked,
    GuidanceGiven,
    RunReopened,
    Escalated,
    RoleDecided,
    FinalChecksFinished,
)
"""Events a person reads as a note on their attempt: in history, the export and the timeline."""

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
