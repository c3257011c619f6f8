"""``orch-tui history --costs``: tokens and dollars per day and per model across all runs.

Read from every run's ``events.jsonl``: ``run_started`` names the model, each ``model_turn``
carries its tokens and the run's cost so far (so a turn's dollars are the step from the
turn before; a resumed run continues its total).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from orch_tui.core.domain.events import ModelTurn, RunStarted
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.reader import read_events


@dataclass
class CostRow:
    day: str
    model: str
    tokens: int = 0
    cost_usd: float = 0.0


def cost_rows(logs: Path) -> list[CostRow]:
    """One row per (day, model) with any model turn, oldest day first."""
    rows: dict[tuple[str, str], CostRow] = {}
    folders = sorted(p for p in logs.iterdir() if p.is_dir()) if logs.is_dir() else []
    for folder in folders:
        model, run_cost = "unknown", 0.0
        for event in read_events(folder / runlog.EVENTS).events:
            if isinstance(event, RunStarted):
                model = event.model or model
            elif isinstance(event, ModelTurn):
                day = event.at[:10] or "unknown"
                row = rows.setdefault((day, model), CostRow(day, model))
                row.tokens += event.tokens
                total = event.run_cost_usd
                row.cost_usd += total - run_cost if total >= run_cost else total
                run_cost = total
    return [rows[key] for key in sorted(rows)]


def format_costs(rows: list[CostRow]) -> str:
    """The rows, a total per model and a grand total, as an aligned table."""
    if not rows:
        return "no model turns in logs/ yet\n"
    per_model: dict[str, CostRow] = defaultdict(lambda: CostRow("", ""))
    for row in rows:
        per_model[row.model].tokens += row.tokens
        per_model[row.model].cost_usd += row.cost_usd
    width = max(len("model"), *(len(row.model) for row in rows))
    lines = [f"{'day':<10}  {'model':<{width}}  {'tokens':>12}  {'cost':>10}"]
    lines += [_line(row.day, row.model, row.tokens, row.cost_usd, width) for row in rows]
    lines.append("")
    lines += [
        _line("all days", m, r.tokens, r.cost_usd, width) for m, r in sorted(per_model.items())
    ]
    tokens = sum(row.tokens for row in rows)
    cost = sum(row.cost_usd for row in rows)
    lines.append(_line("total", "", tokens, cost, width))
    return "\n".join(lines) + "\n"


def _line(day: str, model: str, tokens: int, cost: float, width: int) -> str:
    dollars = f"${cost:.4f}"
    return f"{day:<10}  {model:<{width}}  {tokens:>12,}  {dollars:>10}"
