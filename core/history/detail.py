"""One past run attempt by attempt, read from its logs; and its workspace between attempts.

Bad logs never raise here; they come back as ``problems`` on the run or an attempt. Only
asking for a run that does not exist raises :class:`HistoryError`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable
from dataclasses import field
from pathlib import Path
from typing import Any

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from orch_tui.core.checks.coverage_map import CoverageMap, CoverageUnavailable, coverage_from_record
from orch_tui.core.checks.runner import TestReport
from orch_tui.core.domain.asking import QuestionSource
from orch_tui.core.domain.attempt_kind import attempt_kinds
from orch_tui.core.domain.describe import describe
from orch_tui.core.domain.events import (
    NOTE_EVENTS,
    Event,
    GuidanceGiven,
    ModelTurn,
    ProposalReady,
    QuestionAsked,
    ReviewFinished,
    RunStarted,
    StateChanged,
    TestsFinished,
    ToolEdit,
)
from orch_tui.core.domain.evidence import EvidenceFound
from orch_tui.core.domain.outcome import DECIDED_OUTCOMES, AttemptOutcome
from orch_tui.core.domain.proposal import (
    Decisions,
    FileChange,
    HunkDecision,
    Proposal,
    effective_proposal,
)
from orch_tui.core.domain.state import RunState
from orch_tui.core.history.chain import Chain, run_chain
from orch_tui.core.history.plan_history import PLANNING, TaskOutcome, attempt_task, task_outcomes
from orch_tui.core.history.scan import RunSummary, scan_run
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.active_time import parse_time
from orch_tui.core.runlog.conversation import turns_with_content
from orch_tui.core.runlog.reader import read_events, read_json_file
from orch_tui.core.util.records import record


class HistoryError(Exception):
    """A run that cannot be found; the message is for a person."""


@record
class AttemptDetail:
    """One attempt as the logs tell it."""

    number: int
    outcome: AttemptOutcome | RunState = AttemptOutcome.UNKNOWN
    """How it ended, or the state an unfinished attempt is in."""
    summary: str = ""
    started: str | None = None
    duration_s: float | None = None
    proposal: Proposal | None = None
    decisions: Decisions | None = None
    applied: dict[str, str | None] | None = None
    patch_counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    """path -> (added, removed) lines of what landed, from ``applied.patch``."""
    report: TestReport | None = None
    coverage: CoverageMap | CoverageUnavailable | None = None
    """Which tests ran each line after this attempt's change landed (None: not measured)."""
    test_output: str = ""
    model_text: str = ""
    turns: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    edits: list[ToolEdit] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    task: str | None = None
    """Plan mode: the task this attempt worked on (``plan`` for the planning attempt)."""
    answered: bool = False
    """Its prompt carried a person's answer or guidance."""
    model_asked: bool = False
    """The model asked a person a question in it (``ask_user``)."""
    notes: list[str] = field(default_factory=list)
    """Questions, answers, reopenings, escalations and role decisions, in the order they
    happened, worded by :func:`~orch_tui.core.domain.describe.describe`."""
    evidence: str = ""
    """What the attempt's checks show about its tests (its evidence event, in words)."""


@record
class RunDetail:
    summary: RunSummary
    meta: dict[str, Any]
    spec_text: str
    attempts: list[AttemptDetail]
    problems: list[str]
    torn_tail: bool = False
    tasks: list[TaskOutcome] | None = None
    """Plan mode: the approved plan's tasks with outcomes and attempts; None without a plan."""
    chain: Chain = field(default_factory=Chain)
    """The run it follows and the runs that follow it (change runs)."""

    def attempt(self, number: int) -> AttemptDetail:
        for attempt in self.attempts:
            if attempt.number == number:
                return attempt
        raise HistoryError(f"run {self.summary.run_id} has no attempt {number}")


def _run_folder(logs: Path, run_id: str) -> Path:
    """The folder of ``run_id``, or of the one run whose id starts with it."""
    if not run_id or "/" in run_id or "\\" in run_id or run_id.startswith("."):
        raise HistoryError(f"not a run id: {run_id!r}")
    folder = logs / run_id
    if folder.is_dir():
        return folder
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(logs)
            if entry.is_dir() and not entry.name.startswith(".") and entry.name.startswith(run_id)
        )
    except OSError:
        names = []
    if len(names) == 1:
        return logs / names[0]
    if names:
        raise HistoryError(f"run id {run_id!r} is ambiguous: {', '.join(names[:5])}")
    raise HistoryError(f"no run {run_id!r} in {logs} (`orch-tui history` lists them)")


_ATTEMPT_EVENTS = (
    StateChanged,
    GuidanceGiven,
    ModelTurn,
    ProposalReady,
    ReviewFinished,
    TestsFinished,
    QuestionAsked,
)
"""Events that mean an attempt was under way (a state change to INIT does not)."""


def _attempt_numbers(folder: Path, events: list[Event]) -> list[int]:
    numbers = {
        event.attempt
        for event in events
        if isinstance(event, _ATTEMPT_EVENTS)
        and event.attempt >= 0
        and not (isinstance(event, StateChanged) and event.state == RunState.INIT)
    }
    for child in folder.glob("attempt-*"):
        suffix = child.name.removeprefix("attempt-")
        if child.is_dir() and suffix.isdigit():
            numbers.add(int(suffix))
    return sorted(numbers)


def _model_text(conversation: dict[str, Any]) -> str:
    texts = []
    try:
        turns = turns_with_content(conversation)
    except (KeyError, TypeError, ValueError, AttributeError):
        return ""  # a damaged record: no model text rather than a wrong one
    for turn in turns:
        for block in turn.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "text":
                texts.append(str(block.get("text") or ""))
    return "\n\n".join(text.strip() for text in texts if text.strip())


def _patch_counts(text: str) -> dict[str, tuple[int, int]]:
    counts = {}
    for patched in PatchSet(text):
        path = patched.path
        counts[path] = (patched.added, patched.removed)
    return counts


def _load_attempt(folder: Path, attempt: AttemptDetail) -> None:
    """Fill ``attempt`` from its folder; every unreadable file becomes a problem."""
    base = folder / runlog.attempt_dir_name(attempt.number)

    def load(name: str, parse: Callable[[Any], Any]) -> Any:
        path = base / name
        if not path.exists():
            return None
        data, problem = read_json_file(path)
        if problem is None:
            try:
                return parse(data)
            except (KeyError, TypeError, ValueError, AttributeError):
                problem = f"{name} does not hold what it should"
        attempt.problems.append(f"{base.name}/{problem}")
        return None

    attempt.proposal = load(runlog.PROPOSAL, Proposal.from_json)
    attempt.decisions = load(runlog.DECISIONS, Decisions.from_json)
    attempt.report = load(runlog.REPORT, TestReport.from_json)
    attempt.coverage = load(runlog.COVERAGE, coverage_from_record)
    applied = load(runlog.APPLIED, lambda data: dict(data["files"]))
    attempt.applied = applied
    conversation = load(runlog.CONVERSATION, lambda data: data if isinstance(data, dict) else {})
    attempt.model_text = _model_text(conversation or {})
    try:
        attempt.test_output = (base / runlog.TEST_OUTPUT).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        attempt.test_output = ""
    try:
        patch = (base / runlog.APPLIED_PATCH).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        patch = None
    if patch:
        try:
            attempt.patch_counts = _patch_counts(patch)
        except UnidiffParseError:
            attempt.problems.append(f"{base.name}/{runlog.APPLIED_PATCH} is not a valid patch")


def _attempt_of(event: Event) -> int | None:
    """The attempt an event belongs to; None for an event of the whole run."""
    number = getattr(event, "attempt", None)
    return number if isinstance(number, int) and number >= 0 else None


def _apply_events(attempts: dict[int, AttemptDetail], events: list[Event]) -> None:
    """Outcomes, timings, tokens and cost per attempt, from the event log.

    Cost per turn is the rise of the run's running cost. The engine saves that cost with
    every state change, so a resumed session starts from the cost at the last ``state``
    event, not from the last turn's (turns lost to a kill were paid for, and are counted).
    """
    running = committed = 0.0
    ends: dict[int, str] = {}
    for event in events:
        if isinstance(event, RunStarted):
            running = committed
            continue
        if isinstance(event, StateChanged):
            committed = running
        number = _attempt_of(event)
        if number is None or number not in attempts:
            continue
        attempt = attempts[number]
        if event.at:
            attempt.started = attempt.started or event.at
            ends[number] = event.at
        if isinstance(event, ModelTurn):
            attempt.turns += 1
            attempt.tokens += event.tokens
            attempt.cost_usd += max(event.run_cost_usd - running, 0.0)
            running = event.run_cost_usd
        else:
            _apply_event(attempt, event)
    for number, end in ends.items():
        start, stop = parse_time(attempts[number].started), parse_time(end)
        if start and stop:
            attempts[number].duration_s = (stop - start).total_seconds()


def _apply_event(attempt: AttemptDetail, event: Event) -> None:
    """What ``event`` tells of the outcome of its ``attempt``."""
    if isinstance(event, StateChanged):
        if attempt.outcome not in DECIDED_OUTCOMES:
            attempt.outcome = event.state
    elif isinstance(event, ToolEdit):
        attempt.edits.append(event)
    elif isinstance(event, EvidenceFound):
        attempt.evidence = describe(event)
    elif isinstance(event, NOTE_EVENTS):
        attempt.notes.append(describe(event))
        attempt.answered = attempt.answered or isinstance(event, GuidanceGiven)
        if isinstance(event, QuestionAsked) and event.source == QuestionSource.MODEL:
            attempt.outcome, attempt.summary = AttemptOutcome.ASKED, event.question
            attempt.model_asked = True
    elif isinstance(event, ProposalReady) and not event.files and event.attempt > 0:
        attempt.outcome = AttemptOutcome.NO_CHANGE
        attempt.summary = "the model proposed no change"
    elif isinstance(event, ReviewFinished) and not event.files_landing:
        attempt.outcome = AttemptOutcome.REJECTED
        attempt.summary = event.reject_reason or "every hunk was rejected"
    elif isinstance(event, TestsFinished):
        attempt.outcome = AttemptOutcome.PASSED if event.passed else AttemptOutcome.FAILED
        attempt.summary = event.summary


def load_run(logs: Path, run_id: str) -> RunDetail:
    """Everything about one run. HistoryError only when there is no such run."""
    folder = _run_folder(logs, run_id)
    scanned = scan_run(folder)
    log = read_events(folder / runlog.EVENTS)
    meta, _problem = read_json_file(folder / runlog.RUN_META)
    try:
        spec_text = (folder / runlog.SPEC_COPY).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        spec_text = ""
    attempts = {number: AttemptDetail(number) for number in _attempt_numbers(folder, log.events)}
    _apply_events(attempts, log.events)
    for attempt in attempts.values():
        _load_attempt(folder, attempt)
        attempt.task = attempt_task(folder, attempt.number)
        if attempt.task == PLANNING and attempt.outcome == RunState.PLANNING:
            attempt.outcome = AttemptOutcome.PLANNED
    ordered = [attempts[number] for number in sorted(attempts)]
    if ordered and scanned.summary.finished and ordered[-1].outcome not in DECIDED_OUTCOMES:
        ordered[-1].outcome = AttemptOutcome.STOPPED
        ordered[-1].summary = scanned.summary.stop_reason or ""
    problems = [p for p in (scanned.summary.damaged or "").split("; ") if p]
    for attempt in ordered:
        problems += [p for p in attempt.problems if p not in problems]
    summary = scanned.summary._replace(damaged="; ".join(problems) or None)
    meta = meta if isinstance(meta, dict) else {}
    return RunDetail(
        summary=summary,
        meta=meta,
        spec_text=spec_text,
        attempts=ordered,
        problems=problems,
        torn_tail=log.torn_tail,
        tasks=task_outcomes(folder, {a.number: a.task for a in ordered}, log.events),
        chain=run_chain(logs, folder.name, meta),
    )


def workspace_at(detail: RunDetail, attempt: int) -> dict[str, str]:
    """The files the run touched as they stood after ``attempt``'s change landed.

    Only paths some proposal touched are known: each starts as the ``old_text`` of the first
    proposal that names it (its content before the run), then every applied change up to and
    including ``attempt`` is laid over it. ``attempt`` -1 gives the files before the run.
    """
    files: dict[str, str | None] = {}
    for step in detail.attempts:
        for change in step.proposal.changes if step.proposal else ():
            files.setdefault(change.path, change.old_text)
    for step in detail.attempts:
        if step.number > attempt:
            break
        files.update(step.applied or {})
    return {path: text for path, text in sorted(files.items()) if text is not None}


def compare(detail: RunDetail, a: int, b: int) -> list[FileChange]:
    """The workspace's changes from after attempt ``a`` to after attempt ``b``, by path."""
    before, after = workspace_at(detail, a), workspace_at(detail, b)
    return [
        FileChange(path, before.get(path), after.get(path))
        for path in sorted(set(before) | set(after))
        if before.get(path) != after.get(path)
    ]


def reviewed_changes(attempt: AttemptDetail) -> list[tuple[FileChange, list[HunkDecision]]]:
    """Each file the person reviewed, hand edits in place, with one decision per hunk."""
    if attempt.proposal is None:
        return []
    decisions = attempt.decisions or Decisions()
    return [
        (change, decisions.for_file(change))
        for change in effective_proposal(attempt.proposal, decisions).changes
    ]


def planning_attempt(detail: RunDetail) -> AttemptDetail | None:
    """Plan mode's planning turn (the model's ``submit_plan`` conversation, logged in attempt
    0's folder), which is no attempt; None when the spec wrote the plan or there is none."""
    first = detail.attempts[0] if detail.attempts else None
    return first if first is not None and first.task == PLANNING else None


def kinds_of(attempts: Iterable[AttemptDetail], firsts: Collection[int]) -> dict[int, str]:
    """Each attempt's label (:func:`~orch_tui.core.domain.attempt_kind.attempt_kinds`)."""
    shown = list(attempts)
    return attempt_kinds(
        (a.number for a in shown),
        firsts,
        {a.number for a in shown if a.model_asked},
        {a.number for a in shown if a.answered},
    )
