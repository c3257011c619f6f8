"""A finished run's verdict line, read back from its events for the batch report."""

from __future__ import annotations

import json
from pathlib import Path

from orch_tui.core.domain.events import Event, Notice, RunFinished
from orch_tui.core.domain.state import RunState
from orch_tui.core.runlog import layout
from orch_tui.core.runlog.verdict import verdict_line

LINE = "3 tests pass (1 added, 0 rewritten, 0 weakened); 0 of 4 changed lines run by no test"


def finished(state: RunState, evidence: dict[str, object] | None) -> RunFinished:
    return RunFinished(
        state=state,
        attempt=1,
        stop_reason=None,
        retryable=False,
        exit_code=0 if state is RunState.SUCCESS else 1,
        tokens=10,
        cost_usd=0.01,
        evidence=evidence,
    )


def log_with(folder: Path, *events: Event) -> Path:
    folder.mkdir(parents=True)
    lines = "".join(json.dumps(event.to_json()) + "\n" for event in events)
    (folder / layout.EVENTS).write_text(lines)
    return folder


def test_the_last_success_gives_its_evidence_summary(tmp_path: Path) -> None:
    log = log_with(
        tmp_path / "run",
        finished(RunState.FAILED, None),  # an earlier stop of the same run
        Notice(message="reopened"),
        finished(RunState.SUCCESS, {"summary": LINE, "added": 1}),
    )
    assert verdict_line(log) == LINE


def test_no_line_for_a_failed_run_a_missing_log_or_an_older_log(tmp_path: Path) -> None:
    assert verdict_line(log_with(tmp_path / "failed", finished(RunState.FAILED, None))) == ""
    assert verdict_line(tmp_path / "missing") == ""
    older = log_with(tmp_path / "older", finished(RunState.SUCCESS, None))
    assert verdict_line(older) == ""
