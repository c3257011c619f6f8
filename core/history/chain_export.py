"""``orch-tui history --export RUN_ID --chain``: a run and the runs it changed, as one report.

A change run (DESIGN section 16) is one step of a project's history; its chain is every
run before it, each found by the ``follows`` of the one after. The report opens with the
chain as a table (state, attempts, cost, and the total), then each run's own export,
oldest first, so each change run's spec edit reads in the order it was made.
"""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.history.chain import earlier_runs
from orch_tui.core.history.detail import HistoryError, load_run
from orch_tui.core.history.export import export_markdown
from orch_tui.core.history.scan import RunSummary
from orch_tui.core.util.markdown_text import code_span
from orch_tui.core.util.terminal_text import escape_controls


def export_chain_markdown(logs: Path, run_id: str) -> str:
    """``run_id``'s chain as Markdown; HistoryError when there is no such run."""
    last = load_run(logs, run_id).summary
    runs: list[tuple[str, RunSummary | None]] = []
    for earlier in earlier_runs(logs, last.run_id):
        try:
            runs.append((earlier, load_run(logs, earlier).summary))
        except HistoryError:
            runs.append((earlier, None))  # its logs were deleted: named, not exported
    runs.append((last.run_id, last))
    lines = [
        f"# Chain of run {last.run_id}",
        "",
        f"{len(runs)} runs: the first built the project, each one after it changed it as "
        "the spec's edit asked. Their reports follow, oldest first.",
        "",
        "| | run | final state | attempts | cost |",
        "|---|---|---|---|---|",
    ]
    for number, (name, summary) in enumerate(runs, start=1):
        run = code_span(name, in_table=True)
        if summary is None:
            lines.append(f"| {number} | {run} | its log is gone | – | – |")
        else:
            lines.append(
                f"| {number} | {run} | {summary.state} | {summary.attempts} "
                f"| ${summary.cost_usd:.4f} |"
            )
    found = [summary for _name, summary in runs if summary is not None]
    lines += [
        f"| | total | | {sum(s.attempts for s in found)} | ${sum(s.cost_usd for s in found):.4f} |",
        "",
    ]
    reports = [export_markdown(logs, summary.run_id) for summary in found]
    return escape_controls("\n".join(lines), newlines=True) + "\n" + "\n".join(reports)
