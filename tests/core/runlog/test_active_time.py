"""A run's duration is the time it was at work: restores and the idle time around them,
and pauses between sessions, are left out."""

from __future__ import annotations

from datetime import datetime

from orch_tui.core.domain.events import (
    Event,
    Notice,
    RunFinished,
    RunReopened,
    RunRestored,
    RunStarted,
    StateChanged,
)
from orch_tui.core.domain.state import RunState
from orch_tui.core.runlog.active_time import active_seconds


def started(at: str, resumed: bool = False) -> RunStarted:
    return RunStarted(
        at=at, run_id="r", spec_path="spec.md", provider="scripted", model="m",
        max_retries=3, resumed=resumed, state=RunState.INIT, attempt=0,
    )  # fmt: skip


def state(at: str, attempt: int = 0) -> StateChanged:
    return StateChanged(at=at, state=RunState.GENERATING, attempt=attempt, max_retries=3)


def finished(at: str, ended: RunState = RunState.SUCCESS) -> RunFinished:
    return RunFinished(at=at, state=ended, attempt=1, stop_reason="done", retryable=False,
                       exit_code=0, tokens=0, cost_usd=0.0)  # fmt: skip


def restored(at: str) -> RunRestored:
    return RunRestored(at=at, message="restored attempt 0", to_attempt=0, undone=[1])


def test_a_restore_between_two_sessions_adds_nothing() -> None:
    events: list[Event] = [
        started("2026-03-01T10:00:00Z"),
        finished("2026-03-01T10:00:30Z", RunState.FAILED),
        restored("2026-03-03T09:00:00Z"),  # two days later
        started("2026-03-04T09:00:00Z", resumed=True),
        state("2026-03-04T09:00:05Z", 1),
        finished("2026-03-04T09:00:20Z"),
    ]
    assert active_seconds(events) == 30 + 20


def test_the_idle_time_of_a_finished_run_left_open_around_a_restore_adds_nothing() -> None:
    """The TUI: the run ends, the person browses history, restores, then continues (``c``)."""
    events: list[Event] = [
        started("2026-03-01T10:00:00Z"),
        finished("2026-03-01T10:00:30Z", RunState.FAILED),
        restored("2026-03-01T11:00:00Z"),
        RunReopened(at="2026-03-01T12:00:00Z", from_state="FAILED", attempt=2, max_retries=3),
        state("2026-03-01T12:00:01Z", 2),
        finished("2026-03-01T12:00:10Z"),
    ]
    assert active_seconds(events) == 30 + 10


def test_a_restore_after_a_killed_session_does_not_stretch_it() -> None:
    events: list[Event] = [
        started("2026-03-01T10:00:00Z"),
        state("2026-03-01T10:00:10Z"),  # killed here: no run_finished
        restored("2026-03-01T15:00:00Z"),
        started("2026-03-02T10:00:00Z", resumed=True),
        finished("2026-03-02T10:00:05Z"),
    ]
    assert active_seconds(events) == 10 + 5


def test_a_span_still_open_ends_when_asked() -> None:
    events: list[Event] = [
        started("2026-03-01T10:00:00Z"),
        finished("2026-03-01T10:00:30Z"),
        restored("2026-03-02T10:00:00Z"),
        started("2026-03-05T10:00:00Z", resumed=True),
        Notice(at="2026-03-05T10:00:01Z", message="already finished"),
    ]
    now = datetime.fromisoformat("2026-03-05T10:00:04Z")
    assert active_seconds(events, until=now) == 30 + 4
    assert active_seconds(events) == 30 + 1


def test_no_readable_start_is_no_duration() -> None:
    assert active_seconds([]) is None
    assert active_seconds([restored("2026-03-01T10:00:00Z")]) is None
    assert active_seconds([Notice(at="not a time", message="x")]) is None
