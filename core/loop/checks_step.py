"""The checks step (TESTING): apply the decided change, run the checks, judge the result.

Applying ``applied.json`` is idempotent, so a resumed run re-applies it and runs the checks
again. In git the applied attempt becomes one commit. The test check runs under coverage; the
attempt's evidence (:mod:`.evidence_step`) is recorded after it, and tests rewritten to pass
stop a run whose reviewer does not accept them. Passing checks end the run (or the
task, in plan mode) unless the verifier finds gaps; failing ones are returned as the
:class:`~orch_tui.core.loop.retry.ChecksFailed` they are.
"""

from __future__ import annotations

from orch_tui.core.checks.coverage_map import CoverageMap, CoverageUnavailable
from orch_tui.core.checks.leftovers import RUNNING_DIR
from orch_tui.core.checks.runner import TestReport
from orch_tui.core.checks.trial import run_measured
from orch_tui.core.config.paths import shown_workspace
from orch_tui.core.domain.events import ChangeApplied, CheckOutput, Notice, TestsFinished
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.state import RunState
from orch_tui.core.domain.state_records import LastTest
from orch_tui.core.loop import finishing
from orch_tui.core.loop.evidence_step import record_evidence, rewritten_refusal, run_verdict
from orch_tui.core.loop.exit_codes import EXIT_FAILED, EXIT_SUCCESS
from orch_tui.core.loop.final_checks import final_checks_pass
from orch_tui.core.loop.one_task import finished_alone
from orch_tui.core.loop.retry import ChecksFailed, Failure
from orch_tui.core.loop.run import Run
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.conversation import turns_with_content
from orch_tui.core.util.wording import plural
from orch_tui.core.workspace import run_workspace
from orch_tui.core.workspace.apply import apply_change


def checks_step(run: Run) -> Failure | None:
    """Apply the change and run the checks; the next step, or the failed checks."""
    attempt = run.state.attempt
    decided = _applied_files(run, attempt)
    files = sorted(decided)
    apply_change(run.paths.workspace, decided, commit=run.files)
    _commit_applied(run, attempt, files)
    run.emit(ChangeApplied(attempt=attempt, files=files, workspace=shown_workspace(run.paths)))
    measured = run_measured(
        run.config,
        run.paths.workspace,
        run.log.attempt_dir(attempt),
        on_output=lambda name, text: run.emit(CheckOutput(attempt=attempt, check=name, text=text)),
        running=run.paths.root / RUNNING_DIR,
        on_notice=lambda message: run.emit(Notice(message=message)),
    )
    report = measured.report
    run.log.write_json(attempt, runlog.REPORT, report.to_json(), run.files)
    run.log.write_text(
        attempt, runlog.TEST_OUTPUT, "\n".join(f"$ {c.name}\n{c.output}" for c in report.checks)
    )
    failing = list(report.failing)
    run.state.last_test = LastTest(report.passed, report.summary(), failing)
    run.emit(
        TestsFinished(
            attempt=attempt,
            passed=report.passed,
            summary=report.summary(),
            counts=dict(report.counts),
            failing=failing,
            errors=[f"{c.name}: {c.error}" for c in report.checks if c.error],
        )
    )
    evidence = record_evidence(run, attempt, decided, report, measured.coverage)
    if not report.passed:
        return ChecksFailed(summary=report.summary(), failing=tuple(failing))
    refusal = rewritten_refusal(run, evidence)
    if refusal is not None:
        finishing.finish(run, RunState.FAILED, EXIT_FAILED, refusal)
        return None
    _after_passing(run, attempt, report, measured.coverage)
    return None


def _after_passing(
    run: Run, attempt: int, report: TestReport, coverage: CoverageMap | CoverageUnavailable
) -> None:
    """One more patch round for the verifier's gaps, the next task, or SUCCESS."""
    if run.roles.wants_more(attempt):  # the verifier found gaps
        run.transition(RunState.PATCHING, attempt=attempt + 1)
        return
    alone: str | None = None
    if run.state.plan is not None:
        following = run.planner.task_passed()
        alone = finished_alone(run)
        if following is not None and alone is None:
            run.transition(RunState.GENERATING, attempt=following)
            return
    plan = run.state.plan
    tasks_left = plan is not None and any(t.status is not TaskStatus.DONE for t in plan.tasks)
    if not tasks_left and not final_checks_pass(run, attempt):
        return  # a patch round for the final checks, or FAILED
    run.verdict = run_verdict(run, report, coverage)
    finishing.finish(
        run,
        RunState.SUCCESS,
        EXIT_SUCCESS,
        alone or f"{run.verdict.summary()}, after {plural(run.state.attempts_made, 'attempt')}",
    )
    hint = run_workspace.merge_hint(run.state.workspace)
    if hint:
        run.emit(Notice(message=hint))


def _applied_files(run: Run, attempt: int) -> dict[str, str | None]:
    """The files the attempt's review decided: as this process's review step left them, else
    (a resume at TESTING) from applied.json."""
    fresh, run.fresh_applied = run.fresh_applied, None
    if fresh is not None and fresh[0] == attempt:
        return fresh[1]
    saved = run.log.read_json(attempt, runlog.APPLIED) or {"files": {}}
    files: dict[str, str | None] = saved["files"]
    return files


def _commit_applied(run: Run, attempt: int, files: list[str]) -> None:
    """In git, the applied attempt becomes one commit, recorded in state.json. Outside git the
    conversation (every file the model wrote, in full) is not read for a commit message."""
    if run.state.workspace is None or run.state.workspace.git is None:
        return
    conversation = run.log.read_json(attempt, runlog.CONVERSATION) or {}
    try:
        turns = turns_with_content(conversation)
    except (KeyError, TypeError, ValueError, AttributeError):
        turns = []  # a damaged record: the commit is named by its attempt alone
    summary = run_workspace.summary_line(turns, attempt)
    if run_workspace.commit_applied(run.state.workspace, run.state.run_id, attempt, files, summary):
        run.store.save(run.state)
