"""How long a run was at work, read from its events: the duration history, the export and the
run's summary line show.

A run's events fall into spans of work. A span opens at ``run_started`` (a new session) or at
the first event after the run finished (the person continued it, retried it, or looked at it),
and closes at ``run_finished``; a session killed before its end closes at its last event. The
time between spans is not the run's: a run resumed days later, a finished run left open in the
TUI, or a person's restore (``restored``, logged outside any span and passed over here) adds
nothing to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from orch_tui.core.domain.events import Event, RunFinished, RunRestored, RunStarted


def parse_time(value: Any) -> datetime | None:
    """An event's ``at`` as a time; None when it is not one."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def active_seconds(events: Sequence[Event], until: datetime | None = None) -> float | None:
    """The seconds the run was at work, its spans added up; None when no span has a readable
    start. ``until``: when a span still open at the end ends (a run finishing now); without
    it, at its last event. Only the times at span edges are parsed: a span ends at its last
    event whose time can be read."""
    total: float | None = None
    first = last = -1  # the open span's first and last event; -1: none open
    for position, event in enumerate(events):
        kind = type(event)
        if kind is RunRestored:
            continue
        if kind is RunStarted and first >= 0:
            total = _add(total, _span(events, first, last))
            first = -1
        if first < 0:
            first = position
        last = position
        if kind is RunFinished:
            total = _add(total, _span(events, first, last))
            first = -1
    if first >= 0:
        total = _add(total, _span(events, first, last, until))
    return total


def _span(
    events: Sequence[Event], first: int, last: int, until: datetime | None = None
) -> float | None:
    start = parse_time(events[first].at)
    if start is None:
        return None
    if until is not None:
        return max(0.0, (until - start).total_seconds())
    for position in range(last, first - 1, -1):
        if (end := parse_time(events[position].at)) is not None:
            return (end - start).total_seconds()
    return None


def _add(total: float | None, span: float | None) -> float | None:
    if span is None:
        return total
    return span if total is None else total + span
