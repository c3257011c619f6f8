"""One tool call locates its path once: a 200-file proposal's creates each asked for it four
times (protected? a folder? there already? the write), each a walk of its parts on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.attempt.editor_tool import EditorTool
from orch_tui.core.workspace import staging as staging_module
from orch_tui.core.workspace.boundary import SafetyViolation
from orch_tui.core.workspace.staging import Staging


@pytest.fixture
def located(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    resolve = staging_module.resolve_real

    def counted(base: str, rel: str) -> str:
        names.append(rel)
        return resolve(base, rel)

    monkeypatch.setattr(staging_module, "resolve_real", counted)
    return names


def create(path: str, text: str = "x = 1\n") -> dict[str, str]:
    return {"command": "create", "path": path, "file_text": text}


def test_a_create_locates_its_path_once(tmp_path: Path, located: list[str]) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "old.py").write_text("x = 0\n")
    tool = EditorTool(Staging(tmp_path, protected=["tests/test_spec_*.py"]))
    for path in ("pkg/old.py", "pkg/new.py"):
        assert not tool.run(create(path)).is_error
    assert located == ["pkg/old.py", "pkg/new.py"]


def test_each_tool_call_locates_its_path_afresh(tmp_path: Path, located: list[str]) -> None:
    """What the disk said is kept for one call only: a folder swapped for a link outside the
    workspace between two calls on the same path is seen by the second."""
    (tmp_path / "ws" / "pkg").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    staging = Staging(tmp_path / "ws")
    tool = EditorTool(staging)
    assert not tool.run(create("pkg/a.py")).is_error
    (tmp_path / "ws" / "pkg").rmdir()
    (tmp_path / "ws" / "pkg").symlink_to(tmp_path / "outside")
    with pytest.raises(SafetyViolation):
        tool.run(create("pkg/a.py"))
    assert located == ["pkg/a.py", "pkg/a.py"]


def test_a_protected_path_is_refused_with_the_answer_kept(tmp_path: Path) -> None:
    tool = EditorTool(Staging(tmp_path, protected=["tests/test_spec_*.py"]))
    refused = tool.run(create("tests/test_spec_a.py"))
    assert refused.is_error and "protected" in refused.content
    assert not tool.run(create("tests/test_other.py")).is_error
