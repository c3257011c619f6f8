"""The check after the recorded list, beyond FULL_CHECK_UP_TO runs: it looks only at the runs
a writer opened since, the unfinished ones and folders added or removed."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from bench.synthetic_runs import write_synthetic_runs
from orch_tui.core.domain.events import Notice
from orch_tui.core.history import index as history_index
from orch_tui.core.history.index import RunIndex, build_index, recorded_then_checked
from orch_tui.core.history.logs_stamp import STAMP_NAME, unchanged_since_stamp
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog import opened_runs
from orch_tui.core.runlog.opened_runs import (
    OPENED_RUNS,
    Position,
    note_opened,
    opened_position,
    opened_since,
    trim_opened,
)
from orch_tui.core.runlog.writer import RunLog


@pytest.fixture
def many(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str], list[str]]:
    """Twelve runs with an index, counted as "many"; and a log of the folders looked at."""
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 12)
    build_index(logs)
    monkeypatch.setattr(history_index, "FULL_CHECK_UP_TO", 5)
    looked: list[str] = []
    real = history_index._signature

    def counted(folder: str) -> str | None:
        looked.append(Path(folder).name)
        return real(folder)

    monkeypatch.setattr(history_index, "_signature", counted)
    return logs, ids, looked


def _unfinished(logs: Path) -> set[str]:
    return {run.run_id for run in build_index(logs).runs if not run.finished}


def test_the_check_of_many_runs_reads_only_the_unfinished_ones(
    many: tuple[Path, list[str], list[str]],
) -> None:
    logs, ids, looked = many
    unfinished = _unfinished(logs)
    looked.clear()
    _recorded, checked = recorded_then_checked(logs)
    assert checked.checked and not checked.changed and len(checked.runs) == 12
    assert set(looked) == unfinished and len(unfinished) < 12


def reopened_and_edited_is_read_again(logs: Path, run_id: str, looked: list[str]) -> RunIndex:
    """A writer reopens the finished run ``run_id`` and its log is then edited by hand: the
    next launch looks at it again and shows the edit. Returns that launch's checked index."""
    RunLog(logs, run_id)(Notice(message="looked at again"))
    events = logs / run_id / runlog.EVENTS
    events.write_text(events.read_text().replace('"stop_reason": "', '"stop_reason": "again: '))
    looked.clear()
    _recorded, checked = recorded_then_checked(logs)
    assert run_id in looked
    reason = {run.run_id: run.stop_reason for run in checked.runs}[run_id]
    assert reason is not None and reason.startswith("again: ")
    return checked


def test_a_run_a_writer_opened_since_is_read_again(
    many: tuple[Path, list[str], list[str]],
) -> None:
    logs, ids, looked = many
    finished = next(run for run in build_index(logs).runs if run.finished).run_id
    checked = reopened_and_edited_is_read_again(logs, finished, looked).runs
    looked.clear()
    _recorded, again = recorded_then_checked(logs)  # the index now holds it: not named since
    assert not again.changed and again.runs == checked and finished not in looked


def test_folders_added_or_removed_show_and_a_finished_run_edited_by_hand_waits(
    many: tuple[Path, list[str], list[str]],
) -> None:
    logs, ids, looked = many
    runs = {run.run_id: run for run in build_index(logs).runs}
    finished = [run_id for run_id, run in runs.items() if run.finished]
    shutil.copytree(logs / finished[0], logs / "20990101-000000-copy")
    shutil.rmtree(logs / finished[1])
    meta = logs / finished[2] / runlog.RUN_META
    edited = meta.with_suffix(".tmp")
    edited.write_text(json.dumps({**json.loads(meta.read_text()), "spec_path": "by-hand.md"}))
    edited.replace(meta)  # as an editor saves: the folder's mtime changes

    _recorded, checked = recorded_then_checked(logs)

    shown = {run.run_id: run for run in checked.runs}
    assert "20990101-000000-copy" in shown and finished[1] not in shown
    assert shown[finished[2]].spec_path == runs[finished[2]].spec_path  # trusted as recorded
    assert {run.run_id: run.spec_path for run in build_index(logs).runs}[
        finished[2]
    ] == "by-hand.md"


def test_the_opened_runs_file_is_read_from_where_the_index_stopped(tmp_path: Path) -> None:
    start = opened_position(tmp_path)
    assert opened_since(tmp_path, start) == (set(), start) and start == Position("", 0)
    note_opened(tmp_path, "run-a")
    middle = opened_position(tmp_path)
    note_opened(tmp_path, "run-b")
    note_opened(tmp_path, "run-a")
    end = opened_position(tmp_path)
    assert opened_since(tmp_path, start) == ({"run-a", "run-b"}, end)
    assert opened_since(tmp_path, middle) == ({"run-a", "run-b"}, end)
    assert opened_since(tmp_path, end) == (set(), end)
    (tmp_path / OPENED_RUNS).write_text("")  # replaced: what was named since is unknown
    assert opened_since(tmp_path, middle) is None
    assert opened_since(tmp_path / "missing", middle) is None


def test_trimming_keeps_only_what_the_index_has_not_read_and_marks_the_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opened_runs, "TRIM_OVER", 100)
    for number in range(20):
        note_opened(tmp_path, f"read-{number}")
    read = opened_position(tmp_path)
    note_opened(tmp_path, "after-read")
    trimmed = trim_opened(tmp_path, read)
    text = (tmp_path / OPENED_RUNS).read_text()
    assert text == f"#{trimmed.mark}\nafter-read\n" and trimmed.offset == len(f"#{trimmed.mark}\n")
    assert opened_since(tmp_path, trimmed) == ({"after-read"}, opened_position(tmp_path))
    assert opened_since(tmp_path, read) is None  # an index that read the old file
    assert trim_opened(tmp_path, trimmed) == trimmed  # small now: left as it is


def test_a_writer_that_wrote_to_the_file_a_trim_replaced_writes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note_opened(tmp_path, "before")
    real_write = os.write

    def trimmed_meanwhile(fd: int, data: bytes) -> int:
        written = real_write(fd, data)
        if data == b"late\n" and "#" not in (tmp_path / OPENED_RUNS).read_text():
            (tmp_path / "new").write_text("#mark\n")
            os.replace(tmp_path / "new", tmp_path / OPENED_RUNS)  # after the trim read it
        return written

    monkeypatch.setattr(os, "write", trimmed_meanwhile)
    note_opened(tmp_path, "late")
    assert (tmp_path / OPENED_RUNS).read_text() == "#mark\nlate\n"


def test_rewriting_the_index_trims_the_file_and_a_writer_reopening_a_run_still_counts(
    many: tuple[Path, list[str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    logs, ids, looked = many
    monkeypatch.setattr(opened_runs, "TRIM_OVER", 200)
    for _round in range(10):
        for run_id in ids:
            note_opened(logs, run_id)  # writers at work: the file grows past the limit
    assert (logs / OPENED_RUNS).stat().st_size > 200
    shutil.copytree(logs / ids[0], logs / "20990101-000000-copy")  # the index is rewritten
    _recorded, checked = recorded_then_checked(logs)
    assert len(checked.runs) == 13
    assert (logs / OPENED_RUNS).read_text().startswith("#")
    assert (logs / OPENED_RUNS).stat().st_size < 200  # trimmed: what the index read is gone
    finished = next(run for run in checked.runs if run.finished).run_id
    reopened_and_edited_is_read_again(logs, finished, looked)


def test_a_file_in_logs_that_is_no_run_changes_nothing_and_a_new_folder_still_shows(
    many: tuple[Path, list[str], list[str]],
) -> None:
    """The check compares logs/'s names with the index's; a name it does not know that is
    not a dot file is looked at as a folder would be: a stray file is no run, a folder is."""
    logs, ids, looked = many
    unfinished = _unfinished(logs)
    (logs / "notes.txt").write_text("not a run")
    looked.clear()
    recorded, checked = recorded_then_checked(logs)
    assert not checked.changed and set(looked) == unfinished  # the record holds
    shutil.copytree(logs / ids[0], logs / "20990101-000000-copy")
    _recorded, checked = recorded_then_checked(logs)
    assert "20990101-000000-copy" in {run.run_id for run in checked.runs}
    assert len(checked.runs) == 13


def _listings(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every listing of logs/ a check makes, logged."""
    listed: list[Path] = []
    for name in ("_listing", "_run_folders"):
        real = getattr(history_index, name)

        def counted(logs: Path, real=real):  # type: ignore[no-untyped-def]
            listed.append(logs)
            return real(logs)

        monkeypatch.setattr(history_index, name, counted)
    return listed


def _stamped_long_ago(logs: Path) -> None:
    """logs/ as if last changed ten seconds ago, and a check that stamps it so."""
    ago = time.time_ns() - 10_000_000_000
    os.utime(logs, ns=(ago, ago))
    recorded_then_checked_all(logs)
    assert unchanged_since_stamp(logs)


def recorded_then_checked_all(logs: Path) -> tuple[RunIndex, RunIndex]:
    recorded, checked = recorded_then_checked(logs)
    assert checked.checked
    return recorded, checked


def test_an_unchanged_logs_folder_is_not_listed_and_a_folder_added_is(
    many: tuple[Path, list[str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    logs, ids, looked = many
    note_opened(logs, ids[0])  # .opened-runs made now: a writer appending later changes no mtime
    recorded_then_checked_all(logs)  # the stamp file made: logs/ changed just now
    _stamped_long_ago(logs)
    listed = _listings(monkeypatch)
    recorded, checked = recorded_then_checked_all(logs)
    assert listed == [] and not checked.changed and len(checked.runs) == 12
    shutil.copytree(logs / ids[0], logs / "20990101-000000-copy")
    _recorded, checked = recorded_then_checked_all(logs)
    assert listed and "20990101-000000-copy" in {run.run_id for run in checked.runs}
    _stamped_long_ago(logs)
    listed.clear()
    finished = next(run for run in checked.runs if run.finished).run_id
    reopened_and_edited_is_read_again(logs, finished, looked)  # what a writer opened still shows


def test_a_folder_added_in_the_stamped_mtimes_tick_still_shows(
    many: tuple[Path, list[str], list[str]],
) -> None:
    """On a file system with coarse timestamps a folder added just after the stamp can leave
    logs/'s mtime as stamped: a stamp read within RACY_NS of its mtime is not trusted."""
    logs, ids, _looked = many
    recorded_then_checked_all(logs)
    recorded_then_checked_all(logs)  # stamped, the stamp file already there
    stamped = logs.stat().st_mtime_ns
    assert (logs / STAMP_NAME).read_text().split()[0] == str(stamped)
    shutil.copytree(logs / ids[0], logs / "20990101-000000-copy")
    os.utime(logs, ns=(stamped, stamped))  # the same tick, as a coarse clock would show it
    _recorded, checked = recorded_then_checked_all(logs)
    assert "20990101-000000-copy" in {run.run_id for run in checked.runs}


@pytest.mark.parametrize("text", ["", "garbage", "1 2 3", "12"])
def test_a_malformed_stamp_lists_the_folders(
    many: tuple[Path, list[str], list[str]], monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    logs, _ids, _looked = many
    recorded_then_checked_all(logs)
    _stamped_long_ago(logs)
    (logs / STAMP_NAME).write_text(text)  # in place: logs/'s mtime as stamped
    listed = _listings(monkeypatch)
    recorded_then_checked_all(logs)
    assert listed


def test_another_index_versions_stamp_is_not_trusted(
    many: tuple[Path, list[str], list[str]],
) -> None:
    """Two builds over one logs/: version 7 stamped logs/ after checking the folders against
    its own index. A run added while only that build was launched is not in this index:
    its stamp must not spare this one the listing."""
    logs, ids, _looked = many
    recorded_then_checked_all(logs)
    shutil.copytree(logs / ids[0], logs / "20990101-000000-copy")  # this build not launched
    ago = time.time_ns() - 10_000_000_000
    os.utime(logs, ns=(ago, ago))
    (logs / ".index-stamp").write_text(f"{ago} {time.time_ns()}\n")  # version 7's, trusted
    os.utime(logs, ns=(ago, ago))
    _recorded, checked = recorded_then_checked_all(logs)
    assert "20990101-000000-copy" in {run.run_id for run in checked.runs}
