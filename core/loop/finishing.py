"""How a run stops: a terminal state with its reason, a question for a person, the last event.

A failed plan-mode run marks its task failed and names it in the stop reason. Stopping to
ask (NEEDS_HELP) writes the question to ``state.json`` and the attempt's log first, so a
resumed or continued run knows what was asked.
"""

from __future__ import annotations

from datetime import UTC, datetime

from orch_tui.core.domain.asking import QUESTION, Question
from orch_tui.core.domain.events import QuestionAsked, RunFinished
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop.exit_codes import EXIT_NEEDS_HELP
from orch_tui.core.loop.prompts import changed_files
from orch_tui.core.loop.run import Run
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.util.wording import planning_cost, plural


def finish(run: Run, final: RunState, exit_code: int, reason: str) -> None:
    """Move to the terminal state ``final`` with ``reason`` and ``exit_code`` recorded."""
    if final is RunState.FAILED and run.state.plan is not None:
        run.planner.mark(TaskStatus.FAILED)
        reason = run.planner.reason(reason)
    run.state.stop_reason = reason
    run.state.exit_code = exit_code
    run.transition(final)


def ask(run: Run, question: Question) -> None:
    """Stop at NEEDS_HELP with ``question`` in state.json and the attempt's log."""
    attempt = run.state.attempt
    run.log.write_json(attempt, QUESTION, question.to_json())
    run.state.question = question
    run.emit(
        QuestionAsked(
            attempt=attempt,
            question=question.text,
            options=list(question.options),
            recommendation=question.recommendation,
            source=question.source,
        )
    )
    finish(run, RunState.NEEDS_HELP, EXIT_NEEDS_HELP, f"needs help: {question.text}")


def announce_finish(run: Run) -> None:
    """The run's last event: how it ended, why, and what it cost."""
    run.emit(
        RunFinished(
            state=run.state.state,
            attempt=run.state.attempt,
            stop_reason=run.state.stop_reason,
            retryable=run.state.retryable,
            exit_code=int(run.state.exit_code or 0),
            tokens=run.state.usage.total,
            cost_usd=round(run.state.cost_usd, 6),
            evidence=run.verdict.to_json() if run.verdict is not None else None,
            summary=run_summary(run),
        )
    )


def run_summary(run: Run) -> str:
    """``3 files changed · tests: 5 passed · 2 attempts · $0.0123 · 1m 04s``: the run's end
    (plan mode: ``2 attempts · planning 3,940 tokens, $0.0108 · ...``)."""
    state = run.state
    files = changed_files(run.log, state.attempt)
    tests = state.last_test.summary if state.last_test else "not run"
    if state.final_checks:
        tests += f" (final: {state.final_checks.summary})"
    from orch_tui.core.runlog.active_time import active_seconds  # a run's end: not its start
    from orch_tui.core.runlog.reader import read_events

    events = read_events(run.log.dir / runlog.EVENTS).events
    elapsed = active_seconds(events, until=datetime.now(UTC)) or 0.0  # restores left out
    plan = state.plan
    planning = (
        f" · planning {planning_cost(plan.planning_tokens, plan.planning_cost_usd)}"
        if plan is not None and plan.planning_tokens
        else ""
    )
    return (
        f"{plural(len(files), 'file')} changed · tests: {tests} · "
        f"{plural(state.attempts_made, 'attempt')}{planning} · ${state.cost_usd:.4f} · "
        f"{duration(elapsed)}"
    )


def duration(seconds: float) -> str:
    """``12s``, ``1m 04s``, ``2h 05m``."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"
