"""Atomic writes, the JSON layout, and Commit: what a state points to is durable before it."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orch_tui.core.util import atomic
from orch_tui.core.util.atomic import Commit, ItemMemo, json_bytes, write_json_atomic
from orch_tui.core.workspace.apply import apply_change

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON)
def test_json_bytes_round_trips(data: Any) -> None:
    assert json.loads(json_bytes(data)) == data


def plainly_laid_out(data: Any) -> bytes:
    """The layout json_bytes promises, written the plain way."""
    if not isinstance(data, dict) or not data:
        return (json.dumps(data, ensure_ascii=False) + "\n").encode()
    lines = []
    for key, value in data.items():
        name = json.dumps(key, ensure_ascii=False)
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {json.dumps(item, ensure_ascii=False)}" for item in value)
            lines.append(f"  {name}: [\n{items}\n  ]")
        else:
            lines.append(f"  {name}: {json.dumps(value, ensure_ascii=False)}")
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode()


@given(JSON)
def test_json_bytes_reusing_encoded_items_writes_the_same_bytes(data: Any) -> None:
    memo = ItemMemo()
    assert json_bytes(data, memo) == json_bytes(data) == json_bytes(data, memo)
    assert json_bytes(data) == plainly_laid_out(data)


def test_json_bytes_puts_each_key_and_each_list_item_on_a_line() -> None:
    text = json_bytes({"model": "m", "messages": [{"role": "user"}, {"role": "x"}]}).decode()

    assert text.splitlines() == [
        "{",
        '  "model": "m",',
        '  "messages": [',
        '    {"role": "user"},',
        '    {"role": "x"}',
        "  ]",
        "}",
    ]


class Recorder:
    """Records, in order, every fsync (by path) and every rename the code under test makes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            real_fsync(fd)
            with self.lock:
                self.events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))

        def replace(src: Any, dst: Any) -> None:
            real_replace(src, dst)
            with self.lock:
                self.events.append(("rename", str(dst)))

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)

    def index(self, kind: str, path: Path | str, start: int = 0) -> int:
        """Where ``kind`` of ``path`` first happened at or after ``start``."""
        wanted = (kind, str(path))
        return self.events.index(wanted, start)

    def fsynced_temp_of(self, path: Path) -> int:
        """Where a temp file of ``path`` (``.name.*tmp`` beside it) was fsynced."""
        prefix = str(path.parent / f".{path.name}.")
        for number, (kind, name) in enumerate(self.events):
            if kind == "fsync" and name.startswith(prefix) and name.endswith("tmp"):
                return number
        raise AssertionError(f"no temp file of {path} was fsynced: {self.events}")


pytestmark_linux = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads fsynced paths from /proc/self/fd"
)


@pytestmark_linux
def test_commit_makes_what_the_state_points_to_durable_before_the_state(tmp_path, monkeypatch):
    attempt = tmp_path / "logs" / "attempt-01"
    attempt.mkdir(parents=True)
    (attempt / "decisions.json").write_text('{"old": true}')
    state = tmp_path / "state.json"
    commit = Commit()
    commit.write(attempt / "proposal.json", b"{}\n")
    commit.add(attempt)
    commit.replace(attempt / "decisions.json", b'{"new": true}\n')
    recorder = Recorder(monkeypatch)

    commit.commit(state, b'{"state": "TESTING"}\n')

    state_renamed = recorder.index("rename", state)
    # the written file and its folder, the new attempt folder's entry, the staged file's temp
    # and the state's temp: all on disk before the state takes its place
    for path in (attempt / "proposal.json", attempt, attempt.parent):
        assert recorder.index("fsync", path) < state_renamed
    assert recorder.fsynced_temp_of(attempt / "decisions.json") < state_renamed
    assert recorder.fsynced_temp_of(state) < state_renamed
    # the staged file replaces the old one only once its temp is on disk, and the rename is
    # made durable (its folder fsynced again) before the state's
    staged_renamed = recorder.index("rename", attempt / "decisions.json")
    assert recorder.fsynced_temp_of(attempt / "decisions.json") < staged_renamed
    assert staged_renamed < recorder.index("fsync", attempt, staged_renamed) < state_renamed
    assert recorder.index("fsync", tmp_path, state_renamed) > state_renamed
    assert json.loads((attempt / "decisions.json").read_text()) == {"new": True}
    assert json.loads(state.read_text()) == {"state": "TESTING"}
    assert sorted(p.name for p in attempt.iterdir()) == ["decisions.json", "proposal.json"]


def test_a_commit_stats_each_written_path_once(tmp_path, monkeypatch):
    folder = tmp_path / "attempt-01"
    folder.mkdir()
    (tmp_path / "gone.py").write_text("x")
    commit = Commit()
    for name in ("a.json", "b.json"):
        commit.write(folder / name, b"{}\n")
    commit.add(folder)
    (tmp_path / "gone.py").unlink()
    commit.add(tmp_path / "gone.py")
    written = {folder / "a.json", folder / "b.json", folder, tmp_path / "gone.py"}
    asked: list[Path] = []
    real_stat = os.stat

    def counted(path, *args, **kwargs):
        if Path(path) in written:
            asked.append(Path(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    fsynced: list[tuple[list[Path], set[Path]]] = []
    together = atomic.fsync_together

    def recorded(files, folders):
        files, folders = list(files), set(folders)
        fsynced.append((files, folders))
        together(files, folders)

    monkeypatch.setattr(atomic, "fsync_together", recorded)

    commit.commit(tmp_path / "state.json", b"{}\n")

    assert sorted(asked) == sorted(written)
    files, folders = fsynced[0]
    assert files[:2] == [folder / "a.json", folder / "b.json"]  # then the state's temp file
    assert folders == {folder, tmp_path}


def test_a_staged_file_stays_the_old_one_until_the_commit(tmp_path):
    target = tmp_path / "decisions.json"
    target.write_text("old\n")
    commit = Commit()

    commit.replace(target, b"first\n")
    commit.replace(target, b"second\n")

    assert target.read_text() == "old\n"
    commit.commit(tmp_path / "state.json", b"{}\n")
    assert target.read_text() == "second\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["decisions.json", "state.json"]


def test_discard_removes_the_staged_temp_files(tmp_path):
    commit = Commit()
    commit.replace(tmp_path / "decisions.json", b"x\n")

    commit.discard()

    assert list(tmp_path.iterdir()) == []


@pytestmark_linux
def test_a_durable_write_is_one_commit_of_its_own(tmp_path, monkeypatch):
    recorder = Recorder(monkeypatch)
    path = tmp_path / "ui.json"

    write_json_atomic(path, {"a": 1})

    renamed = recorder.index("rename", path)
    assert recorder.fsynced_temp_of(path) < renamed < recorder.index("fsync", tmp_path)
    assert json.loads(path.read_text()) == {"a": 1}


@pytestmark_linux
def test_apply_change_into_a_commit_leaves_every_fsync_to_it(tmp_path, monkeypatch):
    root = tmp_path / "workspace"
    (root / "old").mkdir(parents=True)
    (root / "old" / "gone.py").write_text("x\n")
    recorder = Recorder(monkeypatch)
    commit = Commit()

    apply_change(root, {"new/pkg/mod.py": "y\n", "old/gone.py": None}, commit=commit)

    assert [kind for kind, _ in recorder.events] == ["rename"]  # no fsync yet
    commit.commit(tmp_path / "state.json", b"{}\n")
    state_renamed = recorder.index("rename", tmp_path / "state.json")
    for path in (root / "new" / "pkg" / "mod.py", root / "new" / "pkg", root / "new", root):
        assert recorder.index("fsync", path) < state_renamed  # new folders: their entries too
    assert recorder.index("fsync", root / "old") < state_renamed  # the deletion


@pytestmark_linux
def test_apply_change_alone_fsyncs_before_and_after_its_renames(tmp_path, monkeypatch):
    recorder = Recorder(monkeypatch)

    apply_change(tmp_path, {"a.py": "x\n"})

    renamed = recorder.index("rename", tmp_path / "a.py")
    assert recorder.fsynced_temp_of(tmp_path / "a.py") < renamed < recorder.index("fsync", tmp_path)


def test_fsyncs_issued_together_run_on_several_threads(tmp_path, monkeypatch):
    seen: set[int] = set()
    real_fsync = os.fsync
    barrier = threading.Barrier(3, timeout=10)

    def fsync(fd: int) -> None:
        seen.add(threading.get_ident())
        barrier.wait()  # all three wait here at once, or this times out
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    files = [tmp_path / f"{n}.txt" for n in range(3)]
    for path in files:
        path.write_text("x")

    atomic.fsync_together(files, [])

    assert len(seen) == 3


def test_a_batch_hands_all_but_one_fsync_to_the_pool_and_the_caller_takes_that_one(
    tmp_path, monkeypatch
):
    threads: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        threads.append(threading.get_ident())
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    pool = atomic._threads()
    handed: list[object] = []
    submit = pool.submit

    def counted(call, *args, **kwargs):
        handed.append(args[0])
        return submit(call, *args, **kwargs)

    monkeypatch.setattr(pool, "submit", counted)
    files = [tmp_path / f"{n}.txt" for n in range(3)]
    for path in files:
        path.write_text("x")

    atomic.fsync_together(files, [tmp_path])

    assert len(threads) == 4  # every file and the folder, each once
    assert len(handed) == 3 and files[0] not in handed
    assert threads.count(threading.get_ident()) == 1


@pytestmark_linux
def test_the_next_batch_waits_for_a_state_folder_fsync_left_in_the_background(
    tmp_path, monkeypatch
):
    release = threading.Event()
    folder_synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}") == str(tmp_path):
            release.wait(10)
            folder_synced.append("state folder")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    Commit(settle_later=True).commit(tmp_path / "state.json", b"{}\n")
    assert folder_synced == []  # the caller went on while it waits
    other = tmp_path / "other.json"
    other.write_text("{}")
    threading.Timer(0.2, release.set).start()

    atomic.fsync_together([other], [])

    assert folder_synced == ["state folder"]


def test_a_write_into_a_folder_that_exists_makes_no_folder(tmp_path, monkeypatch):
    """The temp file's folder is made only when it is missing, not asked for before every
    file (two system calls and an exception each, some 17 files an attempt)."""
    made: list[str] = []
    monkeypatch.setattr(os, "mkdir", lambda path, *args, **kwargs: made.append(path))
    commit = Commit()
    write_json_atomic(tmp_path / "a.json", {"a": 1})
    atomic.write_text_atomic(tmp_path / "b.txt", "b", durable=False)
    commit.write(tmp_path / "c.json", b"{}\n")
    commit.replace(tmp_path / "d.json", b"{}\n")
    commit.commit(tmp_path / "state.json", b"{}\n")
    assert made == []
    assert {path.name for path in tmp_path.iterdir()} == {
        "a.json", "b.txt", "c.json", "d.json", "state.json"
    }  # fmt: skip


def test_a_write_into_a_missing_folder_makes_it_with_the_usual_mode(tmp_path):
    target = tmp_path / "logs" / "run-1" / "attempt-01" / "report.json"
    write_json_atomic(target, {"passed": True})
    assert json.loads(target.read_text()) == {"passed": True}
    assert target.stat().st_mode & 0o777 == 0o666 & ~atomic.UMASK
    commit = Commit()
    commit.replace(tmp_path / "new" / "decisions.json", b"{}\n")
    commit.commit(tmp_path / "other" / "state.json", b"{}\n")
    assert (tmp_path / "new" / "decisions.json").read_bytes() == b"{}\n"
    assert (tmp_path / "other" / "state.json").read_bytes() == b"{}\n"


def test_a_temp_file_left_by_a_killed_write_is_swept_by_its_name(tmp_path):
    (tmp_path / "state.json").write_text("{}")
    os.chmod(tmp_path / "state.json", 0o640)
    temps = [atomic._temp_with(tmp_path / "state.json", b"{}\n") for _ in range(3)]
    assert len(set(temps)) == 3
    for temp in temps:
        assert atomic._TEMP_NAME.fullmatch(os.path.basename(temp))
        assert os.stat(temp).st_mode & 0o777 == 0o640
    atomic.remove_temp_files(tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == ["state.json"]
