"""The runs list's cells as plain text, without a widget (what ``orch-tui history | cat`` prints)."""

from __future__ import annotations

from orch_tui.core.history.export import format_duration
from orch_tui.core.history.scan import RunSummary
from orch_tui.tui.widgets.run_columns import (
    RUN_COLUMNS,
    SPEC_WIDTH_CAP,
    cell_texts,
    fit,
    local_time,
)

RUN = RunSummary(
    run_id="20260301-090000-a001",
    spec_path="specs/todo.md",
    spec_name="todo.md",
    state="FAILED",
    started="2026-03-01T09:00:00+00:00",
    attempts=3,
    duration_s=125.0,
    tokens=12345,
    cost_usd=0.5,
    stop_reason="no progress:\tsame\nfailures",
)


def test_cells_are_one_line_each_with_control_characters_spelt_out() -> None:
    texts = cell_texts(RUN._replace(spec_name="to\x1bdo.md"))

    assert dict(zip((c.key for c in RUN_COLUMNS), texts, strict=True)) == {
        "started": local_time(RUN.started),
        "spec": "to\\x1bdo.md",
        "state": "FAILED",
        "attempts": "3",
        "duration": format_duration(125.0),
        "tokens": "12,345",
        "cost": "$0.5000",
        "stop_reason": "no progress: same failures",
    }


def test_a_resumable_or_damaged_run_says_so_in_its_state() -> None:
    assert cell_texts(RUN._replace(resumable=True))[2] == "FAILED ↻"
    damaged = cell_texts(RUN._replace(damaged="events.jsonl: not JSON"))
    assert (damaged[2], damaged[-1]) == ("DAMAGED", "events.jsonl: not JSON")


def test_widths_come_from_the_largest_value_and_the_spec_name_is_capped() -> None:
    runs = [RUN, RUN._replace(tokens=9_876_543, spec_name="x" * 99)]
    widths = {column.key: column.width(runs) for column in RUN_COLUMNS}

    assert widths["tokens"] == len("9,876,543")
    assert widths["spec"] == SPEC_WIDTH_CAP


def test_fit_pads_or_cuts_to_exactly_the_width() -> None:
    assert fit("abc", 5) == "abc  "
    assert fit("abc", 5, right=True) == "  abc"
    assert fit("abcdef", 4) == "abc…"
    assert fit("abc", 0) == ""
