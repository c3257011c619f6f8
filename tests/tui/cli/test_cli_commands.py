"""The command line as a new user meets it: subcommands, terminals, reset's reach and wording.

Every test runs the installed ``orch-tui``; where a terminal matters, stdin and stdout are a
real pseudo-terminal (``os.openpty``).
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orch_tui.core.util.wording import plural
from tests.support.e2e_support import child_env, orch_tui, write_attempts_script

SPEC = "# tiny\n\nA module `app.py` with `def one(): return 1`.\n"


def scripted(folder: Path) -> tuple[str, ...]:
    """Options for a model that is never asked (the command stops before any request)."""
    script = write_attempts_script(folder / "script.json", [])
    return ("--provider", "scripted", "--script", str(script))


def run(
    cwd: Path, *args: str, stdin: int | None = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [orch_tui(), *args],
        cwd=cwd,
        env=child_env(),
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def run_in_terminal(cwd: Path, *args: str, typed: str = "") -> tuple[int, str, str]:
    """``orch-tui ARGS`` with a terminal on stdin and stdout; returns (code, screen, stderr)."""
    master, slave = os.openpty()
    process = subprocess.Popen(
        [orch_tui(), *args],
        cwd=cwd,
        env=child_env(),
        stdin=slave,
        stdout=slave,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(slave)
    if typed:
        os.write(master, typed.encode())
    screen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            process.kill()
            raise AssertionError(f"orch-tui did not finish: {screen!r}")
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        screen += chunk
    os.close(master)
    assert process.stderr is not None
    stderr = process.stderr.read()
    return process.wait(30), screen.decode(errors="replace"), stderr


def project_with_run(root: Path, files: dict[str, str]) -> Path:
    """A project folder with a state.json (any run) and ``files`` in its workspace."""
    root.mkdir(parents=True)
    (root / "orchestrator.toml").write_text("", encoding="utf-8")
    (root / "state.json").write_text("{}", encoding="utf-8")
    for name, text in files.items():
        path = root / "workspace" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_reset_without_a_terminal_needs_yes_and_removes_nothing(tmp_path: Path) -> None:
    root = project_with_run(tmp_path / "p", {"app.py": "x = 1\n"})

    result = run(root, "reset")

    assert result.returncode == 1
    assert "orch-tui reset --yes" in result.stderr and "workspace/app.py" in result.stderr
    assert (root / "state.json").exists() and (root / "workspace" / "app.py").exists()


def test_reset_yes_says_what_it_removed(tmp_path: Path) -> None:
    root = project_with_run(tmp_path / "p", {"app.py": "x = 1\n", "pkg/mod.py": ""})

    result = run(root, "reset", "--yes")

    assert result.returncode == 0, result.stderr
    assert "workspace/app.py" in result.stdout and "workspace/pkg" in result.stdout
    assert "logs/ kept" in result.stdout
    assert not (root / "state.json").exists()
    assert list((root / "workspace").iterdir()) == []


def test_reset_on_a_terminal_asks_first(tmp_path: Path) -> None:
    root = project_with_run(tmp_path / "p", {"app.py": "x = 1\n"})

    code, screen, _ = run_in_terminal(root, "reset", typed="n\n")
    assert code == 1 and "remove them? [y/N]" in screen and "nothing removed" in screen
    assert (root / "workspace" / "app.py").exists()

    code, screen, _ = run_in_terminal(root, "reset", typed="y\n")
    assert code == 0 and "removed" in screen
    assert not (root / "workspace" / "app.py").exists()


def test_reset_with_no_run_keeps_the_workspace(tmp_path: Path) -> None:
    root = project_with_run(tmp_path / "p", {"important/notes.txt": "mine\n"})
    (root / "state.json").unlink()

    result = run(root, "reset", "--yes")

    assert result.returncode == 0
    assert "nothing removed" in result.stdout
    assert (root / "workspace" / "important" / "notes.txt").read_text() == "mine\n"


def test_reset_never_reaches_a_parent_folders_project(tmp_path: Path) -> None:
    parent = project_with_run(tmp_path / "p", {"app.py": "x = 1\n"})
    child = parent / "sub"
    child.mkdir()

    result = run(child, "reset", "--yes")

    assert result.returncode == 0
    assert (parent / "state.json").exists() and (parent / "workspace" / "app.py").exists()


def test_options_may_come_before_the_subcommand(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "orchestrator.toml").write_text("", encoding="utf-8")

    result = run(tmp_path, "--config", str(root / "orchestrator.toml"), "status", "--json")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) is None


def test_json_without_auto_is_refused(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")

    result = run(tmp_path, "spec.md", "--json")

    assert result.returncode == 1
    assert "--json only works with --auto" in result.stderr


def test_the_review_screen_without_a_terminal_says_so_and_exits(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")

    result = run(tmp_path, "spec.md", "--provider", "scripted")

    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "orch-tui: the review screen needs a terminal (stdin and stdout); "
        "use --auto to run without one"
    ]
    assert result.stdout == ""


def test_history_without_a_terminal_prints_a_plain_listing(tmp_path: Path) -> None:
    result = run(tmp_path, "history")

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("Run\tWhen\tSpec\tState")
    assert "\x1b" not in result.stdout


def test_history_without_a_terminal_leads_each_run_with_its_id(demo_runs) -> None:
    result = run(demo_runs.root, "history")

    ids = {line.split("\t")[0] for line in result.stdout.splitlines()[1:]}
    assert ids == {demo_runs.success, demo_runs.failed, demo_runs.unfinished}


def test_a_corrupt_state_in_the_tui_is_an_error_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")
    (tmp_path / "state.json").write_text("{not json", encoding="utf-8")

    code, screen, stderr = run_in_terminal(tmp_path, "spec.md", *scripted(tmp_path))

    assert code == 3
    assert "state.json" in stderr and "state.json" not in screen


def test_an_unknown_theme_is_an_error_naming_the_key(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")
    (tmp_path / "orchestrator.toml").write_text('[ui]\ntheme = "no-such-theme"\n')

    code, _, stderr = run_in_terminal(tmp_path, "spec.md", *scripted(tmp_path))

    assert code == 1
    assert "ui.theme" in stderr and "no-such-theme" in stderr and "orchestrator.toml" in stderr


@pytest.mark.parametrize("command", ["spec.md", "history"])
def test_an_unknown_keymap_id_is_an_error_naming_the_key(tmp_path: Path, command: str) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")
    (tmp_path / "orchestrator.toml").write_text('[ui]\nkeymap = { "review.accpet_hunk" = "a" }\n')
    args = [command, *scripted(tmp_path)] if command == "spec.md" else [command]

    code, _, stderr = run_in_terminal(tmp_path, *args)

    assert code == 1
    assert "ui.keymap" in stderr and "'review.accpet_hunk'" in stderr
    assert "orchestrator.toml" in stderr


def test_counted_nouns_agree_with_their_count() -> None:
    assert plural(1, "attempt") == "1 attempt"
    assert plural(2, "attempt") == "2 attempts"
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(1200, "run") == "1,200 runs"


def test_files_orch_tui_creates_follow_the_persons_umask(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")

    def umask_027() -> None:
        os.umask(0o027)

    for args in (("init",), ("spec.md", "--auto", *scripted(tmp_path))):
        subprocess.run(
            [orch_tui(), *args],
            cwd=tmp_path,
            env=child_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
            preexec_fn=umask_027,
        )

    assert (tmp_path / "orchestrator.toml").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "state.json").stat().st_mode & 0o777 == 0o640


def test_a_budget_with_an_unpriced_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")

    result = run(
        tmp_path, "spec.md", "--auto", "--max-cost-usd", "0.05", "--model", "claude-new-9",
        *scripted(tmp_path),
    )  # fmt: skip

    assert result.returncode == 1
    assert "no price known for model claude-new-9" in result.stderr
    assert not (tmp_path / "state.json").exists()


def test_a_reader_that_goes_away_never_stops_the_run(tmp_path: Path) -> None:
    """``orch-tui spec --auto | head -1``: the run goes on to the end, quietly."""
    from orch_tui.core.providers.factory import demo_dir

    for as_json in (False, True):
        root = tmp_path / ("json" if as_json else "lines")
        root.mkdir()
        process = subprocess.Popen(
            [orch_tui(), str(demo_dir() / "spec.md"), "--auto", *(["--json"] if as_json else [])],
            cwd=root,
            env=child_env(key=None),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline()  # what `head -1` reads, then it exits
        process.stdout.close()
        stderr = process.stderr.read().decode()
        assert process.wait(90) == 0, stderr
        assert "Traceback" not in stderr and "BrokenPipe" not in stderr
        state = json.loads((root / "state.json").read_text(encoding="utf-8"))
        assert state["state"] == "SUCCESS"


def test_status_into_a_closed_pipe_prints_no_traceback(tmp_path: Path) -> None:
    """``orch-tui status --json | head -0``: the reader is gone before the first line."""
    from orch_tui.core.providers.factory import demo_dir

    demo = [orch_tui(), str(demo_dir() / "spec.md"), "--auto"]
    env = child_env(key=None)  # the demo replays its recording
    subprocess.run(demo, cwd=tmp_path, env=env, capture_output=True, timeout=90, check=True)
    for args in (("status", "--json"), ("status",), ("history",)):
        reader, writer = os.pipe()
        os.close(reader)
        try:
            result = subprocess.run(
                [orch_tui(), *args],
                cwd=tmp_path,
                env=child_env(),
                stdin=subprocess.DEVNULL,
                stdout=writer,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
            )
        finally:
            os.close(writer)
        assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr, args
        assert result.returncode == 0, (args, result.stderr)


def test_a_run_started_with_stdout_closed_goes_on_to_the_end(tmp_path: Path) -> None:
    """``orch-tui spec --auto >&-``: Python gives no sys.stdout at all; the run is not stopped."""
    from orch_tui.core.providers.factory import demo_dir

    spec = str(demo_dir() / "spec.md")
    result = subprocess.run(
        ["sh", "-c", 'exec "$0" "$1" --auto >&-', orch_tui(), spec],
        cwd=tmp_path,
        env=child_env(key=None),
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=90,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    state = json.loads((tmp_path / "state.json").read_text(encoding="utf-8"))
    assert state["state"] == "SUCCESS"


# -- a disk or folder that refuses writes: one true sentence, exit 1, never a traceback

STOPPED_WRITING = re.compile(
    r"orch-tui: stopped at INIT \(attempt 0\): (?P<path>\S+): (?P<reason>[^.]+)\. "
    r"Fix that path \(a writable folder where a folder is expected\); "
    r"state\.json holds the last step saved: the same command resumes there\."
)


def test_a_file_where_logs_should_be_stops_every_run_with_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")
    (tmp_path / "logs").write_text("", encoding="utf-8")

    for _ in range(2):  # the same again when the same command runs again
        result = run(tmp_path, "spec.md", "--auto", *scripted(tmp_path))

        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        stopped = STOPPED_WRITING.fullmatch(result.stderr.strip())
        assert stopped, result.stderr
        assert stopped["path"].startswith(f"{tmp_path / 'logs'}/")
        assert stopped["reason"] == "Not a directory"


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_a_spec_that_cannot_be_read_is_one_sentence(tmp_path: Path) -> None:
    """/proc/self/mem is a file that fails to read with EIO, even for root."""
    result = run(tmp_path, "/proc/self/mem", "--auto", *scripted(tmp_path))

    assert result.returncode == 1
    assert result.stderr == "orch-tui: cannot read the spec /proc/self/mem: Input/output error\n"


BWRAP = shutil.which("bwrap")


def read_only(folder: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``orch-tui ARGS`` with ``folder`` mounted read-only: refused even to root."""
    assert BWRAP is not None
    mounts = [BWRAP, "--bind", "/", "/", "--ro-bind", str(folder), str(folder)]
    mounts += ["--dev", "/dev", "--proc", "/proc", "--chdir", str(cwd), "--"]
    return subprocess.run(
        [*mounts, orch_tui(), *args],
        env=child_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.skipif(BWRAP is None, reason="needs bubblewrap (bwrap) to mount a folder read-only")
def test_read_only_logs_stop_with_one_true_sentence(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")
    (tmp_path / "logs").mkdir()

    result = read_only(tmp_path / "logs", tmp_path, "spec.md", "--auto", *scripted(tmp_path))

    assert result.returncode == 1, result.stderr
    stopped = STOPPED_WRITING.fullmatch(result.stderr.strip())
    assert stopped and stopped["reason"] == "Read-only file system", result.stderr
    assert list((tmp_path / "logs").iterdir()) == []


@pytest.mark.skipif(BWRAP is None, reason="needs bubblewrap (bwrap) to mount a folder read-only")
def test_a_read_only_project_stops_before_it_starts(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")

    result = read_only(tmp_path, tmp_path, "spec.md", "--auto", *scripted(tmp_path))

    assert result.returncode == 1
    assert (
        result.stderr == f"orch-tui: cannot lock {tmp_path / 'orch.lock'}: Read-only file system\n"
    )
    assert "saved" not in result.stderr


def test_a_review_keymap_id_is_known_before_the_review_screen_is_loaded() -> None:
    """The review screen is imported after the first frame, yet the keymap is checked before
    the app starts: in a fresh interpreter its ids must still be known."""
    check = (
        "from orch_tui.tui.keymap import keymap_problem;"
        "print(keymap_problem({'review.accept_hunk': 'a', 'diff.scroll_left': 'H'}))"
    )
    said = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=60, check=True
    )
    assert said.stdout.strip() == "None"
