"""Applying a change clears what a killed apply left: every target's temp files, each folder
listed once however many targets it holds (a 200-file proposal in one folder: one listing)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orch_tui.core.workspace import apply


def test_a_killed_applys_temps_go_and_each_folder_is_listed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    names = [f"mod_{n}.py" for n in range(5)]
    stale = [root / "pkg" / f".{name}.0123abcd.orch-tmp" for name in names]
    stale.append(root / ".top.py.deadbeef.orch-tmp")
    kept = [
        root / "pkg" / ".other.py.0123abcd.orch-tmp",  # a file not in this change
        root / "pkg" / ".mod_0.py.short.orch-tmp",  # not a token of ours
        root / "pkg" / "mod_0.py.0123abcd.orch-tmp",  # no leading dot
    ]
    for path in [*stale, *kept]:
        path.write_text("half\n")
    listed: list[str] = []
    real_scandir = os.scandir

    def counting_scandir(path: os.PathLike[str] | str) -> object:
        listed.append(str(path))
        return real_scandir(path)

    monkeypatch.setattr(apply.os, "scandir", counting_scandir)
    change = {f"pkg/{name}": "new\n" for name in names} | {"top.py": "t\n", "new/a.py": "a\n"}
    apply.apply_change(root, change, durable=False)
    assert [path for path in stale if path.exists()] == []
    assert all(path.exists() for path in kept)
    assert sorted(listed) == sorted({str(root / "pkg"), str(root), str(root / "new")})
    assert all((root / rel).read_text() == text for rel, text in change.items())
