"""The final checks (``checks.final``, DESIGN.md section 18): run once the work is done.

They run after every task of a plan is done, or before SUCCESS without a plan, in the same
sandbox as the other checks. A failure sends one more patch round whose prompt quotes it; a
second failure fails the run. Their report is kept as the attempt's ``final-report.json``.
"""

from __future__ import annotations

from orch_tui.core.checks.leftovers import RUNNING_DIR
from orch_tui.core.checks.report import TestReport
from orch_tui.core.domain.events import CheckOutput, FinalChecksFinished, Notice
from orch_tui.core.domain.state import RunState
from orch_tui.core.domain.state_records import LastTest
from orch_tui.core.loop import finishing
from orch_tui.core.loop.exit_codes import EXIT_FAILED
from orch_tui.core.loop.run import Run
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.writer import RunLog

QUOTED_CHARS = 4000
"""Characters of a failed final check's output quoted in the patch prompt (its tail)."""


def final_checks_pass(run: Run, attempt: int) -> bool:
    """Run ``checks.final`` (when set) after ``attempt``; True when the run may succeed.

    On a failure the run moves on by itself: one more patch round, or FAILED after one.
    """
    if not run.config.checks.final:
        return True
    # The checks' machinery loads when they first run, after the first model request.
    from orch_tui.core.checks.trial import run_configured

    report = run_configured(
        run.config,
        run.paths.workspace,
        run.log.attempt_dir(attempt),
        on_output=lambda name, text: run.emit(CheckOutput(attempt=attempt, check=name, text=text)),
        running=run.paths.root / RUNNING_DIR,
        on_notice=lambda message: run.emit(Notice(message=message)),
        final=True,
    )
    run.log.write_json(attempt, runlog.FINAL_REPORT, report.to_json(), run.files)
    failed = [check.name for check in report.checks if not check.passed]
    run.state.final_checks = LastTest(
        passed=report.passed, summary=_summary(report), failing=failed
    )
    run.emit(
        FinalChecksFinished(
            attempt=attempt, passed=report.passed, summary=_summary(report), failed=failed
        )
    )
    if report.passed:
        return True
    if not _had_final_round(run.log, attempt):
        run.transition(RunState.PATCHING, attempt=attempt + 1)
        return False
    finishing.finish(
        run,
        RunState.FAILED,
        EXIT_FAILED,
        f"the final checks failed again after their patch round: {', '.join(failed)}",
    )
    return False


def _summary(report: TestReport) -> str:
    return "; ".join(
        f"{check.name} {'passed' if check.passed else _how_failed(check.exit_code, check.timed_out)}"
        for check in report.checks
    )


def _how_failed(exit_code: int | None, timed_out: bool) -> str:
    if timed_out:
        return "timed out"
    return "did not start" if exit_code is None else f"failed (exit {exit_code})"


def _had_final_round(log: RunLog, attempt: int) -> bool:
    """Whether an earlier attempt's final checks failed already (their one round is spent)."""
    for earlier in range(attempt - 1, -1, -1):
        saved = log.read_json(earlier, runlog.FINAL_REPORT)
        if saved and not TestReport.from_json(saved).passed:
            return True
    return False


def final_note(log: RunLog, attempt: int) -> str:
    """What ``attempt``'s patch prompt adds when the final checks failed after the attempt
    before: each failed command and the tail of its output ("" otherwise)."""
    saved = log.read_json(attempt - 1, runlog.FINAL_REPORT) if attempt > 0 else None
    if not saved:
        return ""
    report = TestReport.from_json(saved)
    if report.passed:
        return ""
    parts = [
        "\n\n## The final checks failed\n\nEvery test passed, but these final checks "
        "(checks.final, run once the work is done) failed. Fix the project so they pass:"
    ]
    for check in report.checks:
        if check.passed:
            continue
        output = check.output[-QUOTED_CHARS:]
        parts.append(
            f"\n### {check.name}: `{' '.join(check.command)}` "
            f"({_how_failed(check.exit_code, check.timed_out)})\n\n```\n{output}\n```"
        )
    return "\n".join(parts)
