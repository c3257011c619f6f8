"""The command line in process: usage errors and unexpected failures read as sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core import engine as engine_module
from orch_tui.core.providers.factory import demo_dir
from orch_tui.tui.cli import main


def test_a_usage_error_exits_1_not_the_safety_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["spec.md", "--max-retries", "many"])
    assert stopped.value.code == 1
    assert "invalid int value" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-0.5", "NaN"])
def test_a_budget_that_is_not_a_finite_amount_is_refused_naming_the_option(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["spec.md", f"--max-cost-usd={value}"])
    assert stopped.value.code == 1
    assert "argument --max-cost-usd: " in capsys.readouterr().err


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


HOLD_LOCK = """\
import sys
from pathlib import Path
from orch_tui.core.project_lock import ProjectLock

ProjectLock(Path(sys.argv[1])).acquire()
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_second_run_in_a_locked_project_exits_1_at_once_naming_the_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        code = main([str(demo_dir() / "spec.md"), "--auto"])
        err = capsys.readouterr().err
        assert code == 1
        assert f"pid {holder.pid}" in err and "Traceback" not in err
        assert not (tmp_path / "state.json").exists()  # nothing was started
        assert not (tmp_path / "logs").exists()
        # status only reads: it needs no lock.
        assert main(["status"]) == 0
        assert "no run yet" in capsys.readouterr().out
    finally:
        holder.communicate("")
    # The holder's exit released the lock: the same command now runs.
    assert main([str(demo_dir() / "spec.md"), "--auto"]) == 0
