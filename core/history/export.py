"""``orch-tui history --export``: one run as a Markdown report (a change run's with the
spec's edit it was started for)."""

from __future__ import annotations

import re
from pathlib import Path

from orch_tui.core.domain.describe import hunk_decisions
from orch_tui.core.history.chain import Chain
from orch_tui.core.history.detail import AttemptDetail, RunDetail, load_run, planning_attempt
from orch_tui.core.history.grid import ABSENT, FAILED, PASSED, SKIPPED, TestGrid, test_grid
from orch_tui.core.history.plan_history import plan_section
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.util.markdown_text import code_span, inline_text
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import planning_cost

_MARKS = {PASSED: "✓", FAILED: "✗", SKIPPED: "s", ABSENT: "·"}


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def _fence(text: str, info: str = "") -> list[str]:
    """A code fence longer than any run of backticks inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [f"{ticks}{info}", text.rstrip("\n"), ticks]


def _decision_lines(attempt: AttemptDetail) -> list[str]:
    decisions, proposal = attempt.decisions, attempt.proposal
    if decisions is None or proposal is None:
        return ["- no decisions recorded"]
    accepted, rejected, undecided = decisions.counts(proposal)
    lines = [f"- {hunk_decisions(accepted, rejected, undecided)}"]
    if decisions.edits:
        lines.append(f"- edited by hand: {', '.join(map(code_span, sorted(decisions.edits)))}")
    if decisions.reject_reason:
        lines.append(f"- proposal rejected: {inline_text(decisions.reject_reason)}")
    return lines


def _attempt_section(attempt: AttemptDetail) -> list[str]:
    task = f" (task {attempt.task})" if attempt.task else ""
    out = [f"## Attempt {attempt.number}{task}: {attempt.outcome}", ""]
    if attempt.summary:
        out += [inline_text(attempt.summary), ""]
    out += [
        f"- tokens: {attempt.tokens:,} · cost: ${attempt.cost_usd:.4f} · model turns: "
        f"{attempt.turns} · duration: {format_duration(attempt.duration_s)}",
    ]
    out += [f"- problem: {inline_text(problem)}" for problem in attempt.problems]
    out += [f"- {inline_text(note)}" for note in attempt.notes]
    if attempt.evidence:
        out.append(f"- {inline_text(attempt.evidence)}")
    if attempt.proposal is not None:
        out += ["", "### Proposal", "", "| file | change | + | - |", "|---|---|---|---|"]
        out += [
            f"| {code_span(c.path, in_table=True)} | {c.kind.value} | {c.added} | {c.removed} |"
            for c in attempt.proposal.changes
        ] or ["| (no change) | | | |"]
        out += ["", "### Decisions", "", *_decision_lines(attempt)]
    if attempt.patch_counts:
        landed = ", ".join(
            f"{code_span(path)} +{added} -{removed}"
            for path, (added, removed) in sorted(attempt.patch_counts.items())
        )
        out.append(f"- landed: {landed}")
    if attempt.report is not None:
        out += ["", "### Tests", "", f"{attempt.report.summary()}"]
        for failing in attempt.report.failing:
            out.append(f"- ✗ {code_span(failing)}")
    if attempt.model_text:
        out += ["", "### Model's text", "", *_fence(attempt.model_text, "text")]
    return out + [""]


def _grid_section(grid: TestGrid) -> list[str]:
    if not grid.tests:
        return []
    header = "| test | " + " | ".join(str(n) for n in grid.attempts) + " |"
    rule = "|---|" + "---|" * len(grid.attempts)
    rows = [
        f"| {code_span(test, in_table=True)} | "
        + " | ".join(_MARKS.get(c, c) for c in cells)
        + " |"
        for test, cells in zip(grid.tests, grid.cells, strict=True)
    ]
    return ["## Tests across attempts", "", header, rule, *rows, ""]


def _chain_rows(chain: Chain) -> list[str]:
    """The run it follows and the runs that follow it (change runs), when there are any."""
    rows = [f"| follows | {code_span(chain.follows, in_table=True)} |"] if chain.follows else []
    if chain.followed_by:
        runs = ", ".join(code_span(run, in_table=True) for run in chain.followed_by)
        rows.append(f"| followed by | {runs} |")
    return rows


def _spec_edit_section(logs: Path, run_id: str) -> list[str]:
    """A change run's spec edit (``spec.diff``): what the run was asked to change."""
    try:
        diff = (logs / run_id / runlog.SPEC_DIFF).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return ["## Spec edit", "", *_fence(diff, "diff"), ""]


def _planning_row(detail: RunDetail) -> list[str]:
    planning = planning_attempt(detail)
    if planning is None:
        return []
    return [f"| planning | {planning_cost(planning.tokens, planning.cost_usd)} |"]


def export_markdown(logs: Path, run_id: str) -> str:
    """One run as a Markdown report: summary, attempts, decisions, test results and cost.

    Every line is passed through :func:`escape_controls` at the end, so no escape sequence,
    bidi control or invisible character from the model, its tests or the log reaches the
    report raw, whichever field carried it (the model's text in its fence included)."""
    detail = load_run(logs, run_id)
    run = detail.summary
    lines = [
        f"# Run {run.run_id}",
        "",
        "| | |",
        "|---|---|",
        f"| spec | {code_span(run.spec_path, in_table=True)} |",
        f"| started | {run.started or '–'} |",
        f"| model | {inline_text(detail.meta.get('model', '–'))} "
        f"({inline_text(detail.meta.get('provider', '–'))}) |",
        f"| final state | {run.state} |",
        f"| attempts | {run.attempts} |",
        *_planning_row(detail),
        f"| duration | {format_duration(run.duration_s)} |",
        f"| tokens | {run.tokens:,} |",
        f"| cost | ${run.cost_usd:.4f} |",
        f"| stop reason | {inline_text(run.stop_reason or '–')} |",
        *_chain_rows(detail.chain),
        "",
    ]
    if detail.problems:
        lines += [
            "**Damaged:**",
            "",
            *(f"- {inline_text(problem)}" for problem in detail.problems),
            "",
        ]
    lines += _spec_edit_section(logs, run.run_id)
    if detail.tasks is not None:
        lines += plan_section(detail.tasks)
    lines += _grid_section(test_grid(detail))
    for attempt in detail.attempts:
        lines += _attempt_section(attempt)
    return escape_controls("\n".join(lines).rstrip("\n"), newlines=True) + "\n"
