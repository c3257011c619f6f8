"""The batch driver: which runs it starts, and a run sent back from the inbox."""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.batch.driver import BatchDriver, BatchOptions
from orch_tui.core.batch.record import BatchRecord, RunRecord, RunStatus
from orch_tui.core.workspace.lock import ProjectLock


def record_of(*runs: RunRecord) -> BatchRecord:
    return BatchRecord("b1", "2026-11-27T00:00:00Z", {}, list(runs))


def test_a_run_reworking_in_the_background_is_not_started_again(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    attempt = ProjectLock(tmp_path / "one")  # the new attempt's run holds its folder
    attempt.acquire()
    try:
        record = record_of(RunRecord("one", "/s/one.md", status=RunStatus.REWORKING))
        driver = BatchDriver(tmp_path, record, BatchOptions())
        assert driver.to_start() == [] and driver.next_task() is None
        assert record.run("one").status is RunStatus.REWORKING
    finally:
        attempt.release()


def test_a_reworking_run_whose_attempt_died_is_resumed(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    record = record_of(RunRecord("one", "/s/one.md", status=RunStatus.REWORKING, exit_code=-9))

    driver = BatchDriver(tmp_path, record, BatchOptions())

    run = record.run("one")
    assert run.status is RunStatus.STOPPED and "signal 9" in run.stop_reason
    task = driver.next_task()
    assert task is not None and task.name == "one"
