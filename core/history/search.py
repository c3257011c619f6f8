"""Runs sorted by a column and filtered as a person types."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress, repeat
from operator import attrgetter, contains, or_
from typing import Any, overload

from orch_tui.core.history.index import RunIndex
from orch_tui.core.history.run_labels import RunLabels
from orch_tui.core.history.scan import RunSummary, in_newest_first_order

SORT_KEYS: dict[str, Callable[[RunSummary], Any]] = {
    "started": lambda run: run.started,
    "run_id": lambda run: run.run_id,
    "spec": lambda run: run.spec_name.lower(),
    "state": lambda run: "DAMAGED" if run.damaged else run.state,
    "attempts": lambda run: run.attempts,
    "duration": lambda run: run.duration_s,
    "tokens": lambda run: run.tokens,
    "cost": lambda run: run.cost_usd,
    "stop_reason": lambda run: (run.stop_reason or "").lower() or None,
}
"""The columns runs can be sorted by."""


def sort_runs(runs: Iterable[RunSummary], column: str, descending: bool) -> list[RunSummary]:
    """Runs ordered by ``column`` (a :data:`SORT_KEYS` name); empty values go last either way,
    and ties keep newest first."""
    try:
        key = SORT_KEYS[column]
    except KeyError:
        raise ValueError(f"unknown column {column!r}; one of {', '.join(SORT_KEYS)}") from None
    runs = list(runs)
    newest_first = runs if in_newest_first_order(runs) else sorted(runs, key=_NEWEST, reverse=True)
    if column in _NEVER_EMPTY:
        return (
            newest_first
            if column == "started" and descending
            else sorted(newest_first, key=key, reverse=descending)
        )
    present = [run for run in newest_first if key(run) is not None]
    empty = [run for run in newest_first if key(run) is None]
    return sorted(present, key=key, reverse=descending) + empty


_NEWEST = attrgetter("started", "run_id")
_NEVER_EMPTY = {"started", "run_id", "spec", "state", "attempts", "tokens", "cost"}
"""The columns whose key is never None: no pass to set the empty ones apart."""


class Matches(Sequence[RunSummary]):
    """The runs a filter matched, in order: positions in the searched list, not a list of
    runs of its own, so a keystroke does not touch every matched run (the list shows a
    screenful of them)."""

    def __init__(self, runs: list[RunSummary], rows: Sequence[int]) -> None:
        self._runs = runs
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, item: int) -> RunSummary: ...

    @overload
    def __getitem__(self, item: slice) -> list[RunSummary]: ...

    def __getitem__(self, item: int | slice) -> RunSummary | list[RunSummary]:
        if isinstance(item, slice):
            return [self._runs[row] for row in self._rows[item]]
        return self._runs[self._rows[item]]

    def __iter__(self) -> Iterator[RunSummary]:
        return map(self._runs.__getitem__, self._rows)


class RunSearch:
    """Runs in one order, filtered as a person types: those whose id, spec name or spec text
    holds every word of the query (any case), in that order.

    The lowercase texts come from the index: each run's label (id and spec name), laid out
    beside the runs once, and the number of its spec text, kept once however many runs share
    it. A keystroke touches no file, makes no string and sorts nothing. A query that extends
    the previous one (a key typed) narrows that one's result, checking only its new words.
    """

    def __init__(self, runs: Sequence[RunSummary], index: RunIndex) -> None:
        self._runs = list(runs)
        self._index = index
        self._lock = threading.Lock()
        self._texts: tuple[RunLabels, list[int]] | None = None
        """Each run's label and spec number, in this order: laid out by :meth:`prepare` or
        the first word searched."""
        self._without_spec: bool | None = None
        self._last: tuple[str, list[int] | None] = ("", None)
        """The last query and the positions of the runs it matched (None: every run)."""

    def prepare(self) -> None:
        """Lay out the texts to search now (a worker does, once the list is on screen), so
        that the first keystroke does not; every run matches an empty query without them."""
        self._laid_out()[0].prepare()

    def _laid_out(self) -> tuple[RunLabels, list[int]]:
        with self._lock:
            if self._texts is None:
                self._texts = self._index.texts.rows_for(self._runs)
            return self._texts

    def matching(self, query: str) -> Matches:
        query = query.lower()
        last_query, rows = self._last
        searched = set(last_query.split())
        if not (last_query and query.startswith(last_query)):
            rows, searched = None, set()
        for word in query.split():
            if word not in searched:
                rows = self._with_word(word, rows)
                searched.add(word)
        self._last = (query, rows)
        return Matches(self._runs, range(len(self._runs)) if rows is None else rows)

    def _with_word(self, word: str, rows: list[int] | None) -> list[int] | None:
        """The positions among ``rows`` (None: every run) of the runs that hold ``word``;
        ``rows`` itself when they all do (no list of 100,000 new numbers to make, and for the
        collector to walk).

        Each spec text is searched once for the word (a C-level pass) unless the runs left
        to check are far fewer than the specs (a narrowed result: each run's spec as it
        comes). When every spec holds the word, every run with a spec matches, unseen: a
        common word over 100,000 runs of their own specs looks at no run."""
        labels, numbers = self._laid_out()
        ids, names = labels.ids, labels.names
        specs = self._index.specs
        candidates = range(len(labels)) if rows is None else rows
        if len(candidates) * SPEC_PASS_RATIO < len(specs):
            return [
                row
                for row in candidates
                if word in ids[row] or word in names[row] or word in specs[numbers[row]]
            ]
        in_spec = list(map(contains, specs, repeat(word)))
        in_spec[-1] = False  # the "" of the runs with no spec
        held = in_spec.count(True)
        if not held:
            return labels.rows_with(word, rows)
        if held == len(specs) - 1 and not self._some_without_spec():
            return rows
        # C-level passes, no Python per run: a word in one spec in ten matches 10,000 of
        # 100,000 runs, and a comprehension over all of them was most of such a key's search.
        spec_of = numbers if rows is None else map(numbers.__getitem__, rows)
        found = map(in_spec.__getitem__, spec_of)
        in_label = labels.holding(word, rows)
        if in_label is not None:
            found = map(or_, found, in_label)
        return list(compress(candidates, found))

    def _some_without_spec(self) -> bool:
        """Whether any run has no spec text (-1), found once."""
        if self._without_spec is None:
            self._without_spec = -1 in self._laid_out()[1]
        return self._without_spec


SPEC_PASS_RATIO = 4
"""A pass over every spec text costs about a quarter of a run checked one by one in Python:
it is made when at least a quarter as many runs as specs are left to check."""
