"""The evidence part of the checks step (DESIGN section 15), kept beside it.

After an attempt's checks, :func:`record_evidence` writes the attempt's ``coverage.json`` and
``evidence.json`` and emits :class:`~orch_tui.core.domain.evidence.EvidenceFound`. When the
checks passed, :func:`rewritten_refusal` asks the reviewer to accept tests that were rewritten
to pass: a person must say yes (the TUI's modal); ``--auto`` never does, and the run stops.
At SUCCESS :func:`run_verdict` sums the run up for its last line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orch_tui.core.checks.attempt_evidence import gather
from orch_tui.core.checks.change_evidence import added_tests
from orch_tui.core.checks.coverage_map import (
    CoverageMap,
    CoverageUnavailable,
    coverage_record,
    uncovered_lines,
)
from orch_tui.core.checks.leftovers import RUNNING_DIR
from orch_tui.core.checks.report import TestReport
from orch_tui.core.domain.evidence import EvidenceFound, Verdict
from orch_tui.core.domain.proposal import FileChange, Proposal
from orch_tui.core.domain.state_records import WorkspaceRecord
from orch_tui.core.loop.run import Run
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.workspace.run_workspace import original_text


def attempt_changes(run: Run, attempt: int, applied: dict[str, str | None]) -> list[FileChange]:
    """The applied files of ``attempt``, from their text before the attempt (its proposal's)."""
    saved = run.log.read_json(attempt, runlog.PROPOSAL)
    olds = {c.path: c.old_text for c in Proposal.from_json(saved).changes} if saved else {}
    changes = []
    for path, new in sorted(applied.items()):
        old = olds.get(path)
        if old != new:
            changes.append(FileChange(path, old, new))
    return changes


def record_evidence(
    run: Run,
    attempt: int,
    applied: dict[str, str | None],
    report: TestReport,
    coverage: CoverageMap | CoverageUnavailable,
) -> EvidenceFound:
    """Write the attempt's coverage and evidence to its log folder and announce them.

    Both are in place at once and made durable with the next state (``run.files``), as the
    report is: that state is the first to point past them, and resuming TESTING before it
    runs the checks again and rewrites them (four fewer fsync waits an attempt).
    """
    run.log.write_json(attempt, runlog.COVERAGE, coverage_record(coverage), run.files)
    tests = report.checks[0].tests if report.checks else []
    evidence = gather(
        run.config,
        run.paths.workspace,
        attempt,
        attempt_changes(run, attempt, applied),
        tests,
        coverage,
        running=run.paths.root / RUNNING_DIR,
    )
    run.log.write_json(attempt, runlog.EVIDENCE, evidence.record(), run.files)
    run.emit(evidence)
    return evidence


def rewritten_refusal(run: Run, evidence: EvidenceFound) -> str | None:
    """Why the run may not succeed with tests rewritten to pass; None when there are none or
    the person accepted them."""
    if not evidence.rewritten:
        return None
    names = sorted(evidence.rewritten)
    accept = getattr(run.reviewer, "accept_rewritten", None)
    if accept is not None and accept(names):
        return None
    listed = ", ".join(f"{t} (its old form {evidence.rewritten[t]})" for t in names)
    who = (
        "--auto never accepts a pass bought by rewriting the tests"
        if not getattr(run.reviewer, "holds_locked_tests", True)
        else "the person did not accept them"
    )
    return f"tests rewritten to pass: {listed}; {who}"


def run_changes(run: Run) -> list[FileChange]:
    """Every file the run's attempts applied, from its text before the run to its text now."""
    record = run.state.workspace or WorkspaceRecord(path=str(run.paths.workspace))
    touched: set[str] = set()
    for attempt in range(run.state.attempt + 1):
        touched.update((run.log.read_json(attempt, runlog.APPLIED) or {}).get("files") or {})
    changes = []
    for path in sorted(touched):
        before = original_text(record, run.log.dir, path)
        now = Path(record.path) / path
        after = now.read_text(encoding="utf-8", errors="replace") if now.is_file() else None
        if before != after:
            changes.append(FileChange(path, before, after))
    return changes


def run_verdict(
    run: Run, report: TestReport, coverage: CoverageMap | CoverageUnavailable
) -> Verdict:
    """The run's evidence at SUCCESS: tests passing now, tests added since the run began, and
    what each attempt's evidence found; changed lines no test runs by the last checks."""
    rewritten: set[str] = set()
    weakened: list[str] = []
    passes_without: set[str] = set()
    for attempt in range(run.state.attempt + 1):
        data: dict[str, Any] = run.log.read_json(attempt, runlog.EVIDENCE) or {}
        rewritten.update(data.get("rewritten") or {})
        weakened += [w for w in data.get("weakened") or [] if w not in weakened]
        passes_without.update(data.get("passes_without") or [])
    changes = run_changes(run)
    added = added_tests(changes)
    counted = None
    if isinstance(coverage, CoverageMap):
        counted = uncovered_lines(coverage, Proposal(run.state.attempt, tuple(changes)))
    return Verdict(
        tests_passed=report.counts.get("passed", 0),
        added=len(added),
        rewritten=tuple(sorted(rewritten)),
        weakened=tuple(weakened),
        passes_without=tuple(sorted(passes_without & set(added))),
        uncovered_lines=counted.uncovered if counted else None,
        changed_lines=counted.executable if counted else None,
        coverage_unavailable=coverage.reason if isinstance(coverage, CoverageUnavailable) else None,
    )
