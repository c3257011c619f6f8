"""The command line in process: usage errors and unexpected failures read as sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import engine as engine_module
from core.providers.factory import demo_dir
from tui.cli import main


def test_a_usage_error_exits_1_not_the_safety_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["spec.md", "--max-retries", "many"])
    assert stopped.value.code == 1
    assert "invalid int value" in capsys.readouterr().err


def test_an_unexpected_error_is_a_sentence_and_a_crash_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr(engine_module, "run_configured", disk_full)
    code = main([str(demo_dir() / "spec.md"), "--auto"])
    err = capsys.readouterr().err
    assert code == 1
    assert "stopped on an unexpected error at TESTING (attempt 0): OSError" in err
    assert "Traceback" not in err
    crash = next((tmp_path / "logs").glob("*/crash.txt"))
    assert "No space left on device" in crash.read_text()
