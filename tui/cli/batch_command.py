"""``orch-tui batch``: many specs at once, each its own headless run in its own folder.

``orch-tui batch SPEC|DIR... [--jobs N] [--engine local|ray] [--address ADDR]
[--max-cost-usd X] [--workspace REPO] [--json]``, and ``orch-tui batch --compare A B``. Progress is a live table
on a terminal (Rich, loaded only then), one line per change without one, and every run's events
tagged with its name under ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orch_tui.core.batch.driver import BatchDriver, BatchOptions
from orch_tui.core.batch.local import run_local
from orch_tui.core.batch.opening import BATCHES_DIR, batch_folder, open_batch
from orch_tui.core.batch.record import (
    BatchFileError,
    BatchRecord,
    RunRecord,
    RunStatus,
    load_batch,
)
from orch_tui.core.batch.report import compare_markdown, report_markdown, write_reports
from orch_tui.core.batch.space import StorageProblem
from orch_tui.core.batch.specs import BatchError, collect_specs
from orch_tui.core.batch.worktrees import WORKTREE, ensure_worktree, repo_start
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.workspace.lock import ProjectLock, ProjectLocked
from orch_tui.tui.cli.executable import start_collecting

EXIT_FAILED, EXIT_INTERRUPTED = 1, 130


def batch_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="orch-tui batch",
        description="Run many specs at once, each in batches/<batch_id>/<name>/; the same "
        "command resumes the batch.",
    )
    parser.add_argument(
        "specs", nargs="*", type=Path, metavar="SPEC|DIR", help="specs, or folders of specs"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="runs at once (default: the cores)",
    )
    parser.add_argument(
        "--engine", choices=("local", "ray"), default="local", help="where runs execute"
    )
    parser.add_argument(
        "--address", metavar="ADDR", help="a Ray cluster's address (or RAY_ADDRESS)"
    )
    parser.add_argument("--max-cost-usd", type=float, metavar="X", help="the whole batch's budget")
    parser.add_argument(
        "--json", action="store_true", help="every run's events as JSON lines, tagged with its name"
    )
    parser.add_argument("--provider", choices=("anthropic", "openai", "claude-code", "scripted"))
    parser.add_argument("--model", metavar="M")
    parser.add_argument(
        "--script", type=Path, metavar="FILE", help="recorded turns (scripted provider)"
    )
    parser.add_argument("--max-retries", type=int, metavar="N")
    parser.add_argument("--plan", action="store_true", help="plan mode for every run")
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="orchestrator.toml every run starts from"
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        metavar="REPO",
        help="a git repository: each run works in its own worktree on branch orch/<run_id>; "
        "your checkout is never switched or touched",
    )
    parser.add_argument(
        "--batch", metavar="ID", help="the batch's id (default: derived from the specs and options)"
    )
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two batches side by side")
    return parser


def _run_options(args: argparse.Namespace) -> tuple[str, ...]:
    options: list[str] = []
    for flag, value in (
        ("--provider", args.provider),
        ("--model", args.model),
        ("--max-retries", args.max_retries),
    ):
        if value is not None:
            options += [flag, str(value)]
    if args.script is not None:
        options += ["--script", str(args.script.resolve())]
    if args.plan:
        options.append("--plan")
    if args.workspace is not None:
        options += ["--workspace", WORKTREE]
    return tuple(options)


def _repo_start(args: argparse.Namespace) -> str | None:
    """With ``--workspace``: the repository's HEAD, where every run's worktree starts."""
    if args.workspace is None:
        return None
    args.workspace = args.workspace.resolve()
    return repo_start(args.workspace)


def _fail(message: str) -> int:
    print(f"orch-tui batch: {message}", file=sys.stderr)
    return EXIT_FAILED


def run_batch_command(argv: Sequence[str]) -> int:
    args = batch_parser().parse_args(argv)
    paths = ProjectPaths.locate(args.config)
    if args.compare:
        return _compare(paths.root, *args.compare)
    if not args.specs:
        return _fail("name at least one spec or folder of specs")
    if args.jobs < 1:
        return _fail(f"--jobs must be 1 or more, not {args.jobs}")
    try:
        specs = collect_specs(args.specs)
        start = _repo_start(args)
    except BatchError as exc:
        return _fail(str(exc))
    options = BatchOptions(_run_options(args), args.max_cost_usd)
    key: dict[str, Any] = {
        "run_options": list(options.run_options),
        "max_cost_usd": args.max_cost_usd,
    }
    if args.workspace is not None:
        key["workspace"] = str(args.workspace)
    folder = batch_folder(paths.root, specs, key, args.batch)
    folder.mkdir(parents=True, exist_ok=True)
    lock = ProjectLock(folder)
    try:
        lock.acquire()
    except ProjectLocked as exc:
        return _fail(str(exc).replace("orch-tui run", "orch-tui batch"))
    except OSError as exc:  # its pid could not be written: a full disk
        return _fail(StorageProblem.of(exc).message(folder, _finished_in(folder)))
    try:
        return _run(args, folder, specs, options, key, paths, start)
    except BatchFileError as exc:
        return _fail(str(exc))
    finally:
        lock.release()


def _run(
    args: argparse.Namespace,
    folder: Path,
    specs: Any,
    options: BatchOptions,
    key: dict[str, Any],
    paths: ProjectPaths,
    start: str | None,
) -> int:
    config = paths.config if paths.config.is_file() else None
    try:
        record, resumed = open_batch(folder, specs, key, config)
    except OSError as exc:  # a full disk: batch.json and every run's folder stay as they were
        return _fail(StorageProblem.of(exc).message(folder, _finished_in(folder)))
    if start is not None:
        try:
            for run in record.runs:
                ensure_worktree(args.workspace, folder / run.name, start)
        except BatchError as exc:
            return _fail(str(exc))
    progress = _progress(args, record)
    driver = BatchDriver(folder, record, options, on_change=progress.changed)
    left = len(driver.to_start())
    print(
        f"{'resuming' if resumed else 'starting'} batch {record.batch_id}: {left} of "
        f"{len(record.runs)} runs to go, {args.jobs} at a time ({folder})",
        file=sys.stderr,
    )
    cancel = threading.Event()
    start_collecting()  # a batch may run for hours: its own garbage must not pile up
    previous = signal.signal(signal.SIGINT, lambda signum, frame: cancel.set())
    previous_term = signal.signal(signal.SIGTERM, lambda signum, frame: cancel.set())
    started = time.monotonic()
    try:
        with progress:
            _engine(args, driver, progress, cancel)
    except BatchError as exc:
        return _fail(str(exc))
    except OSError as exc:  # a run's folder not written back (Ray) on a full disk
        driver.storage = driver.storage or StorageProblem.of(exc)
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)
        record.wall_s += time.monotonic() - started
        _keep(folder, record, driver)
    print(report_markdown(record), end="", file=sys.stderr if args.json else sys.stdout)
    if driver.storage is not None:
        return _fail(driver.storage.message(folder, _finished(record)))
    if cancel.is_set():
        print("interrupted: run the same command to resume the batch", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0 if all(r.state == "SUCCESS" for r in record.runs) else EXIT_FAILED


def _keep(folder: Path, record: BatchRecord, driver: BatchDriver) -> None:
    """Save ``batch.json``, then the report; a write that fails leaves the last whole file
    and is remembered as the batch's storage problem (no report of a record not saved)."""
    try:
        record.save(folder)
        write_reports(folder, record)
    except OSError as exc:
        driver.storage = driver.storage or StorageProblem.of(exc)


def _finished(record: BatchRecord | None) -> int:
    runs = record.runs if record is not None else []
    return sum(1 for run in runs if run.status is RunStatus.FINISHED)


def _finished_in(folder: Path) -> int:
    """The finished runs ``batch.json`` in ``folder`` records (0 when it cannot be read)."""
    try:
        return _finished(load_batch(folder))
    except BatchFileError:
        return 0


def _engine(
    args: argparse.Namespace, driver: BatchDriver, progress: Any, cancel: threading.Event
) -> None:
    if args.engine == "ray":
        from orch_tui.core.batch.ray_engine import run_on_ray

        in_place = args.workspace is not None  # a worktree cannot travel in an archive
        run_on_ray(driver, args.jobs, args.address, progress.event, cancel, in_place)
    else:
        run_local(driver, args.jobs, progress.event, cancel)


def _progress(args: argparse.Namespace, record: Any) -> Any:
    if args.json:
        return JsonProgress()
    if sys.stdout.isatty():
        from orch_tui.tui.batch_progress import LiveTable

        return LiveTable(record)
    return LineProgress()


class LineProgress:
    """Without a terminal: one line each time a run changes."""

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def event(self, name: str, event: dict[str, Any]) -> None:
        return None

    def changed(self, run: RunRecord) -> None:
        tests = f" · {run.tests}" if run.tests else ""
        state = run.state or str(run.status)
        print(
            f"[{run.name}] {run.status}: {state} · attempt {run.attempts}{tests} · ${run.cost_usd:.4f}",
            flush=True,
        )


class JsonProgress(LineProgress):
    """``--json``: every run's events as JSON lines, with ``run`` naming the run.

    Standard output carries these lines only: while the batch runs, whatever else is printed
    to ``sys.stdout`` (Ray prints a dead worker's notice there) goes to standard error.
    """

    _lock = threading.Lock()

    def __init__(self) -> None:
        self._out = sys.stdout

    def __enter__(self) -> JsonProgress:
        self._out = sys.stdout
        sys.stdout = sys.stderr
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdout = self._out

    def event(self, name: str, event: dict[str, Any]) -> None:
        self._line({"run": name, **event})

    def changed(self, run: RunRecord) -> None:
        self._line({"run": run.name, "event": "batch_run", **run.to_json()})

    def _line(self, value: dict[str, Any]) -> None:
        with self._lock:
            print(json.dumps(value, ensure_ascii=False), file=self._out, flush=True)


def _compare(root: Path, first: str, second: str) -> int:
    try:
        batches = [load_batch(root / BATCHES_DIR / name) for name in (first, second)]
    except BatchFileError as exc:
        return _fail(str(exc))
    missing = [n for n, b in zip((first, second), batches, strict=True) if b is None]
    if missing:
        return _fail(f"no batch named {', '.join(missing)} in {root / BATCHES_DIR}")
    a, b = batches
    assert a is not None and b is not None
    print(compare_markdown(a, b), end="")
    return 0
