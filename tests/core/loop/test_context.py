"""Roles and the plan runner get the narrow run context, never the engine."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from orch_tui.core.loop import plan_runner, roles


def imported_modules(source: Path) -> set[str]:
    """Every module the file imports, at any depth (under ``if TYPE_CHECKING:`` too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("module", [roles, plan_runner])
def test_roles_and_the_plan_runner_never_import_the_engine(module: object) -> None:
    source = Path(str(getattr(module, "__file__", "")))
    imported = imported_modules(source)
    assert "orch_tui.core.loop.context" in imported  # what they get instead
    assert not {name for name in imported if name.startswith("orch_tui.core.loop.engine")}
    assert "orch_tui.core.loop.run" not in imported


def test_the_check_sees_an_import_under_type_checking(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from orch_tui.core.loop.engine import Engine\n"
    )
    assert "orch_tui.core.loop.engine" in imported_modules(source)
