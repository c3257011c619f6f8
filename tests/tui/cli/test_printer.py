"""The headless printer words every event as history does (core/domain/describe.py)."""

from __future__ import annotations

import io

from orch_tui.core.domain.describe import describe
from orch_tui.core.domain.events import STREAM_EVENTS, ModelTurn
from orch_tui.tui.cli.printer import LinePrinter, printable
from tests.core.domain.test_events import SAMPLES


def test_every_printed_step_is_the_events_one_line() -> None:
    out = io.StringIO()
    printer = LinePrinter(out)
    for event in SAMPLES:
        printer(event)
    printed = out.getvalue()
    for event in SAMPLES:
        if not isinstance(event, (*STREAM_EVENTS, ModelTurn)):
            assert describe(printable(event)) in printed, event.name  # control codes spelt out
    assert "model turn" not in printed and "model text" not in printed


def test_printed_lines_carry_the_attempt_and_where_money_moved_the_cost() -> None:
    out = io.StringIO()
    printer = LinePrinter(out)
    start, _notice, state, *_rest = SAMPLES
    question, proposal, tests, finished = SAMPLES[14], SAMPLES[6], SAMPLES[10], SAMPLES[-1]
    for event in (start, state, proposal, tests, question, finished):
        printer(event)
    assert out.getvalue().splitlines() == [
        f"orch-tui · {describe(start)}",
        "[2/5] TESTING",
        f"[2/5] {describe(proposal)} · tokens 1,200 · $0.5000",
        f"[2/5] {describe(tests)}",
        "      collection error",
        f"[2/5] {describe(question)}",
        "summary: 2 files changed · tests: 4 passed · 2 attempts · $0.7500 · 12s",
        f"{describe(finished)} · tokens 1,500 · $0.7500 · exit 0",
    ]
