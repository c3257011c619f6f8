"""``orch-tui batch`` in process: a write failing inside an engine ends in a sentence, not a
traceback, with ``batch.json`` and the report kept."""

from __future__ import annotations

import errno
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from orch_tui.tui.cli import batch_command
from orch_tui.tui.cli.batch_command import run_batch_command
from tests.support.inbox_support import make_batch_project


def test_an_engine_out_of_space_is_a_message_and_the_record_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_batch_project(tmp_path / "project")
    monkeypatch.chdir(root)
    archive = root / "batches" / "b" / "one" / "logs.tar"

    def engine(*args: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(archive))

    monkeypatch.setattr(batch_command, "run_local", engine)

    term = signal.getsignal(signal.SIGTERM)
    code = run_batch_command(["specs", "--batch", "b", "--provider", "scripted"])

    err = capsys.readouterr().err
    assert code == 1 and signal.getsignal(signal.SIGTERM) == term  # its handlers undone
    assert f"the batch folder {root / 'batches' / 'b'} is out of space ({archive}: " in err
    record = json.loads((root / "batches" / "b" / "batch.json").read_text())
    assert [run["status"] for run in record["runs"]] == ["pending", "pending"]
    assert (
        json.loads((root / "batches" / "b" / "report.json").read_text())["runs"] == (record["runs"])
    )


def test_json_keeps_standard_output_for_its_lines_and_sends_a_library_print_to_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_batch_project(tmp_path / "project")
    monkeypatch.chdir(root)

    def engine(driver: Any, jobs: int, on_event: Any, cancel: Any) -> None:
        print("(raylet) A worker died or was killed")  # what Ray prints to sys.stdout
        on_event("one", {"event": "run_started"})
        while (task := driver.next_task()) is not None:
            driver.finish(task, 130)

    monkeypatch.setattr(batch_command, "run_local", engine)

    run_batch_command(["specs", "--batch", "b", "--provider", "scripted", "--json"])

    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]  # every line is JSON
    assert {"run": "one", "event": "run_started"} in lines
    assert "(raylet) A worker died" in err
