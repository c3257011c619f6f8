"""``orch-tui history --costs``: tokens and dollars per day, per model and per spec across all
runs (``--since DATE``: from that day on).

Read from every run's ``events.jsonl``: ``run_started`` names the model, each ``model_turn``
carries its tokens and the run's cost so far (so a turn's dollars are the step from the
turn before; a resumed run continues its total).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from orch_tui.core.domain.events import ModelTurn, RunStarted
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.reader import read_events
from orch_tui.core.util.records import record


@record
class CostRow:
    day: str
    model: str
    spec: str = ""
    """The spec the run was started from, as ``run_started`` names it."""
    tokens: int = 0
    cost_usd: float = 0.0


def cost_rows(logs: Path, since: str | None = None) -> list[CostRow]:
    """One row per (day, model, spec) with any model turn, oldest day first; ``since``
    (``YYYY-MM-DD``) leaves out the days before it."""
    rows: dict[tuple[str, str, str], CostRow] = {}
    folders = sorted(p for p in logs.iterdir() if p.is_dir()) if logs.is_dir() else []
    for folder in folders:
        model, spec, run_cost = "unknown", "unknown", 0.0
        for event in read_events(folder / runlog.EVENTS).events:
            if isinstance(event, RunStarted):
                model, spec = event.model or model, event.spec_path or spec
            elif isinstance(event, ModelTurn):
                total = event.run_cost_usd
                step = total - run_cost if total >= run_cost else total
                run_cost = total
                day = event.at[:10] or "unknown"
                if since is not None and day < since:
                    continue
                row = rows.setdefault((day, model, spec), CostRow(day, model, spec))
                row.tokens += event.tokens
                row.cost_usd += step
    return [rows[key] for key in sorted(rows)]


def format_costs(rows: list[CostRow]) -> str:
    """The rows per day and model, a total per model, per spec and in all, as aligned tables."""
    if not rows:
        return "no model turns in logs/ yet\n"
    per_day: dict[tuple[str, str], CostRow] = {}
    per_model: dict[str, CostRow] = defaultdict(lambda: CostRow("", ""))
    per_spec: dict[str, CostRow] = defaultdict(lambda: CostRow("", ""))
    for row in rows:
        for total in (
            per_day.setdefault((row.day, row.model), CostRow(row.day, row.model)),
            per_model[row.model],
            per_spec[row.spec],
        ):
            total.tokens += row.tokens
            total.cost_usd += row.cost_usd
    width = max(len("model"), *(len(row.model) for row in rows), *(len(s) for s in per_spec))
    lines = [f"{'day':<10}  {'model':<{width}}  {'tokens':>12}  {'cost':>10}"]
    lines += [
        _line(r.day, r.model, r.tokens, r.cost_usd, width) for _, r in sorted(per_day.items())
    ]
    lines.append("")
    lines += [
        _line("all days", m, r.tokens, r.cost_usd, width) for m, r in sorted(per_model.items())
    ]
    lines.append("")
    lines += [_line("spec", s, r.tokens, r.cost_usd, width) for s, r in sorted(per_spec.items())]
    tokens = sum(row.tokens for row in rows)
    cost = sum(row.cost_usd for row in rows)
    lines.append(_line("total", "", tokens, cost, width))
    return "\n".join(lines) + "\n"


def _line(day: str, model: str, tokens: int, cost: float, width: int) -> str:
    dollars = f"${cost:.4f}"
    return f"{day:<10}  {model:<{width}}  {tokens:>12,}  {dollars:>10}"
