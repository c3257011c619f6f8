"""The Ray engine: each run a Ray task with one CPU, on a local Ray or an existing cluster.

``pip install 'orch-tui[ray]'``. A task gets the run's folder as a tar archive, runs the spec
there (resuming from the run's own ``state.json``), and sends the folder back as an archive, so
nothing needs storage shared between the nodes: the batch folder on this machine is the truth.
A task whose worker or node dies is retried by Ray from the archive it was given. The run's
events come back as they happen through a Ray queue, which the driver drains between its
waits: the live table and ``--json`` see them as under the local engine.

With ``--workspace`` a run's folder holds a git worktree of the person's repository, which
lives on this machine and cannot travel in an archive: the task then runs in the batch folder
itself, so every node must see it (a local Ray, or nodes sharing the storage). A node that
does not stops the batch, naming the node and the folder.
"""

from __future__ import annotations

import io
import logging
import os
import socket
import tarfile
import tempfile
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from orch_tui.core.batch.driver import BatchDriver
from orch_tui.core.batch.run_one import EXIT_INTERRUPTED, RunTask, run_in_folder
from orch_tui.core.batch.specs import BatchError
from orch_tui.core.batch.worktrees import WORKTREE

INSTALL_HINT = "the ray engine needs Ray: pip install 'orch-tui[ray]'"
EXIT_NOT_HERE = -1000
"""A task in place on a node that cannot see the batch folder (no process exit code is this)."""
TASK_RETRIES = 3
CONNECT_TIMEOUT_S = 5

log = logging.getLogger(__name__)


class EventSink(Protocol):
    """Where a task puts ``(run name, event)``: a ``ray.util.queue.Queue`` the driver drains."""

    def put(self, item: Any) -> None: ...


def _forwarding(sink: EventSink, name: str) -> Callable[[dict[str, Any]], None]:
    """The run's events to the driver; a sink that is gone (its actor died) drops them, since
    a run matters more than its progress lines."""

    def forward(event: dict[str, Any]) -> None:
        try:
            sink.put((name, event))
        except Exception:  # Ray raises its own errors for a dead actor or a lost connection
            log.warning("the batch's event queue is gone; %s's events are not forwarded", name)

    return forward


def pack(folder: Path) -> bytes:
    """``folder`` as a gzipped tar archive (its contents, relative to it)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=".")
    return buffer.getvalue()


def unpack(data: bytes, folder: Path) -> None:
    """Put an archive made by :func:`pack` into ``folder``, refusing any member outside it."""
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        archive.extractall(folder, filter="data")


def run_packed(task: RunTask, archive: bytes, events: EventSink) -> tuple[int, bytes]:
    """On a Ray worker: unpack the run's folder, run it, pack it again."""
    with tempfile.TemporaryDirectory(prefix="orch-batch-") as scratch:
        folder = Path(scratch) / task.name
        unpack(archive, folder)
        local = RunTask(task.name, folder, task.options)
        code = run_in_folder(local, _forwarding(events, task.name), threading.Event())
        return code, pack(folder)


def run_in_place(task: RunTask, events: EventSink) -> tuple[int, str]:
    """On a Ray worker that sees the batch folder: run there; a retried task resumes there.
    ``(exit code, "")``, or ``(EXIT_NOT_HERE, node)`` when this node cannot see the folder."""
    if not (task.folder / WORKTREE / ".git").exists():
        return EXIT_NOT_HERE, socket.gethostname()
    return run_in_folder(task, _forwarding(events, task.name), threading.Event()), ""


def _check_reachable(address: str) -> None:
    """Fail within seconds when nothing listens at ``host:port`` (Ray itself waits minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # "auto" and other forms Ray resolves itself
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise BatchError(
            f"cannot reach a Ray cluster at {address}: {exc}; nothing was started"
        ) from None


def _connect(address: str | None) -> Any:
    try:
        import ray
    except ImportError:
        raise BatchError(INSTALL_HINT) from None
    target = address or os.environ.get("RAY_ADDRESS")
    if target:
        _check_reachable(target)
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, TimeoutError...
        where = address or "a local Ray instance"
        raise BatchError(f"cannot reach {where}: {exc}") from None
    return ray


def run_on_ray(
    driver: BatchDriver,
    jobs: int,
    address: str | None,
    on_event: Callable[[str, dict[str, Any]], None],
    cancel: threading.Event,
    in_place: bool = False,
) -> None:
    """Run the driver's runs as Ray tasks, ``jobs`` at a time; each folder comes back whole,
    or with ``in_place`` (``--workspace``) each task works in the batch folder itself."""
    ray = _connect(address)
    from ray.util.queue import Queue

    events = Queue(actor_options={"num_cpus": 0})
    options = {"num_cpus": 1, "max_retries": TASK_RETRIES}
    remote = ray.remote(**options)(run_in_place if in_place else run_packed)
    running: dict[Any, RunTask] = {}
    try:
        while True:
            while len(running) < jobs and not cancel.is_set():
                task = driver.next_task()
                if task is None:
                    break
                task = replace(task, folder=task.folder.resolve())  # the same path on a node
                args = (task, events) if in_place else (task, pack(task.folder), events)
                running[remote.remote(*args)] = task
            if not running:
                return
            done, _ = ray.wait(list(running), num_returns=1, timeout=0.5)
            # A task puts its events before it returns: a finished run's are all here by now.
            for name, event in events.get_nowait_batch(events.qsize()):
                on_event(name, event)
            for ref in done:
                task = running.pop(ref)
                code, back = ray.get(ref)
                if code == EXIT_NOT_HERE:
                    _stop(ray, driver, {**running, ref: task})
                    raise BatchError(
                        f"--workspace with --engine ray runs each task in the batch folder, and "
                        f"the Ray node {back} cannot see {task.folder}: use --engine local, or "
                        "nodes that share this storage"
                    )
                if not in_place:
                    unpack(back, task.folder)
                driver.finish(task, code)
            if cancel.is_set():
                _stop(ray, driver, running)
                return
    finally:
        ray.shutdown()


def _stop(ray: Any, driver: BatchDriver, running: dict[Any, RunTask]) -> None:
    """Cancel the running tasks; each run is recorded interrupted (the next batch resumes it)."""
    for ref in running:
        ray.cancel(ref, force=True)
    for task in running.values():
        driver.finish(task, EXIT_INTERRUPTED)
