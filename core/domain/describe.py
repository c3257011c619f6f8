"""Every event in words, one line each, for the printer, the TUI timeline, history and exports.

This is the one wording of every event: the headless printer, the TUI and history all call it.

Lines hold no terminal or Markdown escaping: each reader escapes for where it shows them.
"""

from __future__ import annotations

from functools import singledispatch

from orch_tui.core.domain.asking import QuestionSource
from orch_tui.core.domain.events import (
    ChangeApplied,
    CheckOutput,
    Escalated,
    Event,
    FinalChecksFinished,
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
    RunStarted,
    StateChanged,
    TaskFinished,
    TaskStarted,
    TestsFinished,
    ToolEdit,
    UnknownEvent,
)
from orch_tui.core.domain.evidence import EvidenceFound
from orch_tui.core.domain.roles import RoleDecision, RoleVerdict
from orch_tui.core.util.wording import planning_cost, plural

_ASKERS = {
    QuestionSource.MODEL: "the model asked",
    QuestionSource.JUDGE: "the judge asked",
    QuestionSource.STUCK: "stuck, asked a person",
}

FAILING_SHOWN = 5
"""Failing tests a ``tests`` line names; the rest are counted."""


@singledispatch
def describe(event: Event) -> str:
    """One line for ``event``."""
    return event.name


# Each wording is registered under its class by name: registered by its annotation, each would
# have ``typing.get_type_hints`` compile it, 46 compilations at every run's start (issue 26).


@describe.register(UnknownEvent)
def _(event: UnknownEvent) -> str:
    return f"unknown event {event.name!r} ({event.problem})"


@describe.register(RunStarted)
def _(event: RunStarted) -> str:
    how = f"resuming at {event.state}" if event.resumed else "new run"
    return (
        f"run {event.run_id} · {event.spec_path} · {event.provider} {event.model} · "
        f"sandbox {event.sandbox} · {how}"
    )


@describe.register(Notice)
def _(event: Notice) -> str:
    return f"note: {event.message}"


@describe.register(StateChanged)
def _(event: StateChanged) -> str:
    return str(event.state)


@describe.register(ModelText)
def _(event: ModelText) -> str:
    return f"model text: {plural(len(event.text), 'character')}"


@describe.register(ToolEdit)
def _(event: ToolEdit) -> str:
    first_line = event.detail.splitlines()[0] if event.detail else ""
    refused = "" if event.ok else f" (refused: {first_line})"
    return f"{event.command} {event.path or ''}{refused}"


@describe.register(ModelTurn)
def _(event: ModelTurn) -> str:
    return f"model turn {event.turn}: {event.stop_reason}, {plural(event.tokens, 'token')}"


@describe.register(ProposalReady)
def _(event: ProposalReady) -> str:
    return (
        f"proposal: {plural(len(event.files), 'file')}, +{event.added} -{event.removed}, "
        f"{plural(event.hunks, 'hunk')}"
    )


@describe.register(ReviewFinished)
def _(event: ReviewFinished) -> str:
    if event.reject_reason:
        return f"review: rejected ({event.reject_reason})"
    return (
        f"review: {plural(event.accepted, 'hunk')} accepted, {event.rejected} rejected → "
        f"{plural(len(event.files_landing), 'file')} to land"
    )


@describe.register(ChangeApplied)
def _(event: ChangeApplied) -> str:
    return f"applied {plural(len(event.files), 'file')} to {event.workspace}"


@describe.register(CheckOutput)
def _(event: CheckOutput) -> str:
    return f"output of {event.check}: {plural(len(event.text), 'character')}"


@describe.register(TestsFinished)
def _(event: TestsFinished) -> str:
    shown = event.failing[:FAILING_SHOWN]
    failing = f" · failing: {', '.join(shown)}" if shown else ""
    more = len(event.failing) - len(shown)
    return f"tests: {event.summary}{failing}{f' (+{more} more)' if more else ''}"


@describe.register(FinalChecksFinished)
def _(event: FinalChecksFinished) -> str:
    if event.passed:
        return f"final checks passed: {event.summary}"
    return f"final checks failed ({', '.join(event.failed)}): {event.summary}"


@describe.register(PlanApproved)
def _(event: PlanApproved) -> str:
    where = "written in the spec" if event.source == "spec" else "from the model"
    cost = f"; planning {planning_cost(event.tokens, event.cost_usd)}" if event.tokens else ""
    return f"plan ({plural(len(event.tasks), 'task')}, {where}{cost})"


@describe.register(TaskStarted)
def _(event: TaskStarted) -> str:
    return f"task {event.index + 1}/{event.total}: {event.task_id}: {event.title}"


@describe.register(TaskFinished)
def _(event: TaskFinished) -> str:
    return f"task {event.task_id} {event.status}"


@describe.register(QuestionAsked)
def _(event: QuestionAsked) -> str:
    listed = f" (options: {'; '.join(event.options)})" if event.options else ""
    advice = f"; recommended: {event.recommendation}" if event.recommendation else ""
    return f"{_ASKERS[event.source]}: {event.question}{listed}{advice}"


@describe.register(GuidanceGiven)
def _(event: GuidanceGiven) -> str:
    return f"guidance for attempt {event.attempt}: {event.text}"


@describe.register(RunReopened)
def _(event: RunReopened) -> str:
    return (
        f"reopened a {event.from_state} run at attempt {event.attempt} "
        f"(retries up to {event.max_retries})"
    )


@describe.register(Escalated)
def _(event: Escalated) -> str:
    return (
        f"escalated from {event.from_model} to {event.to_model} after "
        f"{plural(event.failed_attempts, 'failed attempt')}"
    )


@describe.register(RoleDecided)
def _(event: RoleDecided) -> str:
    return describe_decision(event)


@describe.register(EvidenceFound)
def _(event: EvidenceFound) -> str:
    return event.describe()


@describe.register(RunFinished)
def _(event: RunFinished) -> str:
    return f"{event.state}: {event.stop_reason}" if event.stop_reason else str(event.state)


def describe_decision(decision: RoleDecision) -> str:
    """One line for a judge's or verifier's decision: its event, or state.json's record."""
    why = f" ({decision.reason})" if decision.reason else ""
    if decision.decision == RoleVerdict.RETRY:
        advice = f": {decision.guidance}" if decision.guidance else ""
        return f"judge: retry{advice}"
    if decision.decision == RoleVerdict.ASK:
        return f"judge: ask a person: {decision.question}"
    if decision.decision == RoleVerdict.INSUFFICIENT:
        return f"verifier: insufficient: {'; '.join(decision.gaps)}"
    if decision.decision == RoleVerdict.SUFFICIENT:
        return f"verifier: sufficient{why}"
    return f"{decision.role}: no decision{why}"


def hunk_decisions(accepted: int, rejected: int, undecided: int) -> str:
    """A review's decisions in one phrase: ``2 hunks accepted (2 by default), 1 rejected``.

    ``accepted`` counts the hunks accepted by a key; undecided hunks land as accepted, and are
    counted with them as accepted "by default"."""
    line = f"{plural(accepted + undecided, 'hunk')} accepted"
    if undecided:
        line += f" ({undecided:,} by default)"
    return line + (f", {rejected:,} rejected" if rejected else "")
