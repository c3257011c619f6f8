"""The runs a filter's words match, found in the index once per query and kept as a table.

A run matches when its id, spec name or spec text holds every word (any case). A word of
three characters or more is looked up in the trigram tables (when SQLite has FTS5). A
shorter one is held by a text exactly when it starts one of the text's trigrams or lies in
its last two characters: it is found through the trigrams the tables' vocabulary lists
under it and the indexes of the texts' ends (:func:`_short_word_select`), unless those
trigrams are in so many texts that merging them costs more than ``instr`` over the labels
and the distinct spec texts, which is also the way without FTS5. A word that every
run holds filters nothing and is not searched for at all: for a short word, when it is one
of the characters or pairs every spec text holds (kept in the index, see
:func:`~orch_tui.core.history.index_db.put_runs`); for a longer one, when the trigram table
finds it in every spec. Typing a run's first keys (``t``, ``ta``) over 100,000 runs then
costs a count, not a pass over every run.

The runs a query matches are written once into a temporary table (:class:`Matches`), which
the view counts and reads its pages through; the last few queries' tables are kept. (A
common word's first page, newest first, is found before that among the newest runs, see
:meth:`~orch_tui.core.history.run_query.RunView.head`.)
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections import OrderedDict

from orch_tui.core.history.index_db import COMMON_UP_TO, IndexDb

KEPT = 4
"""Queries whose matches stay in a table (the view on screen, and the one before)."""


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


_TOP = chr(0x10FFFF)
"""Sorts after every character a text can hold: ``[word, word + _TOP)`` is what starts with it."""
SHORT_WORD_TEXTS = 60_000
"""How many texts, counted per trigram, a word of 1-2 characters is looked up through at most:
beyond it, merging the trigrams' lists costs more than reading every text (at 100,000 runs,
in-process at load 4: ``q``, 54,000 runs through two trigrams, 26 ms against 70 ms of
``instr``; ``7``, 64,000 runs through 400 trigrams, 77 against 67 ms)."""
_VOCABULARY = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.{0}_terms USING fts5vocab(main, {0}_fts, row)"
)


def _trigrams_under(connection: sqlite3.Connection, word: str) -> dict[str, list[str]] | None:
    """The trigrams of the spec texts' and the labels' vocabularies that start with ``word``
    (None: they are in more than :data:`SHORT_WORD_TEXTS` texts together; the vocabulary
    counts each one's texts as it is read, so it is read no further)."""
    found: dict[str, list[str]] = {}
    texts = 0
    for table in ("specs", "labels"):
        connection.execute(_VOCABULARY.format(table))
        found[table] = []
        for term, holding in connection.execute(
            f"SELECT term, doc FROM temp.{table}_terms WHERE term >= ? AND term < ?",
            (word, word + _TOP),
        ):
            texts += holding
            if texts > SHORT_WORD_TEXTS:
                return None
            found[table].append(term)
    return found


_INSTANCES = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.{0}_at USING fts5vocab(main, {0}_fts, instance)"
)


def under_no_trigram(connection: sqlite3.Connection, word: str) -> bool:
    """Whether no trigram of the spec texts or the labels starts with ``word`` (of one or two
    characters): only texts ending with it hold it (``z``, ``zq`` at 100,000 runs: none).
    Asked of the ``instance`` vocabulary, which answers without reading a trigram's list of
    texts (the ``row`` one counts them: 2-4 ms for ``q``, against 0.15-0.3 ms)."""
    for table in ("specs", "labels"):
        connection.execute(_INSTANCES.format(table))
        if connection.execute(
            f"SELECT 1 FROM temp.{table}_at WHERE term >= ? AND term < ? LIMIT 1",
            (word, word + _TOP),
        ).fetchone():
            return False
    return True


def _short_word_select(connection: sqlite3.Connection, word: str) -> tuple[str, list[str]] | None:
    """A ``SELECT`` of the ids of the runs that hold ``word`` of one or two characters, through
    the trigrams that start with it and the texts' last characters (``specs_tail`` and the
    like: a text ends with ``word``, or, for one character, holds it in its last two); None
    when the trigrams are too common to be worth it."""
    trigrams = _trigrams_under(connection, word)
    if trigrams is None:
        return None
    if len(word) == 2:
        ends = "substr({0}, -2) = ?"
        params = [word]
    else:
        ends = "substr({0}, -2) >= ? AND substr({0}, -2) < ? OR substr({0}, -1) = ?"
        params = [word, word + _TOP, word]
    parts = [
        f"SELECT r.id FROM specs s JOIN runs r ON r.spec = s.id WHERE {ends.format('s.text')}",
        f"SELECT id FROM runs WHERE {ends.format('label')}",
    ]
    found = [*params, *params]
    for table, select in (
        ("specs", "SELECT r.id FROM specs_fts f JOIN runs r ON r.spec = f.rowid"),
        ("labels", "SELECT rowid FROM labels_fts"),
    ):
        terms = trigrams[table]
        if terms:
            parts.append(f"{select} WHERE {table}_fts MATCH ?")
            found.append(" OR ".join(map(_quoted, terms)))
    return " UNION ALL ".join(parts), found


def _word_select(connection: sqlite3.Connection, word: str, fts: bool) -> tuple[str, list[str]]:
    """A ``SELECT`` of the ids of the runs that hold ``word``, and its parameters."""
    short = _short_word_select(connection, word) if fts and len(word) < 3 else None
    if short is not None:
        return short
    if fts and len(word) >= 3:
        return (
            "SELECT r.id FROM specs_fts f JOIN runs r ON r.spec = f.rowid "
            "WHERE specs_fts MATCH ? "
            "UNION ALL SELECT rowid FROM labels_fts WHERE labels_fts MATCH ?",
            [_quoted(word), _quoted(word)],
        )
    return (
        "SELECT id FROM runs WHERE instr(label, ?) "
        "OR spec IN (SELECT id FROM specs WHERE instr(text, ?))",
        [word, word],
    )


class Matches:
    """The temporary tables of the last :data:`KEPT` queries' matches, on ``db``'s connection."""

    def __init__(self, db: IndexDb) -> None:
        self._db = db
        self._tables: OrderedDict[tuple[int, tuple[str, ...]], str | None] = OrderedDict()
        self._made = 0

    def words(self, query: str) -> tuple[int, tuple[str, ...]]:
        """The index's state and the words of ``query`` that filter (not held by every run):
        two queries with the same match the same runs."""
        words = dict.fromkeys(query.lower().split())
        with self._db.lock:
            return self._db.generation, tuple(word for word in words if not self._everywhere(word))

    def made(self, key: tuple[int, tuple[str, ...]]) -> bool:
        """Whether the table of the matches of a query whose :meth:`words` are ``key`` is made
        (kept from an earlier ask)."""
        return key in self._tables

    def rare(self, words: tuple[str, ...]) -> bool:
        """Whether one of ``words`` (:meth:`words`) is of one or two characters and under no
        trigram (:func:`under_no_trigram`): their matches are few, their table quick."""
        if not self._db.fts:
            return False
        with self._db.lock:
            connection = self._db.connection
            return any(len(w) < 3 and under_no_trigram(connection, w) for w in words)

    def table(self, query: str) -> str | None:
        """The name of the table of the ids of the runs that match ``query`` (None: every
        run does). Made the first time a query is asked for in the index's current state."""
        with self._db.lock:  # a count's thread and the UI thread both ask
            key = self.words(query)
            if key in self._tables:
                self._tables.move_to_end(key)
                return self._tables[key]
            name = self._made_table(list(key[1]))
            self._tables[key] = name
            while len(self._tables) > KEPT:
                _key, dropped = self._tables.popitem(last=False)
                if dropped is not None:
                    self._drop(dropped)
            return name

    def _made_table(self, words: list[str]) -> str | None:
        """A table of the runs holding every word: the first word's, then narrowed by each
        of the others; made in one transaction, so a count cut short leaves no table behind
        (see :mod:`index_lock`)."""
        if not words:
            return None
        self._made += 1
        name = f"temp.matches_{id(self)}_{self._made}"
        connection = self._db.connection
        connection.execute("BEGIN")
        try:
            connection.execute(f"CREATE TABLE {name}(id INTEGER PRIMARY KEY)")
            first, params = _word_select(connection, words[0], self._db.fts)
            connection.execute(f"INSERT OR IGNORE INTO {name} {first}", params)
            for word in words[1:]:
                select, params = _word_select(connection, word, self._db.fts)
                connection.execute(f"DELETE FROM {name} WHERE id NOT IN ({select})", params)
            connection.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):  # else rolled back by the lock
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
            raise
        return name

    def _everywhere(self, word: str) -> bool:
        """Whether every run holds ``word`` in its spec text (so it filters nothing): read
        from the strings every spec holds, up to :data:`COMMON_UP_TO` characters; a longer
        word whose start is among them is looked up."""
        connection = self._db.connection
        if connection.execute("SELECT 1 FROM runs WHERE spec IS NULL LIMIT 1").fetchone():
            return False
        common = self._db.common_grams()
        if len(word) <= COMMON_UP_TO or not self._db.fts:
            return word in common
        if word[:COMMON_UP_TO] not in common:
            return False
        specs = connection.execute("SELECT count(*) FROM specs").fetchone()[0]
        holding = connection.execute(
            "SELECT count(*) FROM specs_fts WHERE specs_fts MATCH ?", (_quoted(word),)
        ).fetchone()[0]
        return bool(specs) and holding == specs

    def _drop(self, name: str) -> None:
        try:
            with self._db.lock:
                self._db.connection.execute(f"DROP TABLE IF EXISTS {name}")
        except sqlite3.Error:
            pass
