"""``report.md`` and ``report.json``: how each spec of a batch went, and the batch in totals.

Per spec: state, attempts, tests, the verdict's evidence line, tokens, cost, time and the stop
reason. Totals: specs solved after the first attempt and after k attempts, cost per solved
spec, wall time and runs per hour.
``orch-tui batch --compare A B`` puts two batches' reports side by side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orch_tui.core.batch.record import BatchRecord, RunRecord
from orch_tui.core.util.atomic import write_json_atomic, write_text_atomic
from orch_tui.core.util.markdown_text import inline_text
from orch_tui.core.util.terminal_text import escape_controls

REPORT_JSON = "report.json"
REPORT_MD = "report.md"
COLUMNS = (
    "spec",
    "state",
    "attempts",
    "tests",
    "evidence",
    "tokens",
    "cost",
    "time",
    "stop reason",
)


def _text(value: str) -> str:
    """Text a model, a test or a file name chose, safe in a Markdown table and on a terminal."""
    return inline_text(escape_controls(value))


def totals(record: BatchRecord) -> dict[str, Any]:
    """The batch in numbers (every figure is derived from the runs' records)."""
    runs = record.runs
    solved = [r for r in runs if r.state == "SUCCESS"]
    most = max((r.attempts for r in runs), default=0)
    hours = record.wall_s / 3600
    return {
        "specs": len(runs),
        "solved": len(solved),
        "solved_after": {k: sum(1 for r in solved if r.attempts <= k) for k in range(1, most + 1)},
        "cost_usd": round(record.spent_usd, 6),
        "cost_per_solved_usd": round(record.spent_usd / len(solved), 6) if solved else None,
        "tokens": sum(r.tokens for r in runs),
        "wall_s": round(record.wall_s, 3),
        "runs_per_hour": round(sum(1 for r in runs if r.state) / hours, 2) if hours else None,
    }


def write_reports(folder: Path, record: BatchRecord) -> None:
    write_json_atomic(
        folder / REPORT_JSON,
        {
            "batch_id": record.batch_id,
            "runs": [r.to_json() for r in record.runs],
            "totals": totals(record),
        },
    )
    write_text_atomic(folder / REPORT_MD, report_markdown(record))


def _cells(run: RunRecord) -> list[str]:
    return [
        _text(run.name),
        run.state or str(run.status),
        str(run.attempts),
        _text(run.tests) or "-",
        _text(run.evidence) or "-",
        f"{run.tokens:,}",
        f"${run.cost_usd:.4f}",
        f"{run.elapsed_s:.1f}s",
        _text(run.stop_reason) or "-",
    ]


def _table(header: tuple[str, ...] | list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def report_markdown(record: BatchRecord) -> str:
    sums = totals(record)
    solved_after = ", ".join(f"{n} after {k}" for k, n in sums["solved_after"].items()) or "none"
    per_solved = sums["cost_per_solved_usd"]
    lines = [
        f"# Batch {record.batch_id}",
        "",
        *_table(COLUMNS, [_cells(r) for r in record.runs]),
        "",
        f"- solved: {sums['solved']} of {sums['specs']} ({solved_after})",
        f"- cost: ${sums['cost_usd']:.4f}"
        + (f", ${per_solved:.4f} per solved spec" if per_solved is not None else ""),
        f"- tokens: {sums['tokens']:,}",
        f"- wall time: {sums['wall_s']:.1f}s"
        + (f", {sums['runs_per_hour']} runs per hour" if sums["runs_per_hour"] else ""),
    ]
    return "\n".join(lines) + "\n"


def compare_markdown(a: BatchRecord, b: BatchRecord) -> str:
    """Two batches side by side, per spec and in totals."""
    names = [r.name for r in a.runs] + [
        r.name for r in b.runs if r.name not in {x.name for x in a.runs}
    ]
    by_a = {r.name: r for r in a.runs}
    by_b = {r.name: r for r in b.runs}

    def side(run: RunRecord | None) -> list[str]:
        if run is None:
            return ["-", "-", "-"]
        return [run.state or str(run.status), str(run.attempts), f"${run.cost_usd:.4f}"]

    header = [
        "spec",
        f"{a.batch_id} state",
        "attempts",
        "cost",
        f"{b.batch_id} state",
        "attempts",
        "cost",
    ]
    rows = [[_text(n), *side(by_a.get(n)), *side(by_b.get(n))] for n in names]
    ta, tb = totals(a), totals(b)
    total_rows = [
        [key, str(ta[key]), str(tb[key])]
        for key in (
            "solved",
            "cost_usd",
            "cost_per_solved_usd",
            "tokens",
            "wall_s",
            "runs_per_hour",
        )
    ]
    return (
        "\n".join(
            [
                f"# {a.batch_id} vs {b.batch_id}",
                "",
                *_table(header, rows),
                "",
                *_table(["total", a.batch_id, b.batch_id], total_rows),
            ]
        )
        + "\n"
    )
