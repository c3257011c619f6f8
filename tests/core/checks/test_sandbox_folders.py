"""The folders a sandboxed check may read: its program's environment, worked out once per program."""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.checks import sandbox


def _program(tmp_path: Path) -> Path:
    program = tmp_path / "env" / "bin" / "prog"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    return program


def test_a_programs_environment_is_resolved_once_for_every_workspace(tmp_path, monkeypatch):
    """The evidence's scratch runs check a new copy of the workspace every attempt: the
    program's folders are not resolved and looked at again for each copy."""
    program = _program(tmp_path)
    sandbox._program_folders.cache_clear()
    first = sandbox._environments([str(program)], tmp_path / "ws-1")
    assert (tmp_path / "env").resolve() in first
    looked_at: list[Path] = []
    real_resolve, real_is_dir = Path.resolve, Path.is_dir
    monkeypatch.setattr(Path, "resolve", lambda p, *a: looked_at.append(p) or real_resolve(p, *a))
    monkeypatch.setattr(Path, "is_dir", lambda p: looked_at.append(p) or real_is_dir(p))

    assert sandbox._environments([str(program)], tmp_path / "ws-2") == first
    assert looked_at == []


def test_an_environment_that_holds_the_workspace_is_still_left_out(tmp_path):
    program = _program(tmp_path)
    sandbox._program_folders.cache_clear()
    env = (tmp_path / "env").resolve()
    assert env in sandbox._environments([str(program)], tmp_path / "ws")
    assert env not in sandbox._environments([str(program)], env / "project")
