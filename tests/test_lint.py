"""ruff is clean over the whole repository, lint and format (CI runs this with the rest)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff comes with the test extra")
def test_ruff_check_is_clean() -> None:
    result = subprocess.run(["ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff comes with the test extra")
def test_ruff_format_leaves_every_file_as_it_is() -> None:
    result = subprocess.run(
        ["ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
