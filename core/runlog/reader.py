"""Reads ``logs/<run_id>/`` back: the events as the typed events they were written as.

Nothing here raises on bad content. A line torn by a kill is dropped; a line that holds no
event is reported as a problem; a line of an unknown kind, or whose fields do not fit its kind,
is kept as an unknown event (:class:`~orch_tui.core.domain.events.UnknownEvent`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

from orch_tui.core.domain.event_reading import event_from_json
from orch_tui.core.domain.events import Event, EventKind
from orch_tui.core.runlog.layout import EVENTS
from orch_tui.core.util.records import record


@record
class EventLog:
    """The parsed ``events.jsonl``: good events in order, and what was wrong with the rest."""

    events: list[Event] = field(default_factory=list)
    """Unknown kinds and unreadable fields included, as unknown events."""
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
    values = _whole_file_events(text, data.endswith(b"\n"))
    if values is not None:
        return EventLog([event_from_json(value) for value in values])
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
        log.events.append(event_from_json(value))
    log.torn_tail = torn is not None
    log.problems += [f"{EVENTS} line {number} is not a valid event" for number in bad]
    if not log.events and not log.problems:
        log.problems.append(f"{EVENTS} is empty")
    return log


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 16


def read_bytes(path: str) -> bytes:
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


def read_events_at(path: str) -> EventLog:
    """As :func:`read_events`, for a path as a string (what a scan of many runs has)."""
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        return EventLog(problems=[f"{EVENTS} is missing"])
    except OSError as exc:
        return EventLog(problems=[f"{EVENTS} is unreadable ({exc.strerror})"])
    return parse_events(data)


def read_events(path: Path) -> EventLog:
    """Parse an events file (see :func:`parse_events`)."""
    return read_events_at(os.fspath(path))


def read_json_file(path: Path) -> tuple[Any | None, str | None]:
    """(data, None), or (None, what is wrong) for a missing or corrupt file."""
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except FileNotFoundError:
        return None, f"{path.name} is missing"
    except (OSError, UnicodeDecodeError, ValueError):
        return None, f"{path.name} is not valid JSON"
