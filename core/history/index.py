"""The runs list: every run's summary, cached in ``logs/.index-9.sqlite`` so 100,000 list at once.

``logs/`` is the only truth (:mod:`~orch_tui.core.history.scan` summarises one run folder).
The index (:mod:`index_db`) keeps every run's summary with a signature of what it was
computed from: the size and mtime of ``events.jsonl`` and the mtime of the run folder (an
atomic rewrite or removal of ``run.json``/``spec.md`` changes it). A check stats each run
twice and summarises again only the runs whose signature changed, added or removed ones;
a missing or damaged index is made again, and a failed write leaves the index as it was
(it is a cache, never needed for a correct answer).

A launch shows the runs as the index recorded them at once, then checks the folders. The
folders are not listed when ``logs/`` is unchanged since a check found them to be the
index's (:mod:`logs_stamp`). Beyond :data:`FULL_CHECK_UP_TO` runs, it looks again only at
the runs a writer opened since (``logs/.opened-runs``), the unfinished ones and folders
added or removed.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import TypeVar

from orch_tui.core.history.index_db import (
    INDEX_NAME,
    SUMMARY_COLUMNS,
    Entry,
    IndexDb,
    forget_unused_specs,
    put_runs,
    remove_runs,
    set_meta,
)
from orch_tui.core.history.index_open import NewIndex, open_existing
from orch_tui.core.history.logs_stamp import stamp_now, unchanged_since_stamp, write_stamp
from orch_tui.core.history.scan import RunSummary, scan_run
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.opened_runs import Position, opened_position, opened_since, trim_opened
from orch_tui.core.util.records import record

_EVENTS_IN_FOLDER = os.sep + runlog.EVENTS
_T = TypeVar("_T")

PACE_EVERY = 250
"""Runs the check looks at between two calls of :func:`recorded_then_checked`'s ``pace``:
about 1 ms of its work."""
WRITE_BATCH = 500
"""Runs written in one transaction: the screen's queries wait for no longer."""
FULL_CHECK_UP_TO = 10_000
"""Up to this many runs, a launch's check looks at every folder (about 50 ms of CPU at
10,000). Beyond, it trusts the record of each finished run that no writer has opened since
(``logs/.opened-runs``): a file edited by hand in such a run shows once any full listing
(``orch-tui history`` without a terminal, or a deleted index) reads it again."""


@record(frozen=True)
class RunIndex:
    """The open index of ``logs/``: what a screen queries for the rows it shows
    (:mod:`run_query`)."""

    db: IndexDb
    checked: bool = True
    """False: the runs as the index recorded them, before any run folder was looked at."""
    changed: bool = True
    """False: the check found the runs as recorded (nothing to show again)."""

    @property
    def note(self) -> str | None:
        """Why the index is not kept on disk, when it is not."""
        return self.db.note

    def __len__(self) -> int:
        return self.db.count()

    def run(self, run_id: str) -> RunSummary | None:
        """The run with this id, if the index has it."""
        with self.db.lock:
            row = self.db.connection.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM runs WHERE run_id = ?", (run_id,)
            ).fetchone()
        return None if row is None else RunSummary(*row)

    @property
    def runs(self) -> list[RunSummary]:
        """Every run, newest first (a list of them all: for a reader of every run, such as
        ``orch-tui history`` without a terminal; a screen asks for a window)."""
        with self.db.lock:
            rows = self.db.connection.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM runs ORDER BY started DESC, run_id DESC"
            )
            return [RunSummary(*row) for row in rows]


def list_runs(logs: Path) -> list[RunSummary]:
    """Every run in ``logs``, newest first (damaged ones included, marked)."""
    return build_index(logs).runs


def build_index(logs: Path) -> RunIndex:
    """The index of ``logs`` with every run folder checked against it."""
    existing = open_existing(logs)
    if existing is not None:
        try:
            changed = _refresh(logs, existing, None, None, None)
            return RunIndex(existing, changed=changed)
        except sqlite3.DatabaseError:
            _discard(logs, existing)
    return RunIndex(_rebuilt(logs, None))


def recorded_then_checked(
    logs: Path, pace: Callable[[], object] | None = None
) -> Iterator[RunIndex]:
    """The runs as the index recorded them, when there is an index, then checked.

    The first is a list to show, and search, at once: the recorded list is what the check
    finds unless a run changed since. ``pace`` is called every :data:`PACE_EVERY` runs of
    the check: a UI's worker sleeps there, so that the check leaves the interpreter to the
    keys typed meanwhile.
    """
    existing = open_existing(logs)
    if existing is not None:
        yield RunIndex(existing, checked=False)
        try:
            untrusted: set[str] | None = None
            read_to: Position | None = None
            if existing.count() > FULL_CHECK_UP_TO:
                untrusted, read_to = _unsettled_or_reopened(logs, existing)
            if _holds(logs, existing, pace, untrusted):
                yield RunIndex(existing, changed=False)
                return
            changed = _refresh(logs, existing, pace, untrusted, read_to)
            yield RunIndex(existing, changed=changed)
            return
        except sqlite3.DatabaseError:  # damaged where the first look did not reach
            _discard(logs, existing)
    yield RunIndex(_rebuilt(logs, pace))


def _discard(logs: Path, db: IndexDb) -> None:
    db.close()
    (logs / INDEX_NAME).unlink(missing_ok=True)


def _signature(folder: str) -> str | None:
    """What a summary depends on, ``size:mtime:folder mtime``; None when the folder is gone."""
    try:
        folder_mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return None
    try:
        events = os.stat(folder + _EVENTS_IN_FOLDER)
    except OSError:
        return f"-1:-1:{folder_mtime}"
    return f"{events.st_size}:{events.st_mtime_ns}:{folder_mtime}"


def _run_folders(logs: Path) -> list[str]:
    try:
        with os.scandir(logs) as entries:
            return [
                entry.name
                for entry in entries
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []


def _unsettled_or_reopened(logs: Path, db: IndexDb) -> tuple[set[str] | None, Position | None]:
    """The recorded runs to look at again, the others trusted as recorded: those unfinished
    or damaged, and those opened since they were read; and how far into
    ``logs/.opened-runs`` that was read. None: every run (the file is not the one the index
    read)."""
    found = opened_since(logs, _opened_at(db))
    if found is None:
        return None, None
    opened, read_to = found
    return db.unsettled() | set(db.signatures(opened)), read_to


def _opened_at(db: IndexDb) -> Position:
    mark, offset = db.meta("opened_mark"), db.meta("opened_offset")
    if not isinstance(mark, str) or not isinstance(offset, int):
        return Position("", -1)
    return Position(mark, offset)


def _holds(
    logs: Path, db: IndexDb, pace: Callable[[], object] | None, untrusted: set[str] | None
) -> bool:
    """True when the run folders are the recorded ones, each with its recorded signature
    (only the ``untrusted`` runs' are looked at, when not None). The folders are not listed
    when ``logs/`` is unchanged since a check found them to be the index's; a check that
    lists them and finds them so stamps ``logs/`` for the next launch."""
    unchanged = unchanged_since_stamp(logs)
    stamp = None if unchanged else stamp_now(logs)
    if not unchanged and not _same_folders(logs, db.run_ids()):
        return False
    prefix = os.path.join(logs, "")
    for run_id, signature in _paced(db.signatures(untrusted).items(), pace):
        if signature != _signature(prefix + run_id):
            return False
    if stamp is not None:
        write_stamp(logs, stamp)  # the folders listed are the index's: next time, no listing
    return True


def _same_folders(logs: Path, known: set[str]) -> bool:
    """Whether ``logs``'s run folders are exactly the index's runs. (One ``os.listdir``, no
    ``stat``: a name the index does not know that is not a dot file has the folders looked
    at as :func:`_run_folders` does.)"""
    names = _listing(logs)
    unknown = names.difference(known)
    if any(not name.startswith(".") for name in unknown):
        names = set(_run_folders(logs))
        if not names.issubset(known):
            return False
    else:
        names.difference_update(unknown)  # logs/'s own files
    return len(names) == len(known)


def _listing(logs: Path) -> set[str]:
    """Every name in ``logs`` (none when it cannot be read)."""
    try:
        return set(os.listdir(logs))
    except OSError:
        return set()


def _paced(items: Iterable[_T], pace: Callable[[], object] | None) -> Iterator[_T]:
    """``items``, with ``pace`` called after every :data:`PACE_EVERY` of them."""
    for count, item in enumerate(items, start=1):
        yield item
        if pace is not None and count % PACE_EVERY == 0:
            pace()


def _refresh(
    logs: Path,
    db: IndexDb,
    pace: Callable[[], object] | None,
    untrusted: set[str] | None,
    read_to: Position | None,
) -> bool:
    """Summarise again the runs whose folder changed, add the new ones, remove the gone
    ones; whether anything changed. The index records how far into ``logs/.opened-runs``
    the runs were read: before the folders are (a run opened meanwhile is named after it),
    or where ``untrusted`` was read."""
    opened_at = opened_position(logs) if read_to is None else read_to
    names = _run_folders(logs)
    known = db.run_ids()
    stored = db.signatures(None if untrusted is None else untrusted & known)
    prefix = os.path.join(logs, "")
    fresh: list[Entry] = []
    for name in _paced(names, pace):
        if untrusted is not None and name in known and name not in untrusted:
            continue
        signature = _signature(prefix + name)
        if signature is None or stored.get(name) == signature:
            continue
        scanned = scan_run(prefix + name)
        fresh.append(Entry(signature, scanned.summary, scanned.spec_lower))
    fresh.sort(key=lambda entry: (entry.summary.started, entry.summary.run_id))
    gone = known.difference(names)
    if not fresh and not gone:
        return False
    try:
        _write(db, fresh, gone, trim_opened(logs, opened_at), pace)
    except sqlite3.OperationalError:  # read-only, full or locked: the rows shown stay right
        return _write_in_memory(db, fresh, gone, pace)
    return True


def _write(
    db: IndexDb,
    fresh: list[Entry],
    gone: set[str],
    opened_at: Position | None,
    pace: Callable[[], object] | None,
) -> None:
    """Write ``fresh`` and remove ``gone`` a batch a transaction, then record ``opened_at``
    (None: not yet, more batches follow)."""
    for start in range(0, len(fresh), WRITE_BATCH):
        with db.writing() as connection:
            put_runs(connection, islice(fresh, start, start + WRITE_BATCH))
        if pace is not None:
            pace()
    if opened_at is None:
        return
    with db.writing() as connection:
        remove_runs(connection, gone)
        forget_unused_specs(connection)
        set_meta(connection, "opened_mark", opened_at.mark)
        set_meta(connection, "opened_offset", opened_at.offset)


def _write_in_memory(
    db: IndexDb, fresh: list[Entry], gone: set[str], pace: Callable[[], object] | None
) -> bool:
    """The index copied into memory and changed there, when the file cannot be written."""
    memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    with db.lock:
        db.connection.backup(memory)
        db.connection.close()
        db.connection = memory
        db.note = f"{INDEX_NAME} cannot be written: the changes since it was are read each time"
    _write(db, fresh, gone, Position("", -1), pace)
    return True


def _rebuilt(logs: Path, pace: Callable[[], object] | None) -> IndexDb:
    """A new index of every run folder (written a batch at a time: no list of every run)."""
    new = NewIndex(logs)
    opened_at = opened_position(logs)
    prefix = os.path.join(logs, "")
    batch: list[Entry] = []
    for name in _paced(sorted(_run_folders(logs)), pace):  # ids start with their time
        signature = _signature(prefix + name)
        if signature is not None:
            scanned = scan_run(prefix + name)
            batch.append(Entry(signature, scanned.summary, scanned.spec_lower))
        if len(batch) == WRITE_BATCH:
            _write(new.db, batch, set(), None, None)
            batch = []
    _write(new.db, batch, set(), trim_opened(logs, opened_at), pace)
    return new.publish()
