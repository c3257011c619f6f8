"""Without tmux on the PATH the tmux tests skip, as the README promises, instead of failing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "test_file", ["tests/e2e/test_tmux_tui.py", "tests/e2e/test_tmux_history.py"]
)
def test_tmux_tests_skip_without_tmux(test_file: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", test_file],
        cwd=ROOT,
        env={"PATH": str(Path(sys.executable).parent), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert "skipped" in result.stdout and "failed" not in result.stdout
