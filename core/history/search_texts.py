"""What the history's filter searches: each run's lowercase label and every spec text once,
laid out the first time a filter needs it (see :class:`SearchTexts`)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import repeat
from operator import attrgetter

from orch_tui.core.history.run_labels import RunLabels
from orch_tui.core.history.scan import RunSummary


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a list of runs is built.

    Making 100,000 summaries (and the rows that search them) sets the collector off again
    and again to walk every one of them, though none is garbage: that was half of listing
    100,000 runs. It is back on (if it was) when the block ends; nothing is lost meanwhile,
    only deferred."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


Specs = list[str] | Callable[[], list[str]]
"""Every spec text once, or what reads them when first needed."""


class SearchTexts:
    """The lowercase text each filter searches, laid out the first time it is asked for.

    Laying them out is about 16 ms of CPU at 10,000 runs, which the runs list need not wait
    for: a worker asks for them once the list is on screen, and a keystroke sooner than that
    lays them out itself (whichever comes second finds them made). They are lists in the
    index's order (newest first), the list's default order, so a search in that order looks
    nothing up; a search in another order finds each run's through :attr:`RunIndex.search`.
    """

    def __init__(self, runs: list[RunSummary], numbers: list[int], specs: Specs) -> None:
        self._runs = runs
        self._numbers = numbers
        """Each run's spec, a position in ``specs`` (-1: none)."""
        self._specs = specs
        """Every spec text once, lowercase (or what reads them, the first time they are laid
        out: the index file's texts are parsed then)."""
        self._lock = threading.Lock()
        self._laid_out: tuple[list[str], RunLabels, list[int], list[str]] | None = None
        self._by_id: dict[str, int] | None = None

    def laid_out(self) -> tuple[list[str], RunLabels, list[int], list[str]]:
        """Each run's id, label and spec number, in the index's order, and every spec text
        once (see :attr:`RunIndex.search`)."""
        with self._lock:
            if self._laid_out is None:
                with collector_paused():
                    specs = self._specs if isinstance(self._specs, list) else self._specs()
                    self._laid_out = _search_texts(self._runs, self._numbers, specs)
            return self._laid_out

    def by_id(self) -> dict[str, int]:
        """Run id -> its position in the index's order."""
        ids = self.laid_out()[0]
        with self._lock:
            if self._by_id is None:
                with collector_paused():
                    self._by_id = dict(zip(ids, range(len(ids)), strict=True))
            return self._by_id

    def rows_for(self, runs: Sequence[RunSummary]) -> tuple[RunLabels, list[int]]:
        """The labels and spec numbers of ``runs``, in their order (a run the index does not
        know: an empty label and no spec). Not copies: the caller only reads them."""
        ids, labels, numbers, _specs = self.laid_out()
        with collector_paused():
            if list(map(_RUN_ID, runs)) == ids:  # the index's order: nothing to look up
                return labels, numbers
            unknown = len(ids)
            rows = list(map(self.by_id().get, map(_RUN_ID, runs), repeat(unknown)))
            if unknown in rows:
                labels = RunLabels([*labels.ids, ""], [*labels.names, ""])
                numbers = [*numbers, -1]
            return labels.reordered(rows), list(map(numbers.__getitem__, rows))


def _search_texts(
    runs: list[RunSummary], numbers: list[int], specs: list[str]
) -> tuple[list[str], RunLabels, list[int], list[str]]:
    """Each run's id, label and spec number, and every spec text once (see
    :attr:`RunIndex.search`). No string holds a spec's text but the spec's own, and no
    string is made per run (:class:`RunLabels`)."""
    ids = list(map(_RUN_ID, runs))
    return ids, RunLabels.of(ids, list(map(_SPEC_NAME, runs))), numbers, specs


_RUN_ID = attrgetter("run_id")
_SPEC_NAME = attrgetter("spec_name")
