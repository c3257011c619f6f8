"""Runs sorted by a column and filtered as a person types, asked of the index a window at a time.

A query matches the runs whose id, spec name or spec text holds every word of it, in any
case (:mod:`run_filter`); the order is the index's own (newest first) or an ``ORDER BY``
made once per column. :class:`RunView` counts the runs and reads the rows asked for,
a page at a time: a keystroke over 100,000 runs reads the screenful it shows, not the runs.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import overload

from orch_tui.core.history.index import RunIndex
from orch_tui.core.history.index_db import (
    INDEX_NAME,
    SUMMARY_COLUMNS,
    WIDE_FIELDS,
    IndexDb,
    read_widest,
    rows_in_start_order,
)
from orch_tui.core.history.index_lock import interrupted
from orch_tui.core.history.run_filter import Matches
from orch_tui.core.history.scan import RunSummary

SORT_KEYS: dict[str, str] = {
    "started": "started",
    "run_id": "run_id",
    "spec": "spec_key",
    "state": "CASE WHEN damaged IS NOT NULL THEN 'DAMAGED' ELSE state END",
    "attempts": "attempts",
    "duration": "duration_s",
    "tokens": "tokens",
    "cost": "cost_usd",
    "stop_reason": "stop_key",
}
"""The columns runs can be sorted by, and what each sorts on."""
_MAYBE_EMPTY = {"duration", "stop_reason"}


def order_by(column: str, descending: bool) -> str:
    """``ORDER BY``'s terms for ``column``: empty values go last either way, and ties keep
    newest first."""
    try:
        key = SORT_KEYS[column]
    except KeyError:
        raise ValueError(f"unknown column {column!r}; one of {', '.join(SORT_KEYS)}") from None
    if column == "started" and descending:
        return "started DESC, run_id DESC"  # the index's own order
    empty_last = f"{key} IS NULL, " if column in _MAYBE_EMPTY else ""
    return f"{empty_last}{key} {'DESC' if descending else 'ASC'}, started DESC, run_id DESC"


PAGE = 64
"""Rows read at once: a screenful and more, so that scrolling a line reads nothing."""
PAGES_KEPT = 8
HEAD_FROM = 400
"""How many of the newest runs :meth:`RunView.head` looks through for a first page: a word
in one run of 6 or more fills it (``q``, in half of them, from about 130), a rarer one is
left to its table, which the trigram indexes make quickly (the look costs such a word
about 0.5 ms at 100,000 runs; through 1,000 runs it was 1.1 ms)."""


class Orders:
    """The runs in each order but the index's own, as temporary tables of ids whose rowid is
    the position: sorting 100,000 runs for every page read was a second a page; this is one
    sort per order (about 0.1 s), made again after the index changes."""

    def __init__(self, db: IndexDb) -> None:
        self._db = db
        self._tables: dict[tuple[str, bool], tuple[int, str]] = {}

    def table(self, column: str, descending: bool) -> str:
        with self._db.lock:
            made = self._tables.get((column, descending))
            if made is not None and made[0] == self._db.generation:
                return made[1]
            name = f"temp.order_{id(self)}_{column}_{'desc' if descending else 'asc'}"
            connection = self._db.connection
            connection.execute(f"DROP TABLE IF EXISTS {name}")
            connection.execute(f"CREATE TABLE {name}(id INTEGER NOT NULL)")
            connection.execute(
                f"INSERT INTO {name}(id) SELECT id FROM runs "
                f"ORDER BY {order_by(column, descending)}"
            )
            self._tables[(column, descending)] = (self._db.generation, name)
            return name


def _tables(db: IndexDb) -> tuple[Matches, Orders]:
    """The filter and order tables made on ``db``'s connection, shared by its views (kept on
    the index: they go, and its connection closes, when the index is let go)."""
    with db.lock:
        if not isinstance(db.views, tuple):
            db.views = (Matches(db), Orders(db))
        return db.views


_ROW = ", ".join(f"r.{column}" for column in SUMMARY_COLUMNS.split(", "))
_NEWEST_FIRST = "ORDER BY r.started DESC, r.run_id DESC"


class RunView(Sequence[RunSummary]):
    """The runs matching ``query`` in one order, read from the index when asked for.

    ``resumable``: the id of the run to mark resumable (at most one run can be, see
    :mod:`resume`). :attr:`fetched` counts the rows read from the index."""

    def __init__(
        self,
        index: RunIndex,
        column: str = "started",
        descending: bool = True,
        query: str = "",
        resumable: str | None = None,
    ) -> None:
        order_by(column, descending)  # an unknown column is refused now
        self._db = index.db
        self._sort = (column, descending)
        self._query = query
        self._resumable = resumable
        self._made: tuple[str | None, str | None] | None = None
        self._generation = self._db.generation
        """The index's state when the view was made, then when its tables were."""
        self._count: int | None = None
        self._pages: OrderedDict[int, list[RunSummary]] = OrderedDict()
        self.fetched = 0

    def _sources(self) -> tuple[str | None, str | None]:
        """The table of the matches (None: every run) and of the order (None: newest
        first, the index's own)."""
        if self._made is None:
            self._generation = self._db.generation
            matches, orders = _tables(self._db)
            try:
                matched = matches.table(self._query)
                ordered = None if self._sort == ("started", True) else orders.table(*self._sort)
            except sqlite3.DatabaseError as error:
                if interrupted(error):
                    raise
                self._damaged()
                matched, ordered = "temp.no_runs", None
                self._rows("CREATE TABLE IF NOT EXISTS temp.no_runs(id INTEGER PRIMARY KEY)", ())
            self._made = (matched, ordered)
        return self._made

    def same_rows(self, other: RunView) -> bool:
        """Whether ``other`` lists the same runs in the same order: the same index in the
        same state, order, resumable run and filtering words (a word that every run holds,
        as the first keys of most words are, leaves the list as it was); no table is made."""
        if self._db is not other._db or (self._sort, self._resumable) != (
            other._sort,
            other._resumable,
        ):
            return False
        matches, _orders = _tables(self._db)
        return (
            self._generation == other._generation
            and matches.words(self._query)[1] == matches.words(other._query)[1]
        )

    def head(self) -> list[RunSummary] | None:
        """The first page of a filtered list newest first, found among the newest
        :data:`HEAD_FROM` runs without collecting every match (a common word's table is
        most of a key's time at 100,000 runs); the count waits for :func:`len`. None: the
        list is in another order, unfiltered, its table made already, a word of it short and
        under no trigram (``z``: not looked for), or its first page is not within those runs
        (then the table is the way)."""
        matches, _orders = _tables(self._db)
        if self._sort != ("started", True) or self._made is not None:
            return None
        key = matches.words(self._query)
        if matches.made(key):
            return None
        words = key[1]
        if not words or matches.rare(words):
            return None  # a short word under no trigram: its few runs are no page to look for
        holds = " AND ".join(["(instr(r.label, ?) OR instr(s.text, ?))"] * len(words))
        rows = self._rows(
            f"SELECT {SUMMARY_COLUMNS} FROM (SELECT {_ROW}, {holds} AS hit FROM runs r "
            f"LEFT JOIN specs s ON s.id = r.spec {_NEWEST_FIRST} LIMIT ?) WHERE hit LIMIT ?",
            [*(word for word in words for _label_or_text in "ls"), HEAD_FROM, PAGE],
        )
        if len(rows) < PAGE:
            return None
        page = [self._summary(row) for row in rows]
        self.fetched += len(page)
        self._pages[0] = page
        return page

    def _damaged(self) -> None:
        if self._db.note is None:
            self._db.note = f"{INDEX_NAME} is damaged: it is made again at the next launch"
            self._db.remove_file()

    def _rows(self, sql: str, params: Sequence[object]) -> list[tuple[object, ...]]:
        """The rows of a query; none when the index proves damaged (it is removed, so the next
        launch makes it again, and :attr:`IndexDb.note` says so)."""
        with self._db.lock:
            try:
                return self._db.connection.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as error:
                if interrupted(error):
                    raise
                self._damaged()
                return []

    def count_giving_way(self) -> int | None:
        """:func:`len` of this view, made off the UI thread: the UI thread, asking for the
        index meanwhile (a key), cuts it short and gets the index at once (None: cut short,
        nothing of it kept; see :mod:`index_lock`)."""
        with self._db.lock.giving_way():
            try:
                return len(self)
            except sqlite3.OperationalError as error:
                if interrupted(error):
                    return None
                raise

    def __len__(self) -> int:
        if self._count is None:
            matched, _ordered = self._sources()
            rows = self._rows(f"SELECT count(*) FROM {matched or 'runs'}", ())
            self._count = int(rows[0][0]) if rows else 0  # type: ignore[call-overload]
        return self._count

    def _page(self, number: int) -> list[RunSummary]:
        page = self._pages.get(number)
        if page is not None:
            self._pages.move_to_end(number)
            return page
        matched, ordered = self._sources()
        where = "" if matched is None else f"WHERE r.id IN (SELECT id FROM {matched})"
        params: list[object] = [PAGE, number * PAGE]
        if ordered is None and matched is not None and self._in_start_order():
            sql = (
                f"SELECT {_ROW} FROM {matched} m JOIN runs r ON r.id = m.id "
                "ORDER BY m.id DESC LIMIT ? OFFSET ?"
            )
        elif ordered is None:
            sql = f"SELECT {_ROW} FROM runs r {where} {_NEWEST_FIRST} LIMIT ? OFFSET ?"
        elif matched is None:  # the order's rowid is the position
            sql = (
                f"SELECT {_ROW} FROM {ordered} o JOIN runs r ON r.id = o.id "
                "WHERE o.rowid > ? ORDER BY o.rowid LIMIT ?"
            )
            params = [number * PAGE, PAGE]
        else:
            sql = (
                f"SELECT {_ROW} FROM {ordered} o JOIN runs r ON r.id = o.id {where} "
                "ORDER BY o.rowid LIMIT ? OFFSET ?"
            )
        page = [self._summary(row) for row in self._rows(sql, params)]
        self.fetched += len(page)
        self._pages[number] = page
        if len(self._pages) > PAGES_KEPT:
            self._pages.popitem(last=False)
        return page

    def _in_start_order(self) -> bool:
        with self._db.lock:
            try:
                return rows_in_start_order(self._db.connection)
            except sqlite3.DatabaseError:
                return False

    def _summary(self, row: tuple[object, ...]) -> RunSummary:
        run = RunSummary(*row)  # type: ignore[arg-type]
        return run._replace(resumable=True) if run.run_id == self._resumable else run

    @overload
    def __getitem__(self, item: int) -> RunSummary: ...

    @overload
    def __getitem__(self, item: slice) -> list[RunSummary]: ...

    def __getitem__(self, item: int | slice) -> RunSummary | list[RunSummary]:
        if isinstance(item, slice):
            return [self[row] for row in range(len(self))[item]]
        row = item + len(self) if item < 0 else item
        if not 0 <= row < len(self):
            raise IndexError(item)
        page = self._page(row // PAGE)
        if row % PAGE >= len(page):  # the index changed under the count
            raise IndexError(item)
        return page[row % PAGE]

    def __iter__(self) -> Iterator[RunSummary]:
        for number in range((len(self) + PAGE - 1) // PAGE):
            yield from self._page(number)

    def position(self, run_id: str) -> int | None:
        """Where ``run_id`` is in this view (None: not in it)."""
        matched, ordered = self._sources()
        found = self._rows("SELECT id, started FROM runs WHERE run_id = ?", [run_id])
        if not found:
            return None
        number, started = found[0]
        if matched is not None and not self._rows(
            f"SELECT 1 FROM {matched} WHERE id = ?", [number]
        ):
            return None
        within = "" if matched is None else f"AND r.id IN (SELECT id FROM {matched})"
        if ordered is None and matched is not None and self._in_start_order():
            rows = self._rows(f"SELECT count(*) FROM {matched} WHERE id > ?", [number])
        elif ordered is None:
            rows = self._rows(
                "SELECT count(*) FROM runs r WHERE (r.started > ? OR (r.started = ? AND "
                f"r.run_id > ?)) {within}",
                [started, started, run_id],
            )
        else:
            rows = self._rows(
                f"SELECT count(*) FROM {ordered} o JOIN runs r ON r.id = o.id WHERE o.rowid < "
                f"(SELECT rowid FROM {ordered} WHERE id = ?) {within}",
                [number],
            )
        return int(rows[0][0]) if rows else None  # type: ignore[call-overload]

    def widest(self) -> list[RunSummary]:
        """A few runs whose cells are as wide as any run's: the largest of each number, and
        the longest spec names (the runs list fits its columns to these). Read from what the
        index recorded as its runs were written; found in the runs when it did not."""
        with self._db.lock:
            try:
                recorded = read_widest(self._db.connection)
            except sqlite3.DatabaseError:
                recorded = None
        if recorded is not None:
            largest = {field: recorded.get(field, 0) for field in WIDE_FIELDS}
            return [
                RunSummary("", "", "", str(name), "", stop_reason=None, **largest)
                for name in recorded["names"] or [""]
            ]
        biggest = " UNION ".join(
            f"SELECT id FROM (SELECT id FROM runs ORDER BY {column} DESC LIMIT 1)"
            for column in ("attempts", "duration_s", "tokens", "cost_usd")
        )
        names = (
            "SELECT min(id) FROM runs GROUP BY spec_name HAVING length(spec_name) * 2 >= "
            "(SELECT max(length(spec_name)) FROM runs)"
        )
        rows = self._rows(
            f"SELECT {SUMMARY_COLUMNS} FROM runs WHERE id IN ({biggest} UNION {names})", ()
        )
        return [RunSummary(*row) for row in rows]  # type: ignore[arg-type]
