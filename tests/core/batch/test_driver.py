"""The batch driver: which runs it starts, a run sent back from the inbox, a full disk."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from orch_tui.core.batch.driver import BatchDriver, BatchOptions
from orch_tui.core.batch.record import BATCH_FILE, BatchRecord, RunRecord, RunStatus
from orch_tui.core.batch.run_one import RUN_LOG
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


def no_space(path: Path, data: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def test_a_full_disk_under_batch_json_starts_no_run_and_keeps_the_last_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = record_of(
        RunRecord("one", "/s/one.md", status=RunStatus.FINISHED, state="SUCCESS"),
        RunRecord("two", "/s/two.md"),
    )
    record.save(tmp_path)
    saved = (tmp_path / BATCH_FILE).read_bytes()
    monkeypatch.setattr("orch_tui.core.batch.record.write_json_atomic", no_space)
    driver = BatchDriver(tmp_path, record, BatchOptions())

    assert driver.next_task() is None
    assert record.run("two").status is RunStatus.PENDING  # not said to run, so not started
    assert (tmp_path / BATCH_FILE).read_bytes() == saved
    assert driver.storage is not None and driver.storage.space
    said = driver.storage.message(tmp_path, 1)
    assert f"the batch folder {tmp_path} is out of space" in said
    assert f"{tmp_path / BATCH_FILE}: No space left on device" in said
    assert "1 finished run(s) are kept" in said and "run the same command" in said


def test_a_run_stopped_by_a_full_disk_stops_the_batch_and_says_why(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    record = record_of(RunRecord("one", "/s/one.md"), RunRecord("two", "/s/two.md"))
    driver = BatchDriver(tmp_path, record, BatchOptions())
    task = driver.next_task()
    assert task is not None and task.name == "one"
    words = "orch-tui: stopped at PROPOSING (attempt 0): /p/state.json: No space left on device."
    (tmp_path / "one" / RUN_LOG).write_text(f"starting\n{words} Free some space\n")

    driver.finish(task, 1)

    one = record.run("one")
    assert one.status is RunStatus.STOPPED
    assert one.stop_reason.startswith("stopped: the batch folder is out of space (one stopped:")
    assert driver.next_task() is None and record.run("two").status is RunStatus.PENDING
    assert driver.storage is not None and "No space left on device" in driver.storage.detail


def test_a_run_that_stopped_says_its_last_words(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    record = record_of(RunRecord("one", "/s/one.md"))
    driver = BatchDriver(tmp_path, record, BatchOptions())
    task = driver.next_task()
    assert task is not None
    (tmp_path / "one" / RUN_LOG).write_text("orch-tui: spec.md: not a spec\n\n")

    driver.finish(task, 1)

    assert record.run("one").stop_reason == (
        "stopped before it finished (exit 1): orch-tui: spec.md: not a spec"
    )
    assert driver.storage is None
