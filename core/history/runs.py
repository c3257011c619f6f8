"""Past runs, read from ``logs/``: the list, one run attempt by attempt, compares and exports.

Pure library code (no Textual): the history screens and ``orch-tui history --export`` both sit
on top of it. Bad logs never raise here; they come back as ``damaged`` runs or as ``problems``
on a run or an attempt. Only asking for a run that does not exist raises :class:`HistoryError`.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, overload

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from orch_tui.core.checks.runner import TestReport
from orch_tui.core.domain.describe import describe_person_event, describe_role_event
from orch_tui.core.domain.events import EventKind
from orch_tui.core.domain.proposal import (
    Decisions,
    FileChange,
    HunkDecision,
    Proposal,
    effective_proposal,
)
from orch_tui.core.domain.spec import Spec, SpecError, read_spec
from orch_tui.core.domain.state import RunState, StateError, StateStore
from orch_tui.core.history.index import (
    NO_TEXT,
    RunIndex,
    RunSummary,
    build_index,
    collector_paused,
    parse_time,
    read_events,
    read_json_file,
    recorded_then_checked,
    scan_run,
)
from orch_tui.core.history.plan_history import (
    PLANNING,
    TaskOutcome,
    attempt_task,
    plan_section,
    task_outcomes,
)
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.util.markdown_text import code_span, inline_text

__all__ = [
    "AttemptDetail",
    "HistoryError",
    "Matches",
    "RunDetail",
    "RunIndex",
    "RunSearch",
    "RunSummary",
    "TestGrid",
    "build_index",
    "compare",
    "export_markdown",
    "list_runs",
    "load_run",
    "mark_resumable",
    "recorded_then_checked",
    "resume_blocker",
    "reviewed_changes",
    "sort_runs",
    "test_grid",
    "workspace_at",
]


class HistoryError(Exception):
    """A run that cannot be found; the message is for a person."""


# -- the list -----------------------------------------------------------------------------------


def list_runs(logs: Path) -> list[RunSummary]:
    """Every run in ``logs``, newest first (damaged ones included, marked)."""
    return build_index(logs).runs


SORT_KEYS: dict[str, Callable[[RunSummary], Any]] = {
    "started": lambda run: run.started,
    "run_id": lambda run: run.run_id,
    "spec": lambda run: run.spec_name.lower(),
    "state": lambda run: "DAMAGED" if run.damaged else run.state,
    "attempts": lambda run: run.attempts,
    "duration": lambda run: run.duration_s,
    "tokens": lambda run: run.tokens,
    "cost": lambda run: run.cost_usd,
    "stop_reason": lambda run: (run.stop_reason or "").lower() or None,
}
"""The columns runs can be sorted by."""


def sort_runs(runs: Iterable[RunSummary], column: str, descending: bool) -> list[RunSummary]:
    """Runs ordered by ``column`` (a :data:`SORT_KEYS` name); empty values go last either way,
    and ties keep newest first."""
    try:
        key = SORT_KEYS[column]
    except KeyError:
        raise ValueError(f"unknown column {column!r}; one of {', '.join(SORT_KEYS)}") from None
    newest_first = sorted(runs, key=lambda run: (run.started, run.run_id), reverse=True)
    present = [run for run in newest_first if key(run) is not None]
    empty = [run for run in newest_first if key(run) is None]
    return sorted(present, key=key, reverse=descending) + empty


class Matches(Sequence[RunSummary]):
    """The runs a filter matched, in order: positions in the searched list, not a list of
    runs of its own, so a keystroke does not touch every matched run (the list shows a
    screenful of them)."""

    def __init__(self, runs: list[RunSummary], rows: Sequence[int]) -> None:
        self._runs = runs
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, item: int) -> RunSummary: ...

    @overload
    def __getitem__(self, item: slice) -> list[RunSummary]: ...

    def __getitem__(self, item: int | slice) -> RunSummary | list[RunSummary]:
        if isinstance(item, slice):
            return [self._runs[row] for row in self._rows[item]]
        return self._runs[self._rows[item]]

    def __iter__(self) -> Iterator[RunSummary]:
        return map(self._runs.__getitem__, self._rows)


class RunSearch:
    """Runs in one order, filtered as a person types: those whose id, spec name or spec text
    holds every word of the query (any case), in that order.

    The lowercase texts come from the index, one haystack per run laid out beside the runs
    once, so a keystroke touches no file, makes no string and sorts nothing: it is one pass
    over a list of strings. A spec that many runs share is searched once per word. A query
    that extends the previous one (a key typed) narrows that one's result, checking only
    its new words.
    """

    def __init__(self, runs: Sequence[RunSummary], index: RunIndex) -> None:
        self._runs = list(runs)
        self._index = index
        self._lock = threading.Lock()
        self._texts: tuple[list[str], list[int]] | None = None
        """Each run's haystack and the number of its shared spec, in this order: laid out by
        :meth:`prepare` or the first word searched."""
        self._last: tuple[str, list[int] | None] = ("", None)
        """The last query and the positions of the runs it matched (None: every run)."""

    def prepare(self) -> None:
        """Lay out the texts to search now (a worker does, once the list is on screen), so
        that the first keystroke does not; every run matches an empty query without them."""
        self._laid_out()

    def _laid_out(self) -> tuple[list[str], list[int]]:
        with self._lock:
            if self._texts is None:
                search = self._index.search
                with collector_paused():
                    texts = [search.get(run.run_id, NO_TEXT) for run in self._runs]
                    self._texts = (
                        [haystack for haystack, _spec in texts],
                        [spec for _haystack, spec in texts],
                    )
            return self._texts

    def matching(self, query: str) -> Matches:
        query = query.lower()
        last_query, rows = self._last
        searched = set(last_query.split())
        if not (last_query and query.startswith(last_query)):
            rows, searched = None, set()
        for word in query.split():
            if word not in searched:
                rows = self._with_word(word, rows)
                searched.add(word)
        self._last = (query, rows)
        return Matches(self._runs, range(len(self._runs)) if rows is None else rows)

    def _with_word(self, word: str, rows: list[int] | None) -> list[int]:
        """The positions among ``rows`` (None: every run) of the runs that hold ``word``."""
        haystacks, specs = self._laid_out()
        in_shared = [word in spec for spec in self._index.shared_specs]
        if not any(in_shared):
            if rows is None:
                return [row for row, haystack in enumerate(haystacks) if word in haystack]
            return [row for row in rows if word in haystacks[row]]
        in_shared.append(False)  # at -1: the runs whose spec text is in their haystack
        candidates = range(len(haystacks)) if rows is None else rows
        return [row for row in candidates if word in haystacks[row] or in_shared[specs[row]]]


# -- resuming -----------------------------------------------------------------------------------


def resume_blocker(run: RunSummary, state_path: Path) -> str | None:
    """Why ``run`` cannot be resumed, or None when it can.

    The engine resumes only the run ``state.json`` holds, and only with the spec it was
    started from: the run must be unfinished and undamaged, be the run in ``state.json``, and
    its spec file (relative to the project root) must still have the same hash.
    """
    if run.damaged:
        return f"run {run.run_id} is damaged: {run.damaged}"
    if run.finished:
        return f"run {run.run_id} already finished ({run.state})"
    try:
        saved = StateStore(state_path).load()
    except StateError as exc:
        return str(exc)
    if saved is None or saved.run_id != run.run_id:
        return f"run {run.run_id} is not the current run in {state_path.name}"
    spec_path = Path(saved.spec_path)
    if not spec_path.is_absolute():
        spec_path = state_path.parent / spec_path
    try:
        spec: Spec = read_spec(spec_path)
    except SpecError as exc:
        return str(exc)
    if spec.digest != saved.spec_hash:
        return f"{saved.spec_path} changed since run {run.run_id} started"
    return None


def mark_resumable(runs: Iterable[RunSummary], state_path: Path) -> list[RunSummary]:
    """The runs with ``resumable`` set; only unfinished runs are checked (at most one can be)."""
    return [
        run._replace(resumable=True)
        if not run.finished and not run.damaged and resume_blocker(run, state_path) is None
        else run
        for run in runs
    ]


# -- one run ------------------------------------------------------------------------------------


@dataclass
class AttemptDetail:
    """One attempt as the logs tell it. ``outcome`` is ``passed``, ``failed``, ``rejected``,
    ``no change``, ``stopped`` (the run ended here for another reason), the state an
    unfinished attempt is in, or ``unknown`` (a folder the event log does not mention)."""

    number: int
    outcome: str = "unknown"
    summary: str = ""
    started: str | None = None
    duration_s: float | None = None
    proposal: Proposal | None = None
    decisions: Decisions | None = None
    applied: dict[str, str | None] | None = None
    patch_counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    """path -> (added, removed) lines of what landed, from ``applied.patch``."""
    report: TestReport | None = None
    test_output: str = ""
    model_text: str = ""
    turns: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    edits: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    task: str | None = None
    """Plan mode: the task this attempt worked on (``plan`` for the planning attempt)."""
    notes: list[str] = field(default_factory=list)
    """Questions, answers, reopenings and escalations, in the order they happened."""


@dataclass
class RunDetail:
    summary: RunSummary
    meta: dict[str, Any]
    spec_text: str
    attempts: list[AttemptDetail]
    problems: list[str]
    torn_tail: bool = False
    tasks: list[TaskOutcome] | None = None
    """Plan mode: the approved plan's tasks with outcomes and attempts; None without a plan."""

    def attempt(self, number: int) -> AttemptDetail:
        for attempt in self.attempts:
            if attempt.number == number:
                return attempt
        raise HistoryError(f"run {self.summary.run_id} has no attempt {number}")


DECIDED_OUTCOMES = ("passed", "failed", "rejected", "no change", "asked")
"""Attempt outcomes that a later state change does not overwrite."""


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


# Events that mean an attempt was under way (a state change to INIT does not).
_ATTEMPT_EVENTS = frozenset(
    {
        EventKind.STATE,
        EventKind.MODEL_TURN,
        EventKind.PROPOSAL,
        EventKind.REVIEW,
        EventKind.TESTS,
        EventKind.QUESTION,
    }
)


def _attempt_numbers(folder: Path, events: list[dict[str, Any]]) -> list[int]:
    numbers = {
        event["attempt"]
        for event in events
        if event.get("event") in _ATTEMPT_EVENTS
        and isinstance(event.get("attempt"), int)
        and event["attempt"] >= 0
        and event.get("state") != RunState.INIT
    }
    for child in folder.glob("attempt-*"):
        suffix = child.name.removeprefix("attempt-")
        if child.is_dir() and suffix.isdigit():
            numbers.add(int(suffix))
    return sorted(numbers)


def _model_text(conversation: dict[str, Any]) -> str:
    texts = []
    for turn in conversation.get("turns") or []:
        if not isinstance(turn, dict):
            continue
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


def _apply_events(attempts: dict[int, AttemptDetail], events: list[dict[str, Any]]) -> None:
    """Outcomes, timings, tokens and cost per attempt, from the event log.

    Cost per turn is the rise of the run's running cost. The engine saves that cost with
    every state change, so a resumed session starts from the cost at the last ``state``
    event, not from the last turn's (turns lost to a kill were paid for, and are counted).
    """
    running = committed = 0.0
    ends: dict[int, str] = {}
    for event in events:
        kind = event.get("event")
        number = event.get("attempt")
        if kind == EventKind.RUN_STARTED:
            running = committed
            continue
        if kind == EventKind.STATE:
            committed = running
        if not isinstance(number, int) or number not in attempts:
            continue
        attempt = attempts[number]
        at = event.get("at")
        if isinstance(at, str):
            attempt.started = attempt.started or at
            ends[number] = at
        if kind == EventKind.STATE and attempt.outcome not in DECIDED_OUTCOMES:
            attempt.outcome = str(event.get("state"))
        elif kind == EventKind.MODEL_TURN:
            attempt.turns += 1
            attempt.tokens += sum(
                int(event.get(name) or 0)
                for name in (
                    "input_tokens",
                    "output_tokens",
                    "cache_write_tokens",
                    "cache_read_tokens",
                )
            )
            total = float(event.get("run_cost_usd") or 0.0)
            attempt.cost_usd += max(total - running, 0.0)
            running = total
        elif kind == EventKind.TOOL_EDIT:
            attempt.edits.append(event)
        elif (note := describe_person_event(event) or describe_role_event(event)) is not None:
            attempt.notes.append(note)
            if kind == EventKind.QUESTION and event.get("source") == "model":
                attempt.outcome, attempt.summary = "asked", str(event.get("question") or "")
        elif kind == EventKind.PROPOSAL and not event.get("files") and number > 0:
            attempt.outcome, attempt.summary = "no change", "the model proposed no change"
        elif kind == EventKind.REVIEW and not event.get("files_landing"):
            attempt.outcome = "rejected"
            attempt.summary = str(event.get("reject_reason") or "every hunk was rejected")
        elif kind == EventKind.TESTS:
            attempt.outcome = "passed" if event.get("passed") else "failed"
            attempt.summary = str(event.get("summary") or "")
    for number, end in ends.items():
        start, stop = parse_time(attempts[number].started), parse_time(end)
        if start and stop:
            attempts[number].duration_s = (stop - start).total_seconds()


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
            attempt.outcome = "planned"
    ordered = [attempts[number] for number in sorted(attempts)]
    if ordered and scanned.summary.finished and ordered[-1].outcome not in DECIDED_OUTCOMES:
        ordered[-1].outcome = "stopped"
        ordered[-1].summary = scanned.summary.stop_reason or ""
    problems = [p for p in (scanned.summary.damaged or "").split("; ") if p]
    for attempt in ordered:
        problems += [p for p in attempt.problems if p not in problems]
    summary = scanned.summary._replace(damaged="; ".join(problems) or None)
    return RunDetail(
        summary=summary,
        meta=meta if isinstance(meta, dict) else {},
        spec_text=spec_text,
        attempts=ordered,
        problems=problems,
        torn_tail=log.torn_tail,
        tasks=task_outcomes(folder, {a.number: a.task for a in ordered}, log.events),
    )


# -- tests across attempts --------------------------------------------------------------------

PASSED, FAILED, SKIPPED, ABSENT = "passed", "failed", "skipped", "absent"


@dataclass(frozen=True)
class TestGrid:
    """Tests × attempts. ``cells[i][j]`` is test ``tests[i]`` in attempt ``attempts[j]``:
    passed, failed (failed or errored), skipped, or absent (not run in that attempt).

    Tests whose result changed between attempts come first, then those that ever failed,
    then the rest, each group by id: the flips are what a person looks for."""

    __test__: ClassVar[bool] = False  # not a pytest test class, despite its name

    tests: list[str]
    attempts: list[int]
    cells: list[list[str]]


_GRID_CELLS = {"error": FAILED, "xfailed": SKIPPED, "xpassed": PASSED}
"""The grid's cell for an outcome that has no cell of its own."""


def _outcomes(report: TestReport) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for check in report.checks:
        for test in check.tests:
            outcomes[test.id] = _GRID_CELLS.get(test.outcome, test.outcome)
    for failing in report.failing:
        outcomes[failing] = FAILED
    return outcomes


def test_grid(detail: RunDetail) -> TestGrid:
    tested = [attempt for attempt in detail.attempts if attempt.report is not None]
    per_attempt = [_outcomes(attempt.report) for attempt in tested if attempt.report]
    ids = sorted({test for outcomes in per_attempt for test in outcomes})
    rows = {
        test: [
            outcomes.get(test, PASSED if test.startswith("check:") else ABSENT)
            for outcomes in per_attempt
        ]
        for test in ids
    }

    def group(test: str) -> int:
        present = [cell for cell in rows[test] if cell != ABSENT]
        if len(set(present)) > 1:
            return 0
        return 1 if FAILED in present else 2

    tests = sorted(ids, key=lambda test: (group(test), test))
    return TestGrid(tests, [attempt.number for attempt in tested], [rows[t] for t in tests])


# -- the workspace between attempts -------------------------------------------------------------


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


# -- the Markdown report ------------------------------------------------------------------------

_MARKS = {PASSED: "✓", FAILED: "✗", SKIPPED: "s", ABSENT: "·"}


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def _fence(text: str, info: str = "") -> list[str]:
    """A code fence longer than any run of backticks inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [f"{ticks}{info}", text.rstrip("\n"), ticks]


def _decision_lines(attempt: AttemptDetail) -> list[str]:
    decisions, proposal = attempt.decisions, attempt.proposal
    if decisions is None or proposal is None:
        return ["- no decisions recorded"]
    accepted, rejected, undecided = decisions.counts(proposal)
    lines = [f"- hunks: {accepted + undecided} accepted, {rejected} rejected"]
    if decisions.edits:
        lines.append(f"- edited by hand: {', '.join(map(code_span, sorted(decisions.edits)))}")
    if decisions.reject_reason:
        lines.append(f"- proposal rejected: {inline_text(decisions.reject_reason)}")
    return lines


def _attempt_section(attempt: AttemptDetail) -> list[str]:
    task = f" (task {attempt.task})" if attempt.task else ""
    out = [f"## Attempt {attempt.number}{task}: {attempt.outcome}", ""]
    if attempt.summary:
        out += [inline_text(attempt.summary), ""]
    out += [
        f"- tokens: {attempt.tokens:,} · cost: ${attempt.cost_usd:.4f} · model turns: "
        f"{attempt.turns} · duration: {format_duration(attempt.duration_s)}",
    ]
    out += [f"- problem: {inline_text(problem)}" for problem in attempt.problems]
    out += [f"- {inline_text(note)}" for note in attempt.notes]
    if attempt.proposal is not None:
        out += ["", "### Proposal", "", "| file | change | + | - |", "|---|---|---|---|"]
        out += [
            f"| {code_span(c.path, in_table=True)} | {c.kind.value} | {c.added} | {c.removed} |"
            for c in attempt.proposal.changes
        ] or ["| (no change) | | | |"]
        out += ["", "### Decisions", "", *_decision_lines(attempt)]
    if attempt.patch_counts:
        landed = ", ".join(
            f"{code_span(path)} +{added} -{removed}"
            for path, (added, removed) in sorted(attempt.patch_counts.items())
        )
        out.append(f"- landed: {landed}")
    if attempt.report is not None:
        out += ["", "### Tests", "", f"{attempt.report.summary()}"]
        for failing in attempt.report.failing:
            out.append(f"- ✗ {code_span(failing)}")
    if attempt.model_text:
        out += ["", "### Model's text", "", *_fence(attempt.model_text, "text")]
    return out + [""]


def _grid_section(grid: TestGrid) -> list[str]:
    if not grid.tests:
        return []
    header = "| test | " + " | ".join(str(n) for n in grid.attempts) + " |"
    rule = "|---|" + "---|" * len(grid.attempts)
    rows = [
        f"| {code_span(test, in_table=True)} | "
        + " | ".join(_MARKS.get(c, c) for c in cells)
        + " |"
        for test, cells in zip(grid.tests, grid.cells, strict=True)
    ]
    return ["## Tests across attempts", "", header, rule, *rows, ""]


def export_markdown(logs: Path, run_id: str) -> str:
    """One run as a Markdown report: summary, attempts, decisions, test results and cost."""
    detail = load_run(logs, run_id)
    run = detail.summary
    lines = [
        f"# Run {run.run_id}",
        "",
        "| | |",
        "|---|---|",
        f"| spec | {code_span(run.spec_path, in_table=True)} |",
        f"| started | {run.started or '–'} |",
        f"| model | {inline_text(detail.meta.get('model', '–'))} "
        f"({inline_text(detail.meta.get('provider', '–'))}) |",
        f"| final state | {run.state} |",
        f"| attempts | {run.attempts} |",
        f"| duration | {format_duration(run.duration_s)} |",
        f"| tokens | {run.tokens:,} |",
        f"| cost | ${run.cost_usd:.4f} |",
        f"| stop reason | {inline_text(run.stop_reason or '–')} |",
        "",
    ]
    if detail.problems:
        lines += [
            "**Damaged:**",
            "",
            *(f"- {inline_text(problem)}" for problem in detail.problems),
            "",
        ]
    if detail.tasks is not None:
        lines += plan_section(detail.tasks)
    lines += _grid_section(test_grid(detail))
    for attempt in detail.attempts:
        lines += _attempt_section(attempt)
    return "\n".join(lines).rstrip("\n") + "\n"


def reviewed_changes(attempt: AttemptDetail) -> list[tuple[FileChange, list[HunkDecision]]]:
    """Each file the person reviewed, hand edits in place, with one decision per hunk."""
    if attempt.proposal is None:
        return []
    decisions = attempt.decisions or Decisions()
    return [
        (change, decisions.for_file(change))
        for change in effective_proposal(attempt.proposal, decisions).changes
    ]
