"""The index connection's lock: work that may be cut short gives way to the UI thread.

A filter's count over 100,000 runs (25-65 ms of SQLite) is made once typing pauses, on a
thread of its own so that the UI thread is free. It needs the one connection, whose temporary
tables (the matches, see :mod:`run_filter`) are that connection's alone, so it holds the
connection's lock all along: a key pressed meanwhile would wait for the count to end. Work
done under :meth:`IndexLock.giving_way` is cut short instead (SQLite's interrupt) when the UI
thread asks for the lock, and rolled back; the UI thread gets the lock within a few of
SQLite's steps. Any other holder (the folder check's writes) is waited for as a plain lock is.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType

INTERRUPT_EVERY_S = 0.002
"""How often the UI thread, waiting for the lock, interrupts again: an interrupt that lands
between two statements of the work is lost (SQLite forgets it once no statement runs)."""


def interrupted(error: sqlite3.Error) -> bool:
    """Whether ``error`` is a statement cut short by :meth:`IndexLock.giving_way`'s interrupt
    (nothing wrong with the index: the work is asked for again later)."""
    return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_INTERRUPT


class IndexLock:
    """A re-entrant lock over the connection ``connection()`` returns (the index's, which
    it may replace), used as ``with lock:``."""

    def __init__(self, connection: Callable[[], sqlite3.Connection]) -> None:
        self._lock = threading.RLock()
        self._connection = connection
        self._guard = threading.Lock()
        """Held while :attr:`_giving_way` is read or set: no interrupt is sent once the work
        that could take it is over (it would cut short the next holder's statement)."""
        self._giving_way = False
        self.ui_thread = threading.main_thread()
        """The thread whose wait cuts work short (Textual's app runs its loop on it)."""
        self.interrupts = 0
        """How many times the UI thread has interrupted work to take the lock."""

    def __enter__(self) -> IndexLock:
        if self._lock.acquire(blocking=False):
            return self
        if threading.current_thread() is not self.ui_thread:
            self._lock.acquire()
            return self
        while True:
            with self._guard:
                if self._giving_way:
                    self._connection().interrupt()
                    self.interrupts += 1
            if self._lock.acquire(timeout=INTERRUPT_EVERY_S):
                return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._lock.release()

    @contextmanager
    def giving_way(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock for work the UI thread may cut short: its statement then raises
        :func:`interrupted`, and what it left in a transaction is rolled back."""
        with self:
            with self._guard:
                self._giving_way = True
            try:
                yield self._connection()
            finally:
                with self._guard:
                    self._giving_way = False
                if self._connection().in_transaction:
                    self._connection().execute("ROLLBACK")
