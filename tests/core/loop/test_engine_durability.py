"""Every file a state points to is on disk before that state is (fsync order, not timing)."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.loop.engine import EXIT_SUCCESS
from tests.core.loop.test_engine import BAD, TEST, make_engine
from tests.support.scripting import attempt, create, replace

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads fsynced paths from /proc/self/fd"
)


class DiskLog:
    """Every fsync (by path) and rename, in order; for state.json, the state it now holds."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple[str, str, Any]] = []
        lock = threading.Lock()
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            real_fsync(fd)
            with lock:
                self.events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"), None))

        def rename(src: Any, dst: Any) -> None:
            real_replace(src, dst)
            saved = None
            if Path(dst).name == "state.json":
                data = json.loads(Path(dst).read_text())
                saved = (data["state"], data["attempt"])
            with lock:
                self.events.append(("rename", str(dst), saved))

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", rename)

    def durable_before(self, path: Path, end: int) -> bool:
        """``path``'s last rename before ``end`` was durable by then: the file itself fsynced
        after it, or its temp file before it; and its folder fsynced after it."""
        renames = [n for n, e in enumerate(self.events[:end]) if e[:2] == ("rename", str(path))]
        if not renames:
            return False
        renamed = renames[-1]
        before, after = self.events[:renamed], self.events[renamed:end]
        temp = str(path.parent / f".{path.name}.")
        data = ("fsync", str(path)) in [e[:2] for e in after] or any(
            kind == "fsync" and name.startswith(temp) for kind, name, _ in before
        )
        return data and ("fsync", str(path.parent)) in [e[:2] for e in after]


def test_each_state_comes_after_the_files_it_points_to(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    project = tmp_path.resolve()
    (project / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    engine, _ = make_engine(
        project,
        [
            attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
            attempt(replace("calc.py", "a - b", "a + b")),
        ],
    )
    disk = DiskLog(monkeypatch)

    assert engine.run() == EXIT_SUCCESS

    run = project / "logs" / engine.state.run_id
    workspace = (project / "workspace").resolve()
    applied = {0: ["calc.py", "tests/test_calc.py"], 1: ["calc.py"]}
    states = [(n, e[2]) for n, e in enumerate(disk.events) if e[2] is not None]
    assert [saved for _, saved in states] == [
        ("INIT", 0), ("GENERATING", 0), ("REVIEWING", 0), ("TESTING", 0),
        ("PATCHING", 1), ("REVIEWING", 1), ("TESTING", 1), ("SUCCESS", 1),
    ]  # fmt: skip
    checked = 0
    for index, (state, number) in states:
        folder = run / f"attempt-{number:02d}"
        if state == "REVIEWING":
            needed = [folder / "proposal.json"]
        elif state == "TESTING":
            needed = [folder / "decisions.json", folder / "applied.json"]
        elif state in ("PATCHING", "SUCCESS") and number in applied:
            done = number - 1 if state == "PATCHING" else number
            tested = run / f"attempt-{done:02d}"
            needed = [tested / name for name in ("report.json", "coverage.json", "evidence.json")]
            needed += [workspace / rel for rel in applied[done]]
            # written by the checks step, they go with the state after it: one wait, not three
            since = max(n for n, saved in states if n < index and saved == ("TESTING", done))
            folder_syncs = [e for e in disk.events[since:index] if e[:2] == ("fsync", str(tested))]
            assert len(folder_syncs) == 1, f"{tested} fsynced {len(folder_syncs)}× before {state}"
        else:
            needed = [run / "run.json", run / "spec.md"] if state == "GENERATING" else []
        for path in needed:
            assert disk.durable_before(path, index), f"{path} before {state} {number}"
            checked += 1
    assert checked == 17
    # and the last state's own rename is on disk before the run says it finished
    last = states[-1][0]
    assert ("fsync", str(project)) in [e[:2] for e in disk.events[last:]]
