"""``logs/.index-9.sqlite``: the runs list's cache as an SQLite database, its rows read and written.

One row per run (its summary, the signature it was computed from, its lowercase label and
the number of its lowercase spec text, each distinct text kept once), with an index in the
list's default order (newest first) and, where the interpreter's SQLite has FTS5, trigram
tables over the labels and spec texts so that a filter's word is found without reading
every run (see :mod:`run_filter`). A screen asks the database for the rows it shows; no
list of every run is held in memory. The file is opened, or made, by :mod:`index_open`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orch_tui.core.history.index_lock import IndexLock
from orch_tui.core.history.scan import RunSummary
from orch_tui.core.util.records import record

INDEX_VERSION = 9
INDEX_NAME = f".index-{INDEX_VERSION}.sqlite"
"""The file's name holds its version: a build leaves a later version's file alone, and
removes an earlier one's once its own is open (a user pays no disk for what is no longer read)."""
OLD_INDEX_NAMES = (".index.json", ".index-stamp")
"""Where versions 1-6 kept the index, and version 7's stamp: removed, with the files of
versions 7 and later before this one (:func:`remove_older_indexes`), once this one is open."""
"""9: the texts' last characters indexed, for words of one or two characters. 8: SQLite,
queried for the rows on screen. 7: one JSON file of columns, read whole."""

SUMMARY_COLUMNS = (
    "run_id, started, spec_path, spec_name, state, attempts, duration_s, tokens, cost_usd, "
    "stop_reason, damaged"
)
"""A :class:`RunSummary`'s fields as the ``runs`` table's columns, in its order (``resumable``
is not stored: it depends on ``state.json``)."""


@record
class Entry:
    """One run as the index keeps it: what its summary was computed from, the summary, and
    its spec's text in lowercase (None: no readable spec)."""

    signature: str
    summary: RunSummary
    spec: str | None


class IndexDb:
    """The open index: one connection, shared by a screen's worker and its UI thread under
    :attr:`lock` (each statement is short: a window of rows, a count, a batch of writes)."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        *,
        fts: bool,
        note: str | None,
        path: Path | None = None,
    ) -> None:
        self.connection = connection
        self.path = path
        """The file (None: in memory)."""
        self.fts = fts
        """Whether the trigram tables exist (else a filter uses ``instr`` over every run)."""
        self.note = note
        """Why the index is not on disk (``logs/`` read-only), to tell the person."""
        self.lock = IndexLock(lambda: self.connection)
        """Every use of :attr:`connection` holds it; a count holds it giving way to the UI."""
        self.views: object = None
        """What views of the index keep on its connection (:mod:`run_query`'s tables)."""
        self.generation = 0
        """Counts the writes: what was found before one is found again after it."""
        self._common: tuple[int, frozenset[str]] | None = None

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One transaction (a failed write is rolled back and raised)."""
        with self.lock:
            self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield self.connection
            except BaseException:
                self.connection.execute("ROLLBACK")
                raise
            self.connection.execute("COMMIT")
            self.generation += 1

    def common_grams(self) -> frozenset[str]:
        """The strings of up to :data:`COMMON_UP_TO` characters every spec text holds (or
        fewer: what a removed spec lacked is not added back)."""
        with self.lock:
            if self._common is None or self._common[0] != self.generation:
                self._common = (self.generation, frozenset(_common(self.connection) or ()))
            return self._common[1]

    def count(self) -> int:
        with self.lock:
            return int(self.connection.execute("SELECT count(*) FROM runs").fetchone()[0])

    def signatures(self, run_ids: Iterable[str] | None = None) -> dict[str, str]:
        """run id -> signature, of ``run_ids`` (None: every run)."""
        with self.lock:
            if run_ids is None:
                return dict(self.connection.execute("SELECT run_id, signature FROM runs"))
            found: dict[str, str] = {}
            for run_id in run_ids:
                row = self.connection.execute(
                    "SELECT signature FROM runs WHERE run_id = ?", (run_id,)
                ).fetchone()
                if row is not None:
                    found[run_id] = row[0]
            return found

    def unsettled(self) -> set[str]:
        """The runs that did not finish, and the damaged ones: a check looks at them again."""
        with self.lock:
            rows = self.connection.execute(
                "SELECT run_id FROM runs WHERE state NOT IN ('SUCCESS', 'FAILED') "
                "OR damaged IS NOT NULL"
            )
            return {run_id for (run_id,) in rows}

    def run_ids(self) -> set[str]:
        with self.lock:
            return {run_id for (run_id,) in self.connection.execute("SELECT run_id FROM runs")}

    def meta(self, key: str) -> object:
        with self.lock:
            row = self.connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else row[0]

    def remove_file(self) -> None:
        """Remove the file, damaged: the next launch makes it again."""
        if self.path is not None:
            remove_index_file(self.path)

    def close(self) -> None:
        with self.lock:
            self.connection.close()


_COLUMNS = f"{SUMMARY_COLUMNS}, signature, spec, label, spec_key, stop_key"
_SET = ", ".join(f"{column} = ?" for column in _COLUMNS.split(", "))


def put_runs(db: sqlite3.Connection, entries: Iterable[Entry]) -> None:
    """Add or replace these runs (inside a transaction). A run replaced keeps its row; a
    run added that is not the newest, or replaced with another start time, records that the
    rows' order is no longer newest last (see :func:`rows_in_start_order`)."""
    common = _common(db)
    widest = read_widest(db) or {"names": []}
    in_order = rows_in_start_order(db)
    last = db.execute("SELECT started, run_id FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    for entry in entries:
        run = entry.summary
        _widen(widest, run)
        spec = None
        if entry.spec is not None:
            spec, new = _spec_number(db, entry.spec)
            if new:
                common = _grams(entry.spec) if common is None else _held(common, entry.spec)
        values = (
            *run[:11],
            entry.signature,
            spec,
            f"{run.run_id}\n{run.spec_name}".lower(),
            run.spec_name.lower(),
            (run.stop_reason or "").lower() or None,
        )
        old = db.execute("SELECT id, started FROM runs WHERE run_id = ?", (run.run_id,)).fetchone()
        if old is not None:
            db.execute(f"UPDATE runs SET {_SET} WHERE id = ?", (*values, old[0]))
            in_order = in_order and old[1] == run.started
            continue
        if last is not None and (run.started, run.run_id) <= tuple(last):
            in_order = False
        last = (run.started, run.run_id)
        db.execute(f"INSERT INTO runs({_COLUMNS}) VALUES ({', '.join('?' * len(values))})", values)
    if common is not None:
        set_meta(db, "common_grams", "\0".join(sorted(common)))
    set_meta(db, "in_start_order", int(in_order))
    set_meta(db, "widest", json.dumps(widest))


WIDE_FIELDS = ("attempts", "duration_s", "tokens", "cost_usd")
"""The number columns whose largest value sets their width."""


def read_widest(db: sqlite3.Connection) -> dict[str, Any] | None:
    """The largest value of each of :data:`WIDE_FIELDS` and the longest spec names (each
    at least half as long as the longest) of every run written, for the list's column
    widths without a pass over the runs; None when not recorded. (A run removed leaves them
    as they were: the columns only widen.)"""
    row = db.execute("SELECT value FROM meta WHERE key = 'widest'").fetchone()
    try:
        widest = json.loads(row[0]) if row is not None else None
    except (TypeError, ValueError):
        return None
    return widest if isinstance(widest, dict) and isinstance(widest.get("names"), list) else None


def _widen(widest: dict[str, Any], run: RunSummary) -> None:
    for field in WIDE_FIELDS:
        value = getattr(run, field) or 0
        if value > widest.get(field, 0):
            widest[field] = value
    names: list[str] = widest["names"]
    name, longest = run.spec_name, max(map(len, names), default=0)
    if len(name) * 2 >= longest and name not in names:
        names.append(name)
        if len(name) > longest:
            names[:] = [kept for kept in names if len(kept) * 2 >= len(name)]


def rows_in_start_order(db: sqlite3.Connection) -> bool:
    """Whether the runs' row numbers go up with (start time, run id), oldest first: a set of
    runs is then newest first in descending row numbers, with no sort (a filter's matches
    over 100,000 runs take 10,000 random reads to sort by start time)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'in_start_order'").fetchone()
    return row is not None and row[0] == 1


def _common(db: sqlite3.Connection) -> set[str] | None:
    """The strings every spec text holds, as recorded; None before any spec."""
    row = db.execute("SELECT value FROM meta WHERE key = 'common_grams'").fetchone()
    if row is None or not isinstance(row[0], str):
        return None
    return set(row[0].split("\0")) - {""}


COMMON_UP_TO = 8
"""The longest strings recorded as held by every spec text."""


def _grams(text: str) -> set[str]:
    """Every string of up to :data:`COMMON_UP_TO` characters in ``text`` (but those with a
    NUL, the separator)."""
    return {
        text[start : start + size]
        for size in range(1, COMMON_UP_TO + 1)
        for start in range(len(text) - size + 1)
        if "\0" not in text[start : start + size]
    }


def _held(common: set[str], text: str) -> set[str]:
    """The strings of ``common`` that ``text`` holds too (a few checks once they are few)."""
    return {gram for gram in common if gram in text}


def _spec_number(db: sqlite3.Connection, text: str) -> tuple[int, bool]:
    """The number of ``text`` among the spec texts, added when new (found by a 64-bit digest
    of it, so that no index holds the texts twice); and whether it is new."""
    digest = _digest(text)
    row = db.execute("SELECT id, text FROM specs WHERE digest = ?", (digest,)).fetchone()
    if row is not None and row[1] == text:
        return int(row[0]), False
    if row is not None:  # two texts, one digest: the newer one keeps it
        db.execute("UPDATE runs SET spec = NULL WHERE spec = ?", (row[0],))
        db.execute("DELETE FROM specs WHERE id = ?", (row[0],))
    inserted = db.execute("INSERT INTO specs(digest, text) VALUES (?, ?)", (digest, text))
    return int(inserted.lastrowid or 0), True


def _digest(text: str) -> int:
    return int.from_bytes(
        hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True
    )


def remove_runs(db: sqlite3.Connection, run_ids: Iterable[str]) -> None:
    """Remove these runs, and the spec texts no run points to any more (inside a transaction)."""
    db.executemany("DELETE FROM runs WHERE run_id = ?", ((run_id,) for run_id in run_ids))


def forget_unused_specs(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM specs WHERE id NOT IN (SELECT spec FROM runs WHERE spec IS NOT NULL)")


def set_meta(db: sqlite3.Connection, key: str, value: object) -> None:
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))


def remove_index_file(path: Path) -> None:
    """Remove the index file at ``path`` and its journal, if there."""
    for each in (path, path.with_name(path.name + "-journal")):
        with contextlib.suppress(OSError):
            each.unlink()


_OLDER_INDEX = re.compile(r"\.index-([0-9]+)\.(?:sqlite(?:-wal|-shm|-journal)?|json|stamp)")
"""An index file of version N as versions 7 and later name it: the database (or version 7's
JSON), its journals, and its stamp (:mod:`logs_stamp`)."""


def remove_older_indexes(logs: Path) -> None:
    """Remove, from ``logs``, the index files of the versions before this one: no build of
    this version reads them again, and at 100,000 runs each is about 100 MB. Only names of
    our own making are touched; a file that cannot be removed is left where it is."""
    try:
        names = [entry.name for entry in os.scandir(logs) if entry.name.startswith(".index")]
    except OSError:
        return
    for name in names:
        older = _OLDER_INDEX.fullmatch(name)
        if name in OLD_INDEX_NAMES or (older is not None and int(older[1]) < INDEX_VERSION):
            with contextlib.suppress(OSError):
                (logs / name).unlink()
