"""A few reused threads that run calls and hand back each one's outcome: the fsyncs' pool.

``concurrent.futures``' pool would do, but importing it imports ``logging`` (with
``traceback``, ``textwrap`` and ``string``): a few milliseconds of every ``--auto`` run's start
before its first model request (issue 26, item 6), where the first state is written. This
pool keeps what the fsyncs use of it: a thread is started only when none is idle, up to a
limit, and lives as long as the process (a daemon: every fsync is waited for by the one who
asked for it, or by :func:`.atomic.settle`, which also runs at the interpreter's exit).
"""

from __future__ import annotations

import threading
from _queue import SimpleQueue  # queue's own: without queue.py's Queue classes and heapq
from collections.abc import Callable
from typing import Any


class Outcome:
    """One call's result: :meth:`wait` returns once it has run, or raises what it raised."""

    __slots__ = ("_done", "_error")

    def __init__(self) -> None:
        self._done = threading.Event()
        self._error: BaseException | None = None

    def wait(self) -> None:
        self._done.wait()
        if self._error is not None:
            raise self._error

    def finish(self, error: BaseException | None) -> None:
        self._error = error
        self._done.set()


class WorkerThreads:
    """Up to ``most`` threads named ``name-N``, started as the calls need them."""

    def __init__(self, most: int, name: str) -> None:
        self._most = most
        self._name = name
        self._calls: SimpleQueue[
            tuple[Outcome, Callable[..., Any], tuple[Any, ...], dict[str, Any]]
        ] = SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._started = 0
        self._lock = threading.Lock()

    def submit(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
        outcome = Outcome()
        self._calls.put((outcome, call, args, kwargs))
        if not self._idle.acquire(blocking=False):  # no thread waiting: start one, if allowed
            with self._lock:
                if self._started < self._most:
                    self._started += 1
                    name = f"{self._name}-{self._started}"
                    threading.Thread(target=self._work, name=name, daemon=True).start()
        return outcome

    def _work(self) -> None:
        while True:
            outcome, call, args, kwargs = self._calls.get()
            error = None
            try:
                call(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to the one who waits for it
                error = exc
            outcome.finish(error)
            del outcome, call, args, kwargs, error
            self._idle.release()
