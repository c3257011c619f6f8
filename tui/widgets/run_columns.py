"""The runs list's columns and cells as plain text: what each column shows and how wide it is.

Pure (no widget): :class:`~orch_tui.tui.widgets.runs_table.RunsTable` paints these cells, and
``orch-tui history`` without a terminal prints them as tab-separated lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter

from rich.cells import cell_len, set_cell_size

from orch_tui.core.history.export import format_duration
from orch_tui.core.history.scan import RunSummary
from orch_tui.core.runlog.active_time import parse_time
from orch_tui.core.util.terminal_text import escape_controls

__all__ = [
    "RESUMABLE_MARK",
    "RUN_COLUMNS",
    "Column",
    "cell_texts",
    "fit",
    "local_time",
    "one_line",
    "state_label",
]


def local_time(iso: str) -> str:
    """``2026-11-21 19:51`` in the local time zone, from a UTC ISO-8601 stamp."""
    when = parse_time(iso)
    return when.astimezone().strftime("%Y-%m-%d %H:%M") if when else "–"


def state_label(run: RunSummary) -> str:
    """``DAMAGED`` for a run whose logs could not be read, else the last state it reached."""
    return "DAMAGED" if run.damaged else run.state


@dataclass(frozen=True)
class Column:
    """One column: its sort key (see ``core.history.SORT_KEYS``), heading and cell text."""

    key: str
    heading: str
    text: Callable[[RunSummary], str]
    width: Callable[[Sequence[RunSummary]], int]
    """The widest cell among these runs, from plain values (no cell is rendered to know)."""
    right: bool = False


def _widest_number(
    field: str, show: Callable[[float], str]
) -> Callable[[Sequence[RunSummary]], int]:
    """Width of the largest value of ``field`` (None counts as 0), shown: numbers never get
    shorter as they grow. (``attrgetter`` and ``filter`` walk 100,000 runs in C.)"""
    value = attrgetter(field)

    def width(runs: Sequence[RunSummary]) -> int:
        return len(show(max(filter(None, map(value, runs)), default=0)))

    return width


def _widest_spec(runs: Sequence[RunSummary]) -> int:
    """The widest spec name (capped), measured once per distinct name."""
    names = set(map(attrgetter("spec_name"), runs))
    return min(SPEC_WIDTH_CAP, max(map(cell_len, names), default=0))


SPEC_WIDTH_CAP = 32
"""A longer spec name is cut with an ellipsis; the status line shows the run's spec path."""
_STATE_WIDTH = len("GENERATING ↻")
RESUMABLE_MARK = " ↻"

RUN_COLUMNS: tuple[Column, ...] = (
    Column("started", "When", lambda run: local_time(run.started), lambda _runs: 16),
    Column(
        "spec",
        "Spec",
        lambda run: run.spec_name or "–",
        _widest_spec,
    ),
    Column("state", "State", state_label, lambda _runs: _STATE_WIDTH),
    Column(
        "attempts",
        "Attempts",
        lambda run: str(run.attempts),
        _widest_number("attempts", lambda n: str(int(n))),
        right=True,
    ),
    Column(
        "duration",
        "Duration",
        lambda run: format_duration(run.duration_s),
        _widest_number("duration_s", format_duration),
        right=True,
    ),
    Column(
        "tokens",
        "Tokens",
        lambda run: f"{run.tokens:,}",
        _widest_number("tokens", lambda n: f"{int(n):,}"),
        right=True,
    ),
    Column(
        "cost",
        "Cost",
        lambda run: f"${run.cost_usd:.4f}",
        _widest_number("cost_usd", lambda n: f"${n:.4f}"),
        right=True,
    ),
    Column(
        "stop_reason",
        "Stop reason",
        lambda run: run.damaged or run.stop_reason or "–",
        lambda _runs: 0,  # at least its heading; it grows to fill the view as it is drawn
    ),
)
"""The runs list's columns, in order; keys ``1``..``8`` sort by them. The last one takes
whatever width is left."""


def one_line(text: str) -> str:
    """``text`` on one line: control characters spelt out, a line break or tab a space."""
    return escape_controls(text, newlines=True).replace("\n", " ").replace("\t", " ")


def cell_texts(run: RunSummary) -> list[str]:
    """The plain text of each column for ``run`` (uncut; the state shows ``↻`` if resumable).

    Control characters are spelt out (``\\x1b``), as ``orch-tui history`` prints them: they
    would drive the terminal. A line break or tab (a multi-line stop reason) reads as a space.
    """
    texts = [one_line(column.text(run)) for column in RUN_COLUMNS]
    if run.resumable:
        texts[2] += RESUMABLE_MARK
    return texts


def fit(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded or cut (with ``…``) to exactly ``width`` cells."""
    size = cell_len(text)
    if size > width:
        return set_cell_size(text, width - 1) + "…" if width > 0 else ""
    return " " * (width - size) + text if right else text + " " * (width - size)
