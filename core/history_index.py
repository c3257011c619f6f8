"""One line per past run, and the index that makes listing a thousand of them instant.

``logs/`` is the only truth. Summarising a run means reading its ``run.json``, ``spec.md`` and
``events.jsonl``; ``logs/.index.json`` caches each run's summary (and a lowercase copy of each
distinct spec, for filtering) keyed by the run folder, together with a signature of what the
summary was computed from: the size and mtime of ``events.jsonl`` and the mtime of the run
folder (an atomic rewrite or removal of ``run.json``/``spec.md`` changes it). A stale entry is
recomputed, a missing or unreadable index is rebuilt, and a failed index write is ignored.

A run folder with missing or corrupt files is summarised as far as it can be and marked
damaged with what is wrong; nothing here raises on bad logs. Files deleted inside an attempt
folder change no signature: the run view (``load_run``) reports them when the run is opened.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any

from orch_tui.core import runlog
from orch_tui.core.atomic import write_json_atomic
from orch_tui.core.events import EventKind
from orch_tui.core.spec import spec_digest
from orch_tui.core.state import RunState

INDEX_NAME = ".index.json"
INDEX_VERSION = 2

NEVER_STARTED = "stopped before its first step (killed or interrupted): nothing was done"
"""The stop reason history gives a run that never left INIT (a ghost of a kill)."""

TERMINAL_STATES = (RunState.SUCCESS, RunState.FAILED)

# Which attempt file an event promises: a log that has the event but not the file is damaged.
_EVENT_FILES: dict[str, str] = {
    EventKind.MODEL_TURN: runlog.CONVERSATION,
    EventKind.PROPOSAL: runlog.PROPOSAL,
    EventKind.APPLIED: runlog.APPLIED,
    EventKind.TESTS: runlog.REPORT,
}


@dataclass(frozen=True)
class RunSummary:
    """One row of the runs list. ``state`` is the last state the run reached."""

    run_id: str
    started: str
    spec_path: str
    spec_name: str
    spec_hash: str
    state: str
    attempts: int
    duration_s: float | None
    tokens: int
    cost_usd: float
    stop_reason: str | None
    damaged: str | None = None
    resumable: bool = False
    """Set by :func:`core.history.mark_resumable`, which compares against state.json."""

    @property
    def finished(self) -> bool:
        return self.state in TERMINAL_STATES

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("resumable")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSummary:
        return cls(**data)


@dataclass
class EventLog:
    """The parsed ``events.jsonl``: good events in order, and what was wrong with the rest."""

    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    torn_tail: bool = False


def read_events(path: Path) -> EventLog:
    """Parse an events file. A line torn by a kill mid-write is dropped, not a problem: the last
    line, or one the next session ended (``RunLog``) right before its ``run_started``."""
    log = EventLog()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        log.problems.append(f"{runlog.EVENTS} is missing")
        return log
    except OSError as exc:
        log.problems.append(f"{runlog.EVENTS} is unreadable ({exc.strerror})")
        return log
    torn: int | None = None  # the line number of a bad line: torn, if a new session follows
    bad: list[int] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            event = json.loads(raw)
            if not isinstance(event, dict) or not isinstance(event.get("event"), str):
                raise ValueError("not an event object")
        except (ValueError, UnicodeDecodeError):
            if torn is not None:
                bad.append(torn)
            if raw.startswith(b"{"):  # an event cut short by a kill, unless more follows
                torn = number
            else:
                bad.append(number)
                torn = None
            continue
        if torn is not None and event["event"] != EventKind.RUN_STARTED:
            bad.append(torn)
        torn = None
        log.events.append(event)
    log.torn_tail = torn is not None
    log.problems += [f"{runlog.EVENTS} line {number} is not a valid event" for number in bad]
    if not log.events and not log.problems:
        log.problems.append(f"{runlog.EVENTS} is empty")
    return log


def read_json_file(path: Path) -> tuple[Any | None, str | None]:
    """(data, None), or (None, what is wrong) for a missing or corrupt file."""
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except FileNotFoundError:
        return None, f"{path.name} is missing"
    except (OSError, UnicodeDecodeError, ValueError):
        return None, f"{path.name} is not valid JSON"


def parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def active_seconds(events: list[dict[str, Any]]) -> float | None:
    """Time the run was actually running: each session (a ``run_started`` to the last event
    before the next one) added up, so a run resumed days later does not count the pause."""
    total = 0.0
    start: datetime | None = None
    last: datetime | None = None
    seen = False
    for event in events:
        at = parse_time(event.get("at"))
        if at is None:
            continue
        if event.get("event") == EventKind.RUN_STARTED:
            if start is not None and last is not None:
                total += (last - start).total_seconds()
            start = at
        last = at
        seen = seen or start is not None
    if start is not None and last is not None:
        total += (last - start).total_seconds()
    return total if seen else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _attempt_of(event: dict[str, Any]) -> int | None:
    attempt = event.get("attempt")
    return attempt if isinstance(attempt, int) and attempt >= 0 else None


def _missing_attempt_files(folder: Path, events: list[dict[str, Any]]) -> list[str]:
    promised: set[tuple[int, str]] = set()
    for event in events:
        name = _EVENT_FILES.get(str(event.get("event")))
        attempt = _attempt_of(event)
        if name and attempt is not None:
            promised.add((attempt, name))
    missing = []
    for attempt, name in sorted(promised):
        if not (folder / runlog.attempt_dir_name(attempt) / name).is_file():
            missing.append(f"{runlog.attempt_dir_name(attempt)}/{name} is missing")
    return missing


@dataclass
class ScannedRun:
    summary: RunSummary
    spec_key: str | None
    spec_lower: str | None


def scan_run(folder: Path) -> ScannedRun:
    """Summarise one run folder from its files; never raises on bad content."""
    problems: list[str] = []
    meta, problem = read_json_file(folder / runlog.RUN_META)
    if problem:
        problems.append(problem)
    if not isinstance(meta, dict):
        if meta is not None:
            problems.append(f"{runlog.RUN_META} is not an object")
        meta = {}
    try:
        spec_text: str | None = (folder / runlog.SPEC_COPY).read_text(encoding="utf-8")
    except FileNotFoundError:
        spec_text = None
        problems.append(f"{runlog.SPEC_COPY} is missing")
    except (OSError, UnicodeDecodeError):
        spec_text = None
        problems.append(f"{runlog.SPEC_COPY} is unreadable")
    log = read_events(folder / runlog.EVENTS)
    problems += log.problems
    events = log.events
    if events and not any(e.get("event") == EventKind.RUN_STARTED for e in events):
        problems.append(f"{runlog.EVENTS} has no run_started")
    problems += _missing_attempt_files(folder, events)

    first_start = next((e for e in events if e.get("event") == EventKind.RUN_STARTED), {})
    spec_path = str(meta.get("spec_path") or first_start.get("spec_path") or "")
    state: str = RunState.INIT
    attempts = 0
    tokens = 0
    cost = 0.0
    finished: dict[str, Any] | None = None
    for event in events:
        kind = event.get("event")
        attempt = _attempt_of(event)
        if kind == EventKind.STATE and isinstance(event.get("state"), str):
            state = event["state"]
            if attempt is not None and state != RunState.INIT:
                attempts = max(attempts, attempt + 1)
        elif kind == EventKind.MODEL_TURN:
            tokens = _int(event.get("run_tokens"))
            cost = _float(event.get("run_cost_usd"))
        elif kind == EventKind.RUN_FINISHED:
            finished = event
            if isinstance(event.get("state"), str):
                state = event["state"]
    if finished is not None:
        tokens = _int(finished.get("tokens")) or tokens
        cost = _float(finished.get("cost_usd")) or cost
    stop_reason = finished.get("stop_reason") if finished and state in TERMINAL_STATES else None
    if state == RunState.INIT and finished is None and events:
        stop_reason = NEVER_STARTED
        # run.json lands with the first step's commit: a ghost never wrote it, and lacks nothing
        problems = [p for p in problems if p != f"{runlog.RUN_META} is missing"]
    started = str(meta.get("created_at") or first_start.get("at") or "")
    summary = RunSummary(
        run_id=folder.name,
        started=started,
        spec_path=spec_path,
        spec_name=PurePath(spec_path).name if spec_path else "",
        spec_hash=str(meta.get("spec_hash") or ""),
        state=state,
        attempts=attempts,
        duration_s=active_seconds(events),
        tokens=tokens,
        cost_usd=cost,
        stop_reason=stop_reason if isinstance(stop_reason, str) else None,
        damaged="; ".join(problems) or None,
    )
    if spec_text is None:
        return ScannedRun(summary, None, None)
    return ScannedRun(summary, spec_digest(spec_text), spec_text.lower())


def _signature(folder: Path) -> list[int] | None:
    """What a summary depends on; None when the folder is gone."""
    try:
        folder_mtime = folder.stat().st_mtime_ns
    except OSError:
        return None
    try:
        events = (folder / runlog.EVENTS).stat()
        return [events.st_size, events.st_mtime_ns, folder_mtime]
    except OSError:
        return [-1, -1, folder_mtime]


@dataclass
class RunIndex:
    """Every run's summary, plus the lowercase text of each distinct spec (for filtering)."""

    runs: list[RunSummary]
    spec_keys: dict[str, str | None]
    spec_texts: dict[str, str]


def _load_index_file(path: Path) -> dict[str, Any]:
    data, _problem = read_json_file(path)
    if (
        not isinstance(data, dict)
        or data.get("version") != INDEX_VERSION
        or not isinstance(data.get("runs"), dict)
        or not isinstance(data.get("specs"), dict)
    ):
        return {"version": INDEX_VERSION, "runs": {}, "specs": {}}
    return data


def _run_folders(logs: Path) -> list[Path]:
    try:
        with os.scandir(logs) as entries:
            return [
                Path(entry.path)
                for entry in entries
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []


def build_index(logs: Path) -> RunIndex:
    """Summaries of every run in ``logs``, from the index where it is fresh, newest first.

    The index file is rewritten when anything changed; a write that fails (a read-only
    folder) is ignored: the index is a cache, never needed for a correct answer.
    """
    index_path = logs / INDEX_NAME
    stored = _load_index_file(index_path)
    old_runs: dict[str, Any] = stored["runs"]
    old_specs: dict[str, Any] = stored["specs"]
    runs: dict[str, Any] = {}
    specs: dict[str, str] = {}
    summaries: list[RunSummary] = []
    spec_keys: dict[str, str | None] = {}
    changed = False
    for folder in _run_folders(logs):
        signature = _signature(folder)
        if signature is None:
            continue
        entry = old_runs.get(folder.name)
        summary: RunSummary | None = None
        key: str | None = None
        if isinstance(entry, dict) and entry.get("signature") == signature:
            key = entry.get("spec_key")
            try:
                summary = RunSummary.from_json(entry["summary"])
            except (KeyError, TypeError):
                summary = None
            if key is not None and not isinstance(old_specs.get(key), str):
                summary = None
        if summary is None:
            scanned = scan_run(folder)
            summary, key = scanned.summary, scanned.spec_key
            if key is not None and scanned.spec_lower is not None:
                specs[key] = scanned.spec_lower
            changed = True
        elif key is not None:
            specs[key] = old_specs[key]
        runs[folder.name] = {"signature": signature, "spec_key": key, "summary": summary.to_json()}
        summaries.append(summary)
        spec_keys[summary.run_id] = key
    if changed or set(runs) != set(old_runs) or set(specs) != set(old_specs):
        try:
            write_json_atomic(index_path, {"version": INDEX_VERSION, "runs": runs, "specs": specs})
        except OSError:
            pass
    summaries.sort(key=lambda run: (run.started, run.run_id), reverse=True)
    return RunIndex(summaries, spec_keys, specs)
