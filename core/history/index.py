"""One line per past run, and the index that lists ten thousand of them at once.

``logs/`` is the only truth. Summarising a run reads its ``run.json``, ``spec.md`` and
``events.jsonl`` (one ``os`` read each, the events parsed as one JSON array and walked once)
and stats the attempt files its events promise: about 0.1 ms a run, which is what a full
rebuild of the index costs per run.
``logs/.index.json`` caches every run's summary with a signature of what it was computed
from: the size and mtime of ``events.jsonl`` and the mtime of the run folder (an atomic
rewrite or removal of ``run.json``/``spec.md`` changes it). Listing stats each run twice and
summarises again only the runs whose signature changed; a missing or unreadable index is
rebuilt, and a failed index write is ignored (the index is a cache, never needed for a
correct answer).

The index is columnar: one JSON array per summary field, one position per run, and one
lowercase copy of each distinct spec text (for filtering) that runs point to by position.
Loading it is a few list reads, not one object per run. Each run gets one lowercase haystack
to filter, laid out the first time a filter needs it (see :class:`SearchTexts`).

A run folder with missing or corrupt files is summarised as far as it can be and marked
damaged with what is wrong; nothing here raises on bad logs. Files deleted inside an attempt
folder change no signature: the run view (``load_run``) reports them when the run is opened.
"""

from __future__ import annotations

import gc
import json
import os
import stat
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from pathlib import Path, PurePath
from typing import Any, NamedTuple

from orch_tui.core.domain.events import EventKind
from orch_tui.core.domain.state import RunState
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.util.atomic import write_bytes_atomic

INDEX_NAME = ".index.json"
INDEX_VERSION = 4
"""4: a run's signature is one string (its three numbers as lists of three took a third of
the file's parse). 3: columnar. 2: a summary per run, with a ghost run's stop reason."""

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
    """Set by :func:`core.history.mark_resumable`, which compares against state.json."""

    @property
    def finished(self) -> bool:
        return self.state in TERMINAL_STATES


_STORED_FIELDS = tuple(name for name in RunSummary._fields if name not in ("run_id", "resumable"))
"""The summary fields the index keeps, in constructor order after the run id."""


# -- reading a run's files ------------------------------------------------------------------


@dataclass
class EventLog:
    """The parsed ``events.jsonl``: good events in order, and what was wrong with the rest."""

    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    torn_tail: bool = False


_decode_at = json.JSONDecoder().raw_decode
_BLANKS = " \t\r"
_NOT_JSON = "\x00"
"""Stands in for a line that is not UTF-8, so that it fails to parse under its own number."""


def _decoded(data: bytes) -> str:
    """``data`` as text; a line that is not UTF-8 (a torn multi-byte character, garbage)
    becomes a line that no JSON parser accepts, so it is reported (or dropped as a torn tail)
    like any other bad line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        lines = []
        for raw in data.split(b"\n"):
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:  # keeps its "{": a cut-short event may be a torn one
                lines.append(("{" if raw.startswith(b"{") else "") + _NOT_JSON)
        return "\n".join(lines)


def _event_lines(text: str) -> Iterator[tuple[int, Any, bool]]:
    """(line number, the line's JSON value or None when it holds no single value, does the
    line start with ``{``) for every line that is not blank. The lines are parsed in place (no copy of
    each line): a value must end where its line ends."""
    size = len(text)
    start = number = 0
    while start < size:
        end = text.find("\n", start)
        if end < 0:
            end = size
        number += 1
        first = start
        while first < end and text[first] in _BLANKS:
            first += 1
        if first < end:
            try:
                value, after = _decode_at(text, first)
            except ValueError:
                value, after = None, end + 1
            if after > end or text[after:end].strip(_BLANKS):
                value = None
            yield number, value, text.startswith("{", start)
        start = end + 1


def _whole_file_events(text: str, complete: bool) -> list[Any] | None:
    """Every line's event from one parse of the whole file, when each non-blank line is one
    JSON object with an ``event`` string; None when any line is not, or a line is blank, or
    the last line is torn: the line-by-line parse then finds which lines are wrong.

    One parse of the file as a JSON array is several times faster than a parse per line. The
    array must hold exactly one object per line, so a bad line cannot hide: it either breaks
    the array or changes its length (only lines crafted to close each other's brackets
    could pass together)."""
    body = text[:-1] if complete else text
    if not body or "\n\n" in body or body.startswith("\n"):
        return None
    try:
        values = json.loads("[" + body.replace("\n", ",") + "]")
    except ValueError:
        return None
    if not isinstance(values, list) or len(values) != body.count("\n") + 1:
        return None
    for value in values:
        if not isinstance(value, dict) or not isinstance(value.get("event"), str):
            return None
    return values


def parse_events(data: bytes) -> EventLog:
    """Events from the bytes of an events file. A line torn by a kill mid-write is dropped,
    not a problem: the last line, or one the next session ended (``RunLog``) right before
    its ``run_started``."""
    text = _decoded(data)
    events = _whole_file_events(text, data.endswith(b"\n"))
    if events is not None:
        return EventLog(events)
    log = EventLog()
    torn: int | None = None  # the line number of a bad line: torn, if a new session follows
    bad: list[int] = []
    for number, value, brace in _event_lines(text):
        if not isinstance(value, dict) or not isinstance(value.get("event"), str):
            if torn is not None:
                bad.append(torn)
            torn = number if brace else None  # an event cut short by a kill, unless more follows
            if not brace:
                bad.append(number)
            continue
        if torn is not None and value["event"] != EventKind.RUN_STARTED:
            bad.append(torn)
        torn = None
        log.events.append(value)
    log.torn_tail = torn is not None
    log.problems += [f"{runlog.EVENTS} line {number} is not a valid event" for number in bad]
    if not log.events and not log.problems:
        log.problems.append(f"{runlog.EVENTS} is empty")
    return log


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 16


def _read_file(path: str) -> bytes:
    """The whole file at ``path``, read with ``os`` calls: one open and, for a small file,
    one read (a buffered file object costs more than the read itself for the few hundred
    bytes of most run files)."""
    handle = os.open(path, _READ_FLAGS)
    try:
        data = os.read(handle, _CHUNK)
        if len(data) < _CHUNK:  # a short read of a file is its end
            return data
        chunks = [data]
        while chunk := os.read(handle, _CHUNK):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(handle)


def _read_events_at(path: str) -> EventLog:
    try:
        data = _read_file(path)
    except FileNotFoundError:
        return EventLog(problems=[f"{runlog.EVENTS} is missing"])
    except OSError as exc:
        return EventLog(problems=[f"{runlog.EVENTS} is unreadable ({exc.strerror})"])
    return parse_events(data)


def read_events(path: Path) -> EventLog:
    """Parse an events file (see :func:`parse_events`)."""
    return _read_events_at(os.fspath(path))


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


def active_seconds(events: list[dict[str, Any]], starts: list[int]) -> float | None:
    """Time the run was actually running: each session (a ``run_started``, at the positions
    ``starts`` in ``events``, to the last event before the next one) added up, so a run
    resumed days later does not count the pause.

    Only the times at session edges are parsed: a session ends at the last event before the
    next start whose time can be read (an event with a bad time does not count)."""
    sessions = [
        (position, at)
        for position in starts
        if (at := parse_time(events[position].get("at"))) is not None
    ]
    if not sessions:
        return None
    total = 0.0
    ends = [position for position, _at in sessions[1:]] + [len(events)]
    for (first, start), end in zip(sessions, ends, strict=True):
        for position in range(end - 1, first, -1):
            if (last := parse_time(events[position].get("at"))) is not None:
                total += (last - start).total_seconds()
                break
    return total


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


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
        meta = json.loads(_read_file(folder + _META_IN_FOLDER))
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
        return _read_file(folder + _SPEC_IN_FOLDER).decode("utf-8")
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


@dataclass
class ScannedRun:
    summary: RunSummary
    spec_lower: str | None
    """The spec's text in lowercase (for filtering); None when it cannot be read."""


_STATE = EventKind.STATE.value
_MODEL_TURN = EventKind.MODEL_TURN.value
_RUN_FINISHED = EventKind.RUN_FINISHED.value
_RUN_STARTED = EventKind.RUN_STARTED.value
_INIT = RunState.INIT.value


def scan_run(folder: str | os.PathLike[str]) -> ScannedRun:
    """Summarise one run folder from its files; never raises on bad content.

    This is what an index rebuild does for every run, so it reads each file with one
    ``os`` call and walks the events once."""
    path = os.fspath(folder)
    problems: list[str] = []
    meta = _read_meta(path, problems)
    spec_text = _read_spec(path, problems)
    log = _read_events_at(path + _EVENTS_IN_FOLDER)
    problems += log.problems
    events = log.events
    state: str = _INIT
    attempts = tokens = 0
    cost = 0.0
    finished: dict[str, Any] | None = None
    starts: list[int] = []
    promised: set[tuple[int, str]] = set()
    for position, event in enumerate(events):
        kind = event["event"]
        attempt = event.get("attempt")
        if not isinstance(attempt, int) or attempt < 0:
            attempt = None
        if kind == _STATE:
            if isinstance(new_state := event.get("state"), str):
                state = new_state
                if attempt is not None and state != _INIT:
                    attempts = max(attempts, attempt + 1)
        elif kind == _MODEL_TURN:
            tokens = _int(event.get("run_tokens"))
            cost = _float(event.get("run_cost_usd"))
        elif kind == _RUN_FINISHED:
            finished = event
            if isinstance(event.get("state"), str):
                state = event["state"]
        elif kind == _RUN_STARTED:
            starts.append(position)
        if attempt is not None and (promised_file := _EVENT_FILES.get(kind)) is not None:
            promised.add((attempt, promised_file))
    if events and not starts:
        problems.append(f"{runlog.EVENTS} has no run_started")
    if promised:
        problems += _missing_attempt_files(path, promised)
    first_start = events[starts[0]] if starts else {}
    if finished is not None:
        tokens = _int(finished.get("tokens")) or tokens
        cost = _float(finished.get("cost_usd")) or cost
    stop_reason = finished.get("stop_reason") if finished and state in TERMINAL_STATES else None
    if state == _INIT and finished is None and events:
        stop_reason = NEVER_STARTED
        # run.json lands with the first step's commit: a ghost never wrote it, and lacks nothing
        problems = [p for p in problems if p != f"{runlog.RUN_META} is missing"]
    spec_path = str(meta.get("spec_path") or first_start.get("spec_path") or "")
    summary = RunSummary(
        run_id=os.path.basename(path),
        started=str(meta.get("created_at") or first_start.get("at") or ""),
        spec_path=spec_path,
        spec_name=_file_name(spec_path),
        state=state,
        attempts=attempts,
        duration_s=active_seconds(events, starts),
        tokens=tokens,
        cost_usd=cost,
        stop_reason=stop_reason if isinstance(stop_reason, str) else None,
        damaged="; ".join(problems) or None,
    )
    return ScannedRun(summary, spec_text.lower() if spec_text is not None else None)


# -- the index ------------------------------------------------------------------------------


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a list of runs is built.

    Making 100,000 summaries (and the rows that search them) sets the collector off again
    and again to walk every one of them, though none is garbage: that was half of listing
    100,000 runs. It is back on (if it was) when the block ends; nothing is lost meanwhile,
    only deferred."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _signature(folder: str) -> str | None:
    """What a summary depends on, ``size:mtime:folder mtime``; None when the folder is gone.
    (Two stats per run is most of what listing ten thousand fresh runs costs, so no path
    object is made here.)"""
    try:
        folder_mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return None
    try:
        events = os.stat(folder + _EVENTS_IN_FOLDER)
    except OSError:
        return f"-1:-1:{folder_mtime}"
    return f"{events.st_size}:{events.st_mtime_ns}:{folder_mtime}"


@dataclass
class _Stored:
    """The index file as read: positions by run id, and each run's columns."""

    position: dict[str, int]
    signatures: list[Any]
    spec_numbers: list[Any]
    rows: list[tuple[Any, ...]]
    specs: list[Any]


def _read_index(path: Path) -> _Stored | None:
    """The index file's columns, or None when it is missing, of another version or malformed."""
    data, _problem = read_json_file(path)
    if not isinstance(data, dict):
        return None
    try:
        if data["version"] != INDEX_VERSION or not isinstance(data["specs"], list):
            return None
        columns = data["runs"]
        run_ids, signatures, spec_numbers = (
            columns["run_id"],
            columns["signature"],
            columns["spec"],
        )
        stored = [columns[name] for name in _STORED_FIELDS]
    except (KeyError, TypeError):
        return None
    every = [run_ids, signatures, spec_numbers, *stored]
    if not all(isinstance(column, list) and len(column) == len(run_ids) for column in every):
        return None
    return _Stored(
        position={run_id: number for number, run_id in enumerate(run_ids)},
        signatures=signatures,
        spec_numbers=spec_numbers,
        rows=list(zip(*stored, strict=True)) if stored else [],
        specs=data["specs"],
    )


def _run_folders(logs: Path) -> list[str]:
    try:
        with os.scandir(logs) as entries:
            return [
                entry.name
                for entry in entries
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []


PACE_EVERY = 250
"""Runs the check looks at between two calls of :func:`recorded_then_checked`'s ``pace``:
about 1 ms of its work."""

NO_TEXT = ("", -1)
"""What a run unknown to the index can be found by: nothing."""


class SearchTexts:
    """The lowercase text each filter searches, laid out the first time it is asked for.

    Laying them out is about 16 ms of CPU at 10,000 runs, which the runs list need not wait
    for: a worker asks for them once the list is on screen, and a keystroke sooner than that
    lays them out itself (whichever comes second finds them made).
    """

    def __init__(self, runs: list[RunSummary], specs: list[str | None]) -> None:
        self._runs = runs
        self._specs = specs
        self._lock = threading.Lock()
        self._laid_out: tuple[dict[str, tuple[str, int]], list[str]] | None = None

    def laid_out(self) -> tuple[dict[str, tuple[str, int]], list[str]]:
        """``(search, shared_specs)`` as :class:`RunIndex` describes them."""
        with self._lock:
            if self._laid_out is None:
                with collector_paused():
                    self._laid_out = _search_texts(self._runs, self._specs)
            return self._laid_out


@dataclass
class RunIndex:
    """Every run's summary, newest first, and the lowercase text each filter searches."""

    runs: list[RunSummary]
    texts: SearchTexts
    """What :attr:`search` and :attr:`shared_specs` are laid out from, once."""
    checked: bool = True
    """False: the runs as the index file recorded them, before any run folder was looked at
    (see :func:`recorded_then_checked`)."""

    @property
    def search(self) -> dict[str, tuple[str, int]]:
        """run id -> (its haystack, the number of its spec in ``shared_specs`` or -1). The
        haystack is the run's id, spec name and, when no other run has the same spec, the
        spec's text, in lowercase, on lines of their own: one string to search per run, made
        once. A spec that runs share is kept once, in ``shared_specs``, and searched once per
        word."""
        return self.texts.laid_out()[0]

    @property
    def shared_specs(self) -> list[str]:
        return self.texts.laid_out()[1]


@dataclass
class _Entry:
    signature: str
    summary: RunSummary
    spec: str | None


def _entries(
    logs: Path, stored: _Stored | None, pace: Callable[[], object] | None = None
) -> tuple[list[_Entry], bool]:
    """Every run folder's entry, from the stored index where its signature holds; and
    whether any run was summarised again."""
    entries: list[_Entry] = []
    rescanned = False
    prefix = os.path.join(logs, "")
    for name in _paced(_run_folders(logs), pace):
        folder = prefix + name
        signature = _signature(folder)
        if signature is None:
            continue
        number = stored.position.get(name) if stored else None
        if stored is not None and number is not None and stored.signatures[number] == signature:
            entry = _stored_entry(stored, name, number)
            if entry is not None:
                entries.append(entry)
                continue
        scanned = scan_run(folder)
        entries.append(_Entry(signature, scanned.summary, scanned.spec_lower))
        rescanned = True
    return entries, rescanned


def _stored_run(stored: _Stored, run_id: str, number: int) -> tuple[RunSummary, str | None] | None:
    """Run ``number`` of the index file and its spec text; None when its columns are malformed."""
    spec_number = stored.spec_numbers[number]
    try:
        summary = RunSummary(run_id, *stored.rows[number])
        return summary, None if spec_number is None else str(stored.specs[spec_number])
    except (TypeError, IndexError):
        return None


def _stored_entry(stored: _Stored, run_id: str, number: int) -> _Entry | None:
    """Run ``number`` of the index file as an entry; None when its columns are malformed."""
    found = _stored_run(stored, run_id, number)
    return None if found is None else _Entry(stored.signatures[number], *found)


def _write_index(path: Path, entries: list[_Entry]) -> None:
    specs: dict[str, int] = {}
    spec_numbers = [
        None if entry.spec is None else specs.setdefault(entry.spec, len(specs))
        for entry in entries
    ]
    summaries = [entry.summary for entry in entries]
    columns: dict[str, list[Any]] = {
        "run_id": [summary.run_id for summary in summaries],
        "signature": [entry.signature for entry in entries],
        "spec": spec_numbers,
    }
    for name in _STORED_FIELDS:
        columns[name] = [getattr(summary, name) for summary in summaries]
    data = {"version": INDEX_VERSION, "runs": columns, "specs": list(specs)}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    try:
        write_bytes_atomic(path, text.encode("utf-8"), durable=False)
    except OSError:
        pass


def build_index(logs: Path) -> RunIndex:
    """Summaries of every run in ``logs``, from the index where it is fresh, newest first.

    The index file is rewritten when anything changed; a write that fails (a read-only
    folder) is ignored.
    """
    with collector_paused():
        return _checked(logs, _read_index(logs / INDEX_NAME))


def recorded_then_checked(
    logs: Path, pace: Callable[[], object] | None = None
) -> Iterator[RunIndex]:
    """The runs as the index file recorded them, when there is one, then :func:`build_index`'s.

    The first is a list to show, and search, at once: checking every run folder (two
    ``stat`` calls a run) was most of listing 10,000 runs, and the recorded list is what it
    finds unless a run changed since. The index file is read once. ``pace`` is called every
    :data:`PACE_EVERY` runs of the check, whether it finds the record or summarises runs
    again: a UI's worker sleeps there, so that the check (about 50 ms at 10,000 runs) leaves
    the interpreter to the keys typed meanwhile.
    """
    with collector_paused():
        stored = _read_index(logs / INDEX_NAME)
        recorded = _recorded(stored) if stored is not None else None
    if recorded is not None and stored is not None:
        yield recorded
        if len(recorded.runs) == len(stored.position) and _holds(logs, stored, pace):
            yield replace(recorded, checked=True)  # every run as recorded: nothing to redo
            return
    with collector_paused():
        checked = _checked(logs, stored, pace)
    yield checked


def _holds(logs: Path, stored: _Stored, pace: Callable[[], object] | None) -> bool:
    """True when the run folders are the recorded ones, each with its recorded signature."""
    names = _run_folders(logs)
    if len(names) != len(stored.position):
        return False
    prefix = os.path.join(logs, "")
    for name in _paced(names, pace):
        number = stored.position.get(name)
        if number is None or stored.signatures[number] != _signature(prefix + name):
            return False
    return True


def _paced(names: list[str], pace: Callable[[], object] | None) -> Iterator[str]:
    """``names``, with ``pace`` called after every :data:`PACE_EVERY` of them."""
    for count, name in enumerate(names, start=1):
        yield name
        if pace is not None and count % PACE_EVERY == 0:
            pace()


def _recorded(stored: _Stored) -> RunIndex:
    """The runs as the index file recorded them: a summary each and nothing more, as this is
    on the way to the first list a launch shows."""
    found = [
        run
        for run_id, number in stored.position.items()
        if (run := _stored_run(stored, run_id, number)) is not None
    ]  # a malformed entry is left out: the check summarises that run again
    runs = [summary for summary, _spec in found]
    return replace(_newest_first(runs, [spec for _summary, spec in found]), checked=False)


def _checked(
    logs: Path, stored: _Stored | None, pace: Callable[[], object] | None = None
) -> RunIndex:
    entries, rescanned = _entries(logs, stored, pace)
    if rescanned or (stored is not None and len(stored.position) != len(entries)):
        _write_index(logs / INDEX_NAME, entries)
    return _newest_first([entry.summary for entry in entries], [entry.spec for entry in entries])


def _newest_first(runs: list[RunSummary], specs: list[str | None]) -> RunIndex:
    """The index of ``runs`` (``specs``: the spec text of each) sorted newest first; what a
    filter searches is laid out when first asked for."""
    order = sorted(range(len(runs)), key=lambda i: (runs[i].started, runs[i].run_id), reverse=True)
    ordered = [runs[i] for i in order]
    return RunIndex(ordered, SearchTexts(ordered, [specs[i] for i in order]))


def _search_texts(
    runs: list[RunSummary], specs: list[str | None]
) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """Each run's haystack, by run id, and the specs runs share (see :attr:`RunIndex.search`)."""
    uses = Counter(specs)
    shared: dict[str, int] = {}
    search: dict[str, tuple[str, int]] = {}
    for summary, spec in zip(runs, specs, strict=True):
        label = f"{summary.run_id}\n{summary.spec_name}".lower()
        if uses[spec] > 1:
            search[summary.run_id] = (label, shared.setdefault(spec or "", len(shared)))
        else:
            search[summary.run_id] = (f"{label}\n{spec or ''}", -1)
    return search, list(shared)
