"""The runs list: every run's summary, cached in ``logs/.index-7.json`` so ten thousand list at once.

``logs/`` is the only truth (:mod:`~orch_tui.core.history.scan` summarises one run folder).
``logs/.index-7.json`` caches every run's summary with a signature of what it was computed
from: the size and mtime of ``events.jsonl`` and the mtime of the run folder (an atomic
rewrite or removal of ``run.json``/``spec.md`` changes it). Listing stats each run twice and
summarises again only the runs whose signature changed; a missing or unreadable index is
rebuilt, and a failed index write is ignored (the index is a cache, never needed for a
correct answer).

The file's format is :mod:`index_file`. What a filter searches, each run's lowercase label
(id and spec name) and every spec text once, is laid out the first time a filter needs it
(:mod:`search_texts`). Beyond
:data:`FULL_CHECK_UP_TO` runs, a launch looks again only at the runs a writer opened since
(``logs/.opened-runs``), the unfinished ones and folders added or removed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import compress
from operator import attrgetter, methodcaller, not_, or_, truth
from pathlib import Path

from orch_tui.core.history.index_file import (
    INDEX_NAME,
    Entry,
    Stored,
    read_index,
    stored_entry,
    stored_run,
    trusted_entry,
    write_index,
)
from orch_tui.core.history.logs_stamp import stamp_now, unchanged_since_stamp, write_stamp
from orch_tui.core.history.scan import (
    FINISHED_NAMES,
    RunSummary,
    in_newest_first_order,
    scan_run,
)
from orch_tui.core.history.search_texts import SearchTexts, Specs, collector_paused
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.opened_runs import Position, opened_position, opened_since, trim_opened

_EVENTS_IN_FOLDER = os.sep + runlog.EVENTS


def list_runs(logs: Path) -> list[RunSummary]:
    """Every run in ``logs``, newest first (damaged ones included, marked)."""
    return build_index(logs).runs


def _signature(folder: str) -> str | None:
    """What a summary depends on, ``size:mtime:folder mtime``; None when the folder is gone.
    (Two stats per run is most of what listing ten thousand fresh runs costs, so no path
    object is made here.)"""
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


PACE_EVERY = 250
"""Runs the check looks at between two calls of :func:`recorded_then_checked`'s ``pace``:
about 1 ms of its work."""


@dataclass
class RunIndex:
    """Every run's summary, newest first, and the lowercase text each filter searches."""

    runs: list[RunSummary]
    texts: SearchTexts
    """What :attr:`search` and :attr:`specs` are laid out from, once."""
    checked: bool = True
    """False: the runs as the index file recorded them, before any run folder was looked at
    (see :func:`recorded_then_checked`)."""

    @property
    def search(self) -> dict[str, tuple[str, int]]:
        """run id -> (its label, the number of its spec in :attr:`specs`, -1 for none). The
        label is the run's id and spec name in lowercase, on lines of their own. Spec texts
        are kept once each, never copied into a string per run: laying out 100,000 runs'
        haystacks with their specs in them was most of the CPU after the list appeared.
        (Made per run for a reader of them all; a filter reads the lists beneath.)"""
        _ids, labels, numbers, _specs = self.texts.laid_out()
        return {run_id: (labels[row], numbers[row]) for run_id, row in self.texts.by_id().items()}

    @property
    def specs(self) -> list[str]:
        """Every distinct lowercase spec text, once, then ``""`` (where -1 points)."""
        return self.texts.laid_out()[3]


def _entries(
    logs: Path,
    stored: Stored | None,
    pace: Callable[[], object] | None = None,
    untrusted: frozenset[str] | None = None,
) -> tuple[list[Entry], bool]:
    """Every run folder's entry, from the stored index where its signature holds (or, for a
    recorded run not ``untrusted``, without looking; None: every run is looked at); and
    whether any run was summarised again."""
    entries: list[Entry] = []
    rescanned = False
    prefix = os.path.join(logs, "")
    for name in _paced(_run_folders(logs), pace):
        if (
            untrusted is not None
            and stored is not None
            and name not in untrusted
            and (entry := trusted_entry(stored, name))
        ):
            entries.append(entry)
            continue
        folder = prefix + name
        signature = _signature(folder)
        if signature is None:
            continue
        number = stored.position.get(name) if stored else None
        if stored is not None and number is not None and stored.signatures[number] == signature:
            entry = stored_entry(stored, name, number)
            if entry is not None:
                entries.append(entry)
                continue
        scanned = scan_run(folder)
        entries.append(Entry(signature, scanned.summary, scanned.spec_lower))
        rescanned = True
    return entries, rescanned


def build_index(logs: Path) -> RunIndex:
    """Summaries of every run in ``logs``, from the index where it is fresh, newest first.

    The index file is rewritten when anything changed; a write that fails (a read-only
    folder) is ignored.
    """
    with collector_paused():
        return _checked(logs, read_index(logs / INDEX_NAME))


def recorded_then_checked(
    logs: Path, pace: Callable[[], object] | None = None
) -> Iterator[RunIndex]:
    """The runs as the index file recorded them, when there is one, then :func:`build_index`'s.

    The first is a list to show, and search, at once: checking every run folder (two
    ``stat`` calls a run) was most of listing 10,000 runs, and the recorded list is what it
    finds unless a run changed since. The index file is read once. ``pace`` is called every
    :data:`PACE_EVERY` runs of the check, whether it finds the record or summarises runs
    again: a UI's worker sleeps there, so that the check (about 50 ms at 10,000 runs) leaves
    the interpreter to the keys typed meanwhile.
    """
    with collector_paused():
        stored = read_index(logs / INDEX_NAME)
        recorded = _recorded(stored) if stored is not None else None
    untrusted: frozenset[str] | None = None
    read_to: Position | None = None
    if recorded is not None and stored is not None:
        yield recorded
        if len(stored.position) > FULL_CHECK_UP_TO:
            untrusted, read_to = _unsettled_or_reopened(logs, stored, recorded)
        if len(recorded.runs) == len(stored.position) and _holds(logs, stored, pace, untrusted):
            yield replace(recorded, checked=True)  # every run as recorded: nothing to redo
            return
    with collector_paused():
        checked = _checked(logs, stored, pace, untrusted, read_to)
    yield checked


FULL_CHECK_UP_TO = 10_000
"""Up to this many runs, a launch's check looks at every folder (about 50 ms of CPU at
10,000). Beyond, it trusts the record of each finished run that no writer has opened since
(``logs/.opened-runs``): a file edited by hand in such a run shows once any full listing
(``orch-tui history`` without a terminal, or a deleted index) reads it again."""


def _unsettled_or_reopened(
    logs: Path, stored: Stored, recorded: RunIndex
) -> tuple[frozenset[str] | None, Position | None]:
    """The recorded runs to look at again, the others trusted as recorded: those unfinished
    or damaged, and those opened since they were read; and how far into
    ``logs/.opened-runs`` that was read (a run named after that is looked at again next
    time). None: every run (the file is not the one the index read). (Picked out by C-level
    iterators, as a set of the few, not of the 100,000 trusted: a Python loop over 100,000
    runs took 30 ms, a set of the trusted ones 40.)"""
    found = opened_since(logs, stored.opened_at)
    if found is None:
        return None, None
    opened, read_to = found
    runs = recorded.runs
    finished = map(FINISHED_NAMES.__contains__, map(_STATE, runs))
    unsettled = map(or_, map(not_, finished), map(truth, map(_DAMAGED, runs)))
    looked_at = frozenset(compress(map(_RUN_ID, runs), unsettled))
    return looked_at.union(filter(stored.position.__contains__, opened)), read_to


_STATE = attrgetter("state")
_DAMAGED = attrgetter("damaged")


def _holds(
    logs: Path,
    stored: Stored,
    pace: Callable[[], object] | None,
    untrusted: frozenset[str] | None = None,
) -> bool:
    """True when the run folders are the recorded ones, each with its recorded signature
    (only the ``untrusted`` runs' are looked at, when not None). The folders are not listed when ``logs/`` is
    unchanged since a check found them to be the index's (:mod:`logs_stamp`); a check that
    lists them and finds them so stamps ``logs/`` for the next launch.

    The folders are compared as sets of names from one ``os.listdir`` (no ``stat``, no
    per-name Python code): listing 100,000 folders with ``scandir`` and looking each up was
    most of the check. A name the index does not know that is not a dot file (a new folder,
    or a file that is no run) has it look at the folders as :func:`_run_folders` does."""
    position = stored.position
    unchanged = unchanged_since_stamp(logs)
    stamp = None if unchanged else stamp_now(logs)
    if not unchanged and not _same_folders(logs, position):
        return False
    prefix = os.path.join(logs, "")
    for name in _paced(list(position if untrusted is None else untrusted), pace):
        if stored.signatures[position[name]] != _signature(prefix + name):
            return False
    if stamp is not None:
        write_stamp(logs, stamp)  # the folders listed are the index's: next time, no listing
    return True


def _same_folders(logs: Path, position: dict[str, int]) -> bool:
    """Whether ``logs``'s run folders are exactly the index's runs."""
    names = _listing(logs)
    unknown = names.difference(position)
    if not all(map(methodcaller("startswith", "."), unknown)):
        names = set(_run_folders(logs))
        if not names.issubset(position):
            return False
    else:
        names.difference_update(unknown)  # logs/'s own files
    return len(names) == len(position)


def _listing(logs: Path) -> set[str]:
    """Every name in ``logs`` (none when it cannot be read)."""
    try:
        return set(os.listdir(logs))
    except OSError:
        return set()


def _paced(names: list[str], pace: Callable[[], object] | None) -> Iterator[str]:
    """``names``, with ``pace`` called after every :data:`PACE_EVERY` of them."""
    for count, name in enumerate(names, start=1):
        yield name
        if pace is not None and count % PACE_EVERY == 0:
            pace()


def _recorded(stored: Stored) -> RunIndex:
    """The runs as the index file recorded them: a summary each and nothing more, as this is
    on the way to the first list a launch shows."""
    numbered = _spec_numbers(stored)
    if len(stored.position) == len(stored.rows) and numbered is not None:
        return replace(_newest_first(stored.rows, *numbered), checked=False)  # no lookups
    found = [
        run
        for run_id, number in stored.position.items()
        if (run := stored_run(stored, run_id, number)) is not None
    ]  # a malformed entry is left out: the check summarises that run again
    runs = [summary for summary, _spec in found]
    specs = _numbered([spec for _summary, spec in found])
    return replace(_newest_first(runs, *specs), checked=False)


def _spec_numbers(stored: Stored) -> tuple[list[int], Specs] | None:
    """Each run's spec number as the file has it (-1 for none) and the spec texts it points
    to, read when first asked for; None when a number is malformed. (C-level checks over
    the column: the file's spec numbers are used as they are, no text is looked up per
    run.)"""
    numbers, specs = stored.spec_numbers, stored.specs
    kinds = set(map(type, numbers))
    if not kinds <= {int, type(None)}:
        return None
    if type(None) in kinds:
        numbers = [-1 if number is None else number for number in numbers]
    if numbers and (min(numbers) < -1 or max(numbers) >= specs.count):
        return None
    return numbers, lambda: [*specs.texts(), ""]  # "" last: where -1 points


def _numbered(specs: Sequence[str | None]) -> tuple[list[int], list[str]]:
    """Each run's spec text as a number into the list of every text once (then ``""``)."""
    texts: dict[str, int] = {}
    numbers = [texts.setdefault(spec, len(texts)) if spec is not None else -1 for spec in specs]
    return numbers, [*texts, ""]


def _checked(
    logs: Path,
    stored: Stored | None,
    pace: Callable[[], object] | None = None,
    untrusted: frozenset[str] | None = None,
    read_to: Position | None = None,
) -> RunIndex:
    """Every run's entry, the index file rewritten when any changed (and ``.opened-runs``
    trimmed then). The index records how far into that file the runs were read: before the
    folders are (a run opened meanwhile is named after it), or where ``untrusted`` was read."""
    opened_at = opened_position(logs) if read_to is None else read_to
    entries, rescanned = _entries(logs, stored, pace, untrusted)
    entries.sort(key=lambda entry: _NEWEST(entry.summary), reverse=True)  # as a list shows them
    if rescanned or (stored is not None and len(stored.position) != len(entries)):
        write_index(logs / INDEX_NAME, entries, trim_opened(logs, opened_at))
    runs = [entry.summary for entry in entries]
    return _newest_first(runs, *_numbered([entry.spec for entry in entries]))


def _newest_first(runs: list[RunSummary], numbers: list[int], specs: Specs) -> RunIndex:
    """The index of ``runs`` (``numbers``: each one's spec in ``specs``) sorted newest first;
    what a filter searches is laid out when first asked for."""
    if in_newest_first_order(runs):  # as the index file keeps them
        return RunIndex(runs, SearchTexts(runs, numbers, specs))
    keys = list(map(_NEWEST, runs))
    order = sorted(range(len(runs)), key=keys.__getitem__, reverse=True)
    ordered = list(map(runs.__getitem__, order))
    return RunIndex(ordered, SearchTexts(ordered, list(map(numbers.__getitem__, order)), specs))


_NEWEST = attrgetter("started", "run_id")


_RUN_ID = attrgetter("run_id")
