"""A finished batch run's whole change against its start, and the evidence beside it.

The change is every file the run touched, from its text before the run (git: the start commit;
otherwise the originals the run kept, or no file for a run that began in an empty workspace)
to what the run last wrote there, as one proposal the review screen shows hunk by hunk. The
evidence is what the run's checks left: the last test summary, the locked tests the change
touches, the hunks that weaken a test, and coverage when the last attempt measured it.
"""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.checks.coverage_map import CoverageMap, uncovered_lines
from orch_tui.core.domain.proposal import FileChange, Proposal
from orch_tui.core.domain.state import State
from orch_tui.core.domain.state_records import WorkspaceRecord
from orch_tui.core.history.coverage import attempt_coverage
from orch_tui.core.loop.restore import last_written
from orch_tui.core.util.records import record
from orch_tui.core.workspace.run_workspace import original_text
from orch_tui.core.workspace.test_guard import weakening_hunks


@record(frozen=True)
class RunChange:
    """What the inbox shows of one run: its change, and the evidence lines."""

    proposal: Proposal
    start: dict[str, str | None]
    """Each changed file's text before the run (None: it did not exist)."""
    evidence: tuple[str, ...]
    coverage: CoverageMap | None
    """What the last attempt's checks measured: the run's final workspace, the change's new side."""


def run_change(state: State, log_dir: Path) -> RunChange:
    """The run's whole change against its start (files it touched and left as they were drop out)."""
    record = state.workspace or WorkspaceRecord(path=str(log_dir))
    changes, start = [], {}
    for path, text in sorted(last_written(log_dir).items()):
        before = original_text(record, log_dir, path)
        if before == text:
            continue
        start[path] = before
        changes.append(FileChange(path, before, text))
    proposal = Proposal(state.attempt, tuple(changes))
    measured = attempt_coverage(log_dir, state.attempt)
    evidence = [*_evidence(state, record, proposal)]
    if isinstance(measured, CoverageMap):
        evidence.append("coverage: " + uncovered_lines(measured, proposal).describe())
    elif measured is not None:
        evidence.append(measured.describe())
    coverage = measured if isinstance(measured, CoverageMap) else None
    return RunChange(proposal, start, tuple(evidence), coverage)


def _evidence(state: State, record: WorkspaceRecord, proposal: Proposal) -> list[str]:
    lines = []
    if state.last_test is not None:
        mark = "✓" if state.last_test.passed else "✗"
        lines.append(f"tests {mark} {state.last_test.summary or 'no summary'}")
    else:
        lines.append("tests: never ran")
    locked = sorted(set(record.protected_tests or ()) & set(proposal.files))
    if locked:
        lines.append("locked tests changed: " + ", ".join(locked))
    weakened = [c.path for c in proposal.changes if weakening_hunks(c)]
    if weakened:
        lines.append("tests weakened (marked ! in the diff): " + ", ".join(weakened))
    return lines
