"""The index as an SQLite file: spec texts kept once, a file that is damaged, of another
version or not a database made again with nothing lost, and a ``logs/`` that cannot be
written listed all the same, with a note saying why nothing is cached."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bench.synthetic_runs import write_synthetic_runs
from orch_tui.core.history import index_db, index_open
from orch_tui.core.history.index import build_index, list_runs, recorded_then_checked
from orch_tui.core.history.index_db import INDEX_NAME, INDEX_VERSION, OLD_INDEX_NAMES
from orch_tui.core.history.run_query import RunView


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as connection:
        return connection.execute(sql).fetchall()


def test_each_spec_text_is_kept_once_and_runs_point_to_it(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 30)  # a spec text of its own each (a run tag)
    for run_id in ids[::2]:
        (logs / run_id / "spec.md").write_text("# Shared\nby half the runs.\n")
    listed = list_runs(logs)
    path = logs / INDEX_NAME
    texts = {text for (text,) in _rows(path, "SELECT text FROM specs")}
    on_disk = {(logs / run.run_id / "spec.md").read_text().lower() for run in listed}
    assert texts == on_disk and len(texts) == 16
    assert _rows(path, "PRAGMA user_version") == [(INDEX_VERSION,)]


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(b"not a database at all" * 100),
        lambda path: path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2]),
        lambda path: path.write_bytes(
            path.read_bytes()[:4096] + b"\x13" * (len(path.read_bytes()) - 4096)
        ),
        lambda path: _rows(path, "PRAGMA user_version = 7"),
        lambda path: _rows(path, "DROP TABLE meta"),
    ],
    ids=["not-sqlite", "truncated", "pages-overwritten", "other-version", "other-schema"],
)
def test_a_damaged_index_is_made_again_with_nothing_lost(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 40)
    listed = list_runs(logs)
    damage(logs / INDEX_NAME)
    indexes = list(recorded_then_checked(logs))
    assert indexes[-1].checked and indexes[-1].runs == listed
    assert list_runs(logs) == listed
    assert _rows(logs / INDEX_NAME, "PRAGMA integrity_check") == [("ok",)]


def test_a_damaged_page_a_filter_reads_empties_the_view_and_the_next_launch_rebuilds(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 12)
    listed = list_runs(logs)
    index = build_index(logs)
    index.db.connection.close()
    index.db.connection = sqlite3.connect(":memory:", check_same_thread=False)  # no tables
    view = RunView(index, query="wordstats")
    assert len(view) == 0 and list(view) == []
    assert index.note is not None and "damaged" in index.note
    assert not (logs / INDEX_NAME).exists()
    assert list_runs(logs) == listed


OLDER_FILES = (
    *OLD_INDEX_NAMES,
    ".index-7.json",
    ".index-7.stamp",
    ".index-8.sqlite",
    ".index-8.sqlite-wal",
    ".index-8.sqlite-shm",
    ".index-8.sqlite-journal",
    ".index-8.stamp",
)
NOT_OURS = (".index-8.sqlite.bak", "index-8.sqlite", ".index-8.sqlite.1234.tmp", "notes.txt")


@pytest.mark.parametrize("made", [True, False], ids=["made", "opened"])
def test_the_index_of_this_version_open_removes_older_versions_files_and_nothing_else(
    tmp_path: Path, made: bool
) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 3)
    if not made:
        list_runs(logs)  # this version's index already there: opened, not made
    later = f".index-{INDEX_VERSION + 1}.sqlite"  # a later build's, over the same logs/
    for name in (*OLDER_FILES, *NOT_OURS, later):
        (logs / name).write_text("{}")
    assert len(list_runs(logs)) == 3
    left = {path.name for path in logs.iterdir() if not path.is_dir()}
    assert left - {INDEX_NAME, ".opened-runs", f".index-{INDEX_VERSION}.stamp"} == {
        *NOT_OURS,
        later,
    }
    assert INDEX_NAME in left


def test_an_older_index_that_cannot_be_removed_is_no_error(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 3)
    (logs / ".index-8.sqlite").mkdir()  # unlink() fails on a folder
    assert len(list_runs(logs)) == 3
    assert (logs / INDEX_NAME).exists() and (logs / ".index-8.sqlite").is_dir()


def test_a_logs_folder_that_cannot_be_written_is_listed_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 5)
    expected = list_runs(logs)
    (logs / INDEX_NAME).unlink()
    real = index_open._connect

    def read_only(path: str) -> sqlite3.Connection:
        if path != ":memory:":
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real(path)

    monkeypatch.setattr(index_open, "_connect", read_only)
    (index,) = recorded_then_checked(logs)
    assert index.runs == expected
    assert index.note is not None and "cannot be written" in index.note
    assert not (logs / INDEX_NAME).exists()


def test_an_index_that_cannot_be_written_to_shows_the_changes_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 5)
    list_runs(logs)
    write_synthetic_runs(tmp_path / "more", 6)
    added = sorted(set(p.name for p in (tmp_path / "more").iterdir()) - set(ids))[0]
    (tmp_path / "more" / added).rename(logs / added)
    real = index_db.put_runs

    def refused(connection: sqlite3.Connection, entries: object) -> None:
        if connection.execute("PRAGMA database_list").fetchone()[2]:  # the file, not memory
            raise sqlite3.OperationalError("attempt to write a readonly database")
        real(connection, entries)

    monkeypatch.setattr("orch_tui.core.history.index.put_runs", refused)
    *_, checked = recorded_then_checked(logs)
    assert added in {run.run_id for run in checked.runs}
    assert checked.note is not None and "cannot be written" in checked.note
