"""One spec's run in its own project folder: ``orch-tui spec.md --auto --json`` as a process.

Each run is the same headless run a person starts by hand, in a folder of its own
(``spec.md``, ``state.json``, ``workspace/``, ``logs/``), so ``status``, ``history`` and the
review screen work inside it, and a run that was stopped resumes from its own ``state.json``
when it is started again. The process's JSON events are handed to the batch as they come.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from orch_tui.core.checks.process_guard import die_with_parent
from orch_tui.core.config.files import CONFIG_NAME
from orch_tui.core.config.paths import STATE_NAME
from orch_tui.core.domain.state import State, StateError
from orch_tui.core.util.records import record

SPEC_FILE = "spec.md"
RUN_LOG = "batch-run.log"
"""The run's standard error, beside its state: what went wrong when it did not finish."""
EXIT_INTERRUPTED = 130


@record(frozen=True)
class RunTask:
    """What a worker needs to run one spec: its name, its folder and the command's options."""

    name: str
    folder: Path
    options: tuple[str, ...]
    """``orch-tui`` options after ``spec.md --auto --json`` (provider, model, budget share...)."""


def prepare_folder(folder: Path, spec: Path, config: Path | None) -> None:
    """Make ``folder`` a project of its own: the spec, and the person's config the first time."""
    folder.mkdir(parents=True, exist_ok=True)
    text = spec.read_text(encoding="utf-8")
    target = folder / SPEC_FILE
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    if config is not None and config.is_file() and not (folder / CONFIG_NAME).exists():
        shutil.copy2(config, folder / CONFIG_NAME)


def command(task: RunTask) -> list[str]:
    """The run's command line: this interpreter's orch-tui, headless, events as JSON."""
    return [
        sys.executable,
        "-m",
        "orch_tui.tui.cli",
        SPEC_FILE,
        "--auto",
        "--json",
        "--no-notify",
        *task.options,
    ]


def run_in_folder(
    task: RunTask, on_event: Callable[[dict[str, Any]], None], cancel: threading.Event
) -> int:
    """Run ``task`` to its end and return its exit code; each JSON event goes to ``on_event``.

    The run has a process group of its own: ``cancel`` sends it SIGINT (it saves its state
    and exits 130), and a batch that dies takes no run with it half-killed.
    """
    with open(task.folder / RUN_LOG, "ab") as errors:
        process = subprocess.Popen(
            command(task),
            cwd=task.folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            start_new_session=True,
            preexec_fn=die_with_parent,  # a dead worker leaves no run behind (it resumes later)
        )
    done = threading.Event()
    watcher = threading.Thread(target=_interrupt_on, args=(cancel, done, process), daemon=True)
    watcher.start()
    try:
        assert process.stdout is not None
        for line in process.stdout:
            event = _event_of(line)
            if event is not None:
                on_event(event)
        return process.wait()
    finally:
        done.set()
        if process.poll() is None:
            _signal_group(process, signal.SIGKILL)
            process.wait()


def _interrupt_on(
    cancel: threading.Event, done: threading.Event, process: subprocess.Popen[bytes]
) -> None:
    while not done.is_set():
        if cancel.wait(0.2):
            _signal_group(process, signal.SIGINT)
            return


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def _event_of(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def read_run_state(folder: Path) -> State | None:
    """The run's ``state.json``; None when it has none yet or it cannot be read."""
    path = folder / STATE_NAME
    if not path.exists():
        return None
    try:
        return State.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, StateError):
        return None
