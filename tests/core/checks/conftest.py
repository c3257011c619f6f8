"""Fixtures shared by the checks' tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pytest inside a check skips the many plugins installed here (seconds per run)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    (path / "tests").mkdir(parents=True)
    return path
