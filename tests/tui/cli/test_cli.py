"""The command line in process: usage errors and unexpected failures read as sentences."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from orch_tui.core.loop import checks_step
from orch_tui.core.providers.factory import demo_dir
from orch_tui.tui.cli.commands import main


def test_a_usage_error_exits_1_not_the_safety_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["spec.md", "--max-retries", "many"])
    assert stopped.value.code == 1
    assert "invalid int value" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bogus"], "unknown option: --bogus"),  # not "the spec is required"
        (["spec.md", "--bogus", "--zz"], "unknown options: --bogus --zz"),
        (["history", "--bogus"], "unknown option: --bogus"),
        ([], "the following arguments are required: spec"),
    ],
)
def test_an_unknown_option_is_named_as_one(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 1
    assert capsys.readouterr().err.endswith(f"orch-tui: error: {said}\n")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-0.5", "NaN"])
def test_a_budget_that_is_not_a_finite_amount_is_refused_naming_the_option(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["spec.md", f"--max-cost-usd={value}"])
    assert stopped.value.code == 1
    assert "argument --max-cost-usd: " in capsys.readouterr().err


def run_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return main([str(demo_dir() / "spec.md"), "--auto"])


def test_an_unexpected_error_is_a_sentence_and_a_crash_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(checks_step, "run_measured", broken)
    code = run_demo(tmp_path, monkeypatch)
    err = capsys.readouterr().err
    assert code == 1
    crash = next((tmp_path / "logs").glob("*/crash.txt"))
    assert err == (
        "orch-tui: stopped on an unexpected error at TESTING (attempt 0): RuntimeError: boom. "
        f"Details in {crash}; state.json holds the last step saved: the same command resumes "
        "there.\n"
    )
    assert "RuntimeError: boom" in crash.read_text()


def test_a_crash_file_that_cannot_be_written_is_said_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        run_folder = next(p for p in (tmp_path / "logs").iterdir() if p.is_dir())
        (run_folder / "crash.txt").mkdir()  # where the crash file would go
        raise RuntimeError("boom")

    monkeypatch.setattr(checks_step, "run_measured", broken)
    code = run_demo(tmp_path, monkeypatch)
    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "RuntimeError: boom. The details could not be written either (" in err
    assert "crash.txt: Is a directory)" in err


def test_a_full_disk_is_one_true_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run log's first line finds the disk full: no crash file, no traceback."""
    real_write = os.write

    def disk_full(fd: int, data: bytes) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith("events.jsonl"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", disk_full)
    code = run_demo(tmp_path, monkeypatch)
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("orch-tui: stopped at INIT (attempt 0): No space left on device. ")
    assert err.endswith(
        "Free some space; state.json holds the last step saved: the same command resumes there.\n"
    )
    assert (tmp_path / "state.json").is_file()
    assert not list((tmp_path / "logs").glob("*/crash.txt"))


HOLD_LOCK = """\
import sys
from pathlib import Path
from orch_tui.core.workspace.lock import ProjectLock

ProjectLock(Path(sys.argv[1])).acquire()
print("locked", flush=True)
sys.stdin.read()
"""


@contextmanager
def lock_held_by_another_process(root: Path) -> Iterator[int]:
    """Another process holds ``root``'s project lock until the block ends; yields its pid."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        yield holder.pid
    finally:
        holder.communicate("")


def test_a_second_run_in_a_locked_project_exits_1_at_once_naming_the_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with lock_held_by_another_process(tmp_path) as pid:
        code = main([str(demo_dir() / "spec.md"), "--auto"])
        err = capsys.readouterr().err
        assert code == 1
        assert f"pid {pid}" in err and "Traceback" not in err
        assert not (tmp_path / "state.json").exists()  # nothing was started
        assert not (tmp_path / "logs").exists()
        # status only reads: it needs no lock.
        assert main(["status"]) == 0
        assert "no run yet" in capsys.readouterr().out
    # The holder's exit released the lock: the same command now runs.
    assert main([str(demo_dir() / "spec.md"), "--auto"]) == 0
    capsys.readouterr()
    workspace = sorted(p.name for p in (tmp_path / "workspace").iterdir())
    # reset and restore write the workspace and the state as a run does: not while one holds it.
    with lock_held_by_another_process(tmp_path) as pid:
        for command in (["reset", "--yes"], ["restore", "0"]):
            assert main(command) == 1
            assert f"pid {pid}" in capsys.readouterr().err
        assert (tmp_path / "state.json").is_file()
        assert sorted(p.name for p in (tmp_path / "workspace").iterdir()) == workspace


def test_a_spec_changed_while_a_run_holds_the_project_is_refused_naming_the_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24's bad input: the change run waits for no one and changes nothing."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    spec = tmp_path / "spec.md"
    spec.write_text((demo_dir() / "spec.md").read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["spec.md", "--auto"]) == 0  # the bundled demo's text: its recording replays
    capsys.readouterr()
    state = (tmp_path / "state.json").read_bytes()
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    spec.write_text(spec.read_text(encoding="utf-8") + "\nAlso count sentences.\n")

    with lock_held_by_another_process(tmp_path) as pid:
        assert main(["spec.md", "--auto"]) == 1
        err = capsys.readouterr().err
    assert f"pid {pid}" in err and "Traceback" not in err
    assert (tmp_path / "state.json").read_bytes() == state
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == logs


def test_history_export_chain_prints_the_chain_and_needs_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.core.history.test_chain import make_run

    make_run(tmp_path / "logs", "run-a")
    make_run(tmp_path / "logs", "run-b", follows="run-a", diff="--- spec.md\n+++ spec.md\n+sub\n")
    monkeypatch.chdir(tmp_path)
    assert main(["history", "--chain"]) == 1
    assert "--chain works with --export" in capsys.readouterr().err
    assert main(["history", "--export", "run-b", "--chain"]) == 0
    report = capsys.readouterr().out
    assert report.startswith("# Chain of run run-b") and "# Run run-a" in report
    assert main(["history", "--export", "run-b"]) == 0
    alone = capsys.readouterr().out
    assert "# Run run-a" not in alone and "## Spec edit" in alone


@pytest.mark.parametrize(
    ("edit", "said"), [("empty", "spec is empty"), ("delete", "spec not found")]
)
def test_a_spec_emptied_or_deleted_after_a_run_is_an_error_and_nothing_moves(
    edit: str,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from orch_tui.core.domain.state import RunState, State, StateStore

    spec = tmp_path / "spec.md"
    spec.write_text("# calc\n")
    saved = State(run_id="20261127-101500-ab12", spec_path="spec.md", spec_hash="x", max_retries=3)
    saved.state = RunState.SUCCESS
    StateStore(tmp_path / "state.json").save(saved)
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    before = {p: p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file() and p != spec}
    spec.write_text("\n  \n") if edit == "empty" else spec.unlink()
    monkeypatch.chdir(tmp_path)

    assert main(["spec.md", "--auto"]) == 1

    assert said in capsys.readouterr().err
    after = {p: p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file() and p != spec}
    assert after == before  # state.json, the workspace: as they were; no logs/ made
