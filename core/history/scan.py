"""One run folder summarised from its files: a line of the runs list.

Summarising a run reads its ``run.json``, ``spec.md`` and ``events.jsonl`` (one ``os`` read
each, the events parsed as one JSON array and walked once) and stats the attempt files its
events promise: about 0.1 ms a run, which is what a full rebuild of the index costs per run.
A run folder with missing or corrupt files is summarised as far as it can be and marked
damaged with what is wrong; nothing here raises on bad logs. Files deleted inside an attempt
folder change nothing here: the run view (:func:`~orch_tui.core.history.detail.load_run`)
reports them when the run is opened.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress
from operator import attrgetter, not_
from pathlib import PurePath
from typing import Any, NamedTuple

from orch_tui.core.domain.events import (
    ChangeApplied,
    Event,
    ModelTurn,
    ProposalReady,
    RunFinished,
    RunStarted,
    StateChanged,
    TestsFinished,
)
from orch_tui.core.domain.state import RunState
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.active_time import active_seconds
from orch_tui.core.runlog.reader import read_bytes, read_events_at
from orch_tui.core.util.records import record

NEVER_STARTED = "stopped before its first step (killed or interrupted): nothing was done"
"""The stop reason history gives a run that never left INIT (a ghost of a kill)."""

TERMINAL_STATES = (RunState.SUCCESS, RunState.FAILED)

_NO_ATTEMPT = (RunState.INIT, RunState.PLANNING)
"""States that are no attempt: before the first, and plan mode's planning turn."""

_PROMISED_FILES: dict[type[Event], str] = {
    ModelTurn: runlog.CONVERSATION,
    ProposalReady: runlog.PROPOSAL,
    ChangeApplied: runlog.APPLIED,
    TestsFinished: runlog.REPORT,
}
"""Which attempt file an event promises: a log that has the event but not the file is damaged."""
_PROMISING = (ModelTurn, ProposalReady, ChangeApplied, TestsFinished)


class RunSummary(NamedTuple):
    """One row of the runs list. ``state`` is the last state the run reached.

    A named tuple, immutable as the worker that makes it and the UI that shows it share it:
    10,000 are made from the index on the way to the first list, 3 ms where a frozen
    dataclass took 10.
    """

    run_id: str
    started: str
    spec_path: str
    spec_name: str
    state: str
    attempts: int
    duration_s: float | None
    tokens: int
    cost_usd: float
    stop_reason: str | None
    damaged: str | None = None
    resumable: bool = False
    """Set by :func:`~orch_tui.core.history.resume.mark_resumable`, which compares against state.json."""

    @property
    def finished(self) -> bool:
        return self.state in TERMINAL_STATES


FINISHED_NAMES = frozenset(map(str, TERMINAL_STATES))
"""The states of a finished run, as the plain strings a summary holds."""


def unfinished_positions(runs: Sequence[RunSummary]) -> list[int]:
    """The positions of the runs that did not finish (C-level passes: no Python per run)."""
    finished = map(FINISHED_NAMES.__contains__, map(attrgetter("state"), runs))
    return list(compress(range(len(runs)), map(not_, finished)))


@lru_cache(maxsize=4096)
def _promised_path(attempt: int, name: str) -> str:
    """``attempt-NN/name``: the same few strings for every run, made once."""
    return f"{runlog.attempt_dir_name(attempt)}/{name}"


def _missing_attempt_files(folder: str, promised: set[tuple[int, str]]) -> list[str]:
    """What the events promise in the attempt folders and is not there. (A stat per file
    costs less than reading the attempt folder's listing.)"""
    missing = []
    for attempt, name in sorted(promised):
        relative = _promised_path(attempt, name)
        try:
            if stat.S_ISREG(os.stat(f"{folder}/{relative}").st_mode):
                continue
        except OSError:
            pass
        missing.append(f"{relative} is missing")
    return missing


def _read_meta(folder: str, problems: list[str]) -> dict[str, Any]:
    try:
        meta = json.loads(read_bytes(folder + _META_IN_FOLDER))
    except FileNotFoundError:
        problems.append(f"{runlog.RUN_META} is missing")
        return {}
    except (OSError, ValueError):
        problems.append(f"{runlog.RUN_META} is not valid JSON")
        return {}
    if not isinstance(meta, dict):
        problems.append(f"{runlog.RUN_META} is not an object")
        return {}
    return meta


def _read_spec(folder: str, problems: list[str]) -> str | None:
    try:
        return read_bytes(folder + _SPEC_IN_FOLDER).decode("utf-8")
    except FileNotFoundError:
        problems.append(f"{runlog.SPEC_COPY} is missing")
    except (OSError, UnicodeDecodeError):
        problems.append(f"{runlog.SPEC_COPY} is unreadable")
    return None


_META_IN_FOLDER = os.sep + runlog.RUN_META
_SPEC_IN_FOLDER = os.sep + runlog.SPEC_COPY
_EVENTS_IN_FOLDER = os.sep + runlog.EVENTS


@lru_cache(maxsize=4096)
def _file_name(path: str) -> str:
    """The last part of a spec path (most runs share a few of them)."""
    return PurePath(path).name if path else ""


@record
class ScannedRun:
    summary: RunSummary
    spec_lower: str | None
    """The spec's text in lowercase (for filtering); None when it cannot be read."""


def scan_run(folder: str | os.PathLike[str]) -> ScannedRun:
    """Summarise one run folder from its files; never raises on bad content.

    This is what an index rebuild does for every run, so it reads each file with one
    ``os`` call and walks the events once."""
    path = os.fspath(folder)
    problems: list[str] = []
    meta = _read_meta(path, problems)
    spec_text = _read_spec(path, problems)
    log = read_events_at(path + _EVENTS_IN_FOLDER)
    problems += log.problems
    events = log.events
    state: str = RunState.INIT
    attempts = tokens = 0
    first_attempt = 1 << 30  # the first attempt number: 1 when the model planned first
    cost = 0.0
    finished: RunFinished | None = None
    first_start: RunStarted | None = None
    promised: set[tuple[int, str]] = set()
    for event in events:
        if isinstance(event, StateChanged):
            state = event.state
            if event.attempt >= 0 and state not in _NO_ATTEMPT:
                attempts = max(attempts, event.attempt + 1)
                first_attempt = min(first_attempt, event.attempt)
        elif isinstance(event, ModelTurn):
            tokens, cost = event.run_tokens, event.run_cost_usd
        elif isinstance(event, RunFinished):
            finished, state = event, event.state
        elif isinstance(event, RunStarted):
            first_start = first_start or event
        if isinstance(event, _PROMISING) and event.attempt >= 0:
            promised.add((event.attempt, _PROMISED_FILES[type(event)]))
    if events and first_start is None:
        problems.append(f"{runlog.EVENTS} has no run_started")
    if promised:
        problems += _missing_attempt_files(path, promised)
    stop_reason = None
    if finished is not None:
        tokens, cost = finished.tokens or tokens, finished.cost_usd or cost
        stop_reason = finished.stop_reason if state in TERMINAL_STATES else None
    if state == RunState.INIT and finished is None and events:
        stop_reason = NEVER_STARTED
        # run.json lands with the first step's commit: a ghost never wrote it, and lacks nothing
        problems = [p for p in problems if p != f"{runlog.RUN_META} is missing"]
    spec_path = str(meta.get("spec_path") or (first_start.spec_path if first_start else ""))
    summary = RunSummary(
        run_id=os.path.basename(path),
        started=str(meta.get("created_at") or (first_start.at if first_start else "")),
        spec_path=spec_path,
        spec_name=_file_name(spec_path),
        state=str(state),
        attempts=attempts - first_attempt if attempts else 0,  # the planning turn is none
        duration_s=active_seconds(events),
        tokens=tokens,
        cost_usd=cost,
        stop_reason=stop_reason,
        damaged="; ".join(problems) or None,
    )
    return ScannedRun(summary, spec_text.lower() if spec_text is not None else None)
