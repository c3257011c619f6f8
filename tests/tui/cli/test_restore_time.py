"""Restore time is not run time: the summary line and history leave out a restore and the
idle days around it (issue 25, item 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.domain.state import RunState, State, StateStore
from orch_tui.tui.cli.commands import main
from tests.support.tui_support import make_tui_project

RUN_ID = "20260301-100000-abcd"


def test_the_summary_and_history_count_only_the_time_at_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_tui_project(tmp_path / "project")
    monkeypatch.chdir(project.root)
    StateStore(project.paths.state).save(
        State(
            run_id=RUN_ID, spec_path="spec.md", spec_hash=project.spec().digest, max_retries=3,
            state=RunState.SUCCESS, exit_code=0, stop_reason="all checks pass",
            created_at="2026-03-01T10:00:00Z",
        )
    )  # fmt: skip
    start = {"event": "run_started", "run_id": RUN_ID, "spec_path": "spec.md", "state": "INIT"}
    events = [
        {**start, "at": "2026-03-01T10:00:00Z"},
        {"event": "state", "at": "2026-03-01T10:00:10Z", "state": "GENERATING", "attempt": 0},
        {"event": "run_finished", "at": "2026-03-01T10:00:40Z", "state": "SUCCESS"},
        {"event": "restored", "at": "2026-03-03T10:00:00Z", "message": "restored attempt 0",
         "to_attempt": 0, "undone": [1], "files": ["calc.py"]},
    ]  # fmt: skip
    log = project.root / "logs" / RUN_ID
    log.mkdir(parents=True)
    (log / "events.jsonl").write_text("".join(json.dumps(event) + "\n" for event in events))

    assert main(["spec.md", "--auto", "--script", str(project.script)]) == 0
    summary = [line for line in capsys.readouterr().out.splitlines() if "summary:" in line]
    assert summary and summary[0].endswith(" · 40s"), summary  # not the days since it began

    assert main(["history"]) == 0
    (header, row) = capsys.readouterr().out.splitlines()
    assert dict(zip(header.split("\t"), row.split("\t"), strict=True))["Duration"] == "40s"
