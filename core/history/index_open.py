"""Opening ``logs/.index-9.sqlite``: an existing file checked, or a new one made under a temporary name.

The schema is here (see :mod:`index_db` for what the rows hold). A file that is of another
version, not a database or damaged where a first look reaches is removed (the caller makes
a new one); damage found later is handled where it is met (:mod:`index`, :mod:`run_query`).
A new index is renamed into place once made, so another process never opens one half made;
when ``logs/`` cannot be written it lives in memory, with a note saying so.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from orch_tui.core.history.index_db import (
    INDEX_NAME,
    INDEX_VERSION,
    IndexDb,
    remove_index_file,
    remove_older_indexes,
)

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE specs(id INTEGER PRIMARY KEY, digest INTEGER NOT NULL UNIQUE, text TEXT NOT NULL);
CREATE TABLE runs(
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    started TEXT NOT NULL, spec_path TEXT NOT NULL, spec_name TEXT NOT NULL,
    state TEXT NOT NULL, attempts INTEGER NOT NULL, duration_s REAL,
    tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, stop_reason TEXT, damaged TEXT,
    signature TEXT NOT NULL,
    spec INTEGER REFERENCES specs(id),
    label TEXT NOT NULL,
    spec_key TEXT NOT NULL,
    stop_key TEXT
);
CREATE INDEX runs_newest ON runs(started DESC, run_id DESC);
CREATE INDEX runs_spec ON runs(spec);
"""
"""``label``: the run's id and spec name in lowercase, on lines of their own (what a filter
finds a run by besides its spec text). ``spec_key`` and ``stop_key``: the spec name and the
stop reason as their columns sort (lowercase; an empty stop reason is NULL)."""

_FTS_TABLES = """
CREATE VIRTUAL TABLE specs_fts USING fts5(
    text, content='specs', content_rowid='id', tokenize='trigram case_sensitive 1');
CREATE VIRTUAL TABLE labels_fts USING fts5(
    label, content='runs', content_rowid='id', tokenize='trigram case_sensitive 1');
"""
_FTS_FILLED = """
INSERT INTO specs_fts(specs_fts) VALUES ('rebuild');
INSERT INTO labels_fts(labels_fts) VALUES ('rebuild');
CREATE INDEX specs_tail ON specs(substr(text, -2));
CREATE INDEX specs_end ON specs(substr(text, -1));
CREATE INDEX runs_tail ON runs(substr(label, -2));
CREATE INDEX runs_end ON runs(substr(label, -1));
CREATE TRIGGER specs_added AFTER INSERT ON specs BEGIN
    INSERT INTO specs_fts(rowid, text) VALUES (new.id, new.text); END;
CREATE TRIGGER specs_removed AFTER DELETE ON specs BEGIN
    INSERT INTO specs_fts(specs_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
CREATE TRIGGER runs_added AFTER INSERT ON runs BEGIN
    INSERT INTO labels_fts(rowid, label) VALUES (new.id, new.label); END;
CREATE TRIGGER runs_removed AFTER DELETE ON runs BEGIN
    INSERT INTO labels_fts(labels_fts, rowid, label) VALUES ('delete', old.id, old.label); END;
CREATE TRIGGER runs_changed AFTER UPDATE OF label ON runs BEGIN
    INSERT INTO labels_fts(labels_fts, rowid, label) VALUES ('delete', old.id, old.label);
    INSERT INTO labels_fts(rowid, label) VALUES (new.id, new.label); END;
"""
"""Trigram tables over texts already in lowercase (``case_sensitive 1``: no second folding):
a quoted word of three characters or more matches exactly the texts that hold it. A new
index fills them once its rows are written (:meth:`NewIndex.publish`), then keeps them with
the rows by triggers: filling them row by row was half of making an index. The indexes of
the texts' last one and two characters find, with the trigrams, a word of one or two
characters (:mod:`run_filter`): one that starts no trigram of a text is in its end."""


def fts5_available() -> bool:
    """Whether this interpreter's SQLite has FTS5 with the trigram tokenizer (3.34 and later)."""
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as probe:
            probe.execute("CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='trigram')")
    except sqlite3.Error:
        return False
    return True


def _connect(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA synchronous = OFF")  # a cache: a torn file is made again
    return connection


def open_existing(logs: Path) -> IndexDb | None:
    """The index file, or None when it is missing; one that is of another schema, not a
    database or damaged is removed (the caller makes a new one)."""
    path = logs / INDEX_NAME
    if not path.exists():
        return None
    try:
        connection = _connect(str(path))
    except sqlite3.Error:
        remove_index_file(path)
        return None
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        fts = connection.execute("SELECT value FROM meta WHERE key = 'fts'").fetchone()
        if version != INDEX_VERSION or fts is None:
            raise sqlite3.DatabaseError("not this version's index")
        if fts[0]:
            connection.execute("SELECT rowid FROM specs_fts WHERE specs_fts MATCH 'abc' LIMIT 1")
        connection.execute("SELECT count(*) FROM runs").fetchone()
    except sqlite3.Error:
        connection.close()
        remove_index_file(path)
        return None
    remove_older_indexes(logs)
    return IndexDb(connection, fts=bool(fts[0]), note=None, path=path)


class NewIndex:
    """A new index being made: under a temporary name in ``logs/`` until :meth:`publish`
    renames it into place (or in memory, when ``logs/`` cannot be written)."""

    def __init__(self, logs: Path) -> None:
        self._path = logs / INDEX_NAME
        self._temporary: Path | None = logs / f"{INDEX_NAME}.{os.getpid()}.tmp"
        fts = fts5_available()
        note = None
        try:
            if not logs.is_dir():
                raise OSError("no logs folder: nothing to keep")
            remove_index_file(self._temporary)
            connection = _connect(str(self._temporary))
            _create(connection, fts)
        except (sqlite3.Error, OSError):
            self._temporary = None
            if logs.is_dir():
                note = f"{logs} cannot be written: the runs list is not cached (every run is read each time)"
            connection = _connect(":memory:")
            _create(connection, fts)
        self.db = IndexDb(connection, fts=fts, note=note)

    def publish(self) -> IndexDb:
        """The index, its trigram tables filled, renamed into place and opened there (a
        failure to rename leaves it where it is)."""
        if self.db.fts:
            self.db.connection.executescript(f"BEGIN; {_FTS_FILLED} COMMIT;")
        if self._temporary is None:
            return self.db
        try:
            os.replace(self._temporary, self._path)
        except OSError:
            return self.db
        self.db.close()
        self.db = IndexDb(_connect(str(self._path)), fts=self.db.fts, note=None, path=self._path)
        remove_older_indexes(self._path.parent)
        return self.db


def _create(connection: sqlite3.Connection, fts: bool) -> None:
    connection.executescript(
        f"BEGIN; {_SCHEMA} {_FTS_TABLES if fts else ''}"
        f"INSERT INTO meta(key, value) VALUES ('fts', {int(fts)}), ('in_start_order', 1); "
        f"PRAGMA user_version = {INDEX_VERSION}; COMMIT;"
    )
