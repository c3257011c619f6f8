"""The engine thread's events on their way to the screen: in order, several to a message."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from orch_tui.core.domain import events as ev
from orch_tui.core.domain.events import EventBus
from orch_tui.tui.bridge import EngineThread
from orch_tui.tui.messages import EngineEvents


class Posted:
    """A message target that keeps what is posted to it, as a screen's queue does."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def post_message(self, message: Message) -> bool:
        self.messages.append(message)
        return True


class BusOnly:
    """What EngineThread reads of an engine before it runs: its bus."""

    def __init__(self) -> None:
        self.bus = EventBus()

    def run(self) -> int:
        return 0


def notice(n: int) -> ev.Notice:
    return ev.Notice(message=f"notice {n}")


def texts(events: list[ev.Event]) -> list[str]:
    return [event.message for event in events if isinstance(event, ev.Notice)]


def test_events_emitted_before_the_screen_takes_them_ride_in_one_message() -> None:
    engine: Any = BusOnly()
    target = Posted()
    EngineThread(engine, target)
    for n in range(50):
        engine.bus.emit(notice(n))
    assert len(target.messages) == 1  # one message an event before
    first = target.messages[0]
    assert isinstance(first, EngineEvents)
    assert texts(first.take()) == [f"notice {n}" for n in range(50)]
    engine.bus.emit(notice(50))  # taken: a later event goes in a new message
    engine.bus.emit(notice(51))
    assert len(target.messages) == 2
    second = target.messages[1]
    assert isinstance(second, EngineEvents)
    assert texts(second.take()) == ["notice 50", "notice 51"]
    assert len(first.take()) == 50  # nothing added once taken
