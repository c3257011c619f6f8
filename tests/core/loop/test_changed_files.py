"""The files a run changed, for each patch prompt: each applied.json read once, counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.loop.prompts import changed_files
from orch_tui.core.runlog.writer import RunLog
from orch_tui.core.util.atomic import Commit


def test_each_applied_json_is_read_once_for_every_patch_prompt_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every patch prompt names the files of all the run's attempts; applied.json holds their
    full texts, and each was read and parsed again for every prompt after it."""
    log = RunLog(tmp_path / "logs", "20261128-000000-abcd")
    log.write_json(0, "applied.json", {"files": {"b.py": "b\n", "a.py": "a\n"}})
    log.write_json(2, "applied.json", {"files": {"c.py": "c\n", "a.py": "a2\n"}})
    reads: list[tuple[int | None, str]] = []
    read_json = RunLog.read_json

    def counted(self: RunLog, attempt: int | None, name: str) -> object:
        reads.append((attempt, name))
        return read_json(self, attempt, name)

    monkeypatch.setattr(RunLog, "read_json", counted)

    assert changed_files(log, 2) == ["a.py", "c.py", "b.py"]
    assert changed_files(log, 2) == ["a.py", "c.py", "b.py"]
    # attempt 1 has no applied.json: asked for again (a missing file is not kept)
    assert sorted(reads) == [(n, "applied.json") for n in (0, 1, 1, 2)]

    commit = Commit()
    log.write_json(2, "applied.json", {"files": {"d.py": "d\n"}}, commit)  # written again
    commit.commit(tmp_path / "state.json", b"{}\n")
    assert changed_files(log, 2) == ["d.py", "a.py", "b.py"]
