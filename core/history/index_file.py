"""``logs/.index-7.json`` as a file: the runs list's cache read back into columns, and written.

The file is columnar: one JSON array per summary field, one position per run (or, where
values repeat, each distinct value once and a number per run), and one lowercase copy of
each distinct spec text (for filtering) that runs point to by position.
Reading it is a few list reads, not one object per run. A file that is missing, of another
version or malformed reads as None, and the index is rebuilt from the run folders; a failed
write is ignored (the index is a cache, never needed for a correct answer).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Any

from orch_tui.core.history.packed_signatures import packed, unpacked
from orch_tui.core.history.scan import RunSummary
from orch_tui.core.runlog.opened_runs import Position
from orch_tui.core.util.atomic import write_bytes_atomic

INDEX_VERSION = 7
INDEX_NAME = f".index-{INDEX_VERSION}.json"
"""The file's name holds its version: a build that reads another version leaves that one's
file alone (two builds over one ``logs/`` each keep theirs instead of rebuilding in turn).
Writing it removes the files of earlier versions (:data:`OLD_INDEX_NAMES`)."""
OLD_INDEX_NAMES = (
    ".index.json",
    *(f".index-{version}.json" for version in range(7, INDEX_VERSION)),
)
"""Where versions 1-6 kept the index, then where each later version before this one did."""
"""7: a column whose values repeat is its distinct values and a character per run; the
signatures packed (:mod:`packed_signatures`); the spec texts a line of their own, after the
rest. 6: durations leave out restores and the idle time after a run finished. 5: how far into ``logs/.opened-runs`` it had read. 4: a run's signature is one string (its
three numbers as lists of three took a third of the file's parse). 3: columnar. 2: a summary
per run, with a ghost run's stop reason."""

STORED_FIELDS = tuple(name for name in RunSummary._fields if name not in ("run_id", "resumable"))
"""The summary fields the index keeps, in constructor order after the run id."""


@dataclass
class Stored:
    """The index file as read: positions by run id, and each run's columns."""

    position: dict[str, int]
    signatures: Sequence[str]
    spec_numbers: list[Any]
    rows: list[RunSummary]
    """Each run's summary, made straight from the columns (no tuple per run in between)."""
    specs: SpecTexts
    opened_at: Position
    """How far into ``logs/.opened-runs`` the runs were read from their folders. (The file's
    mark is optional, absent from an index written before the file was trimmed: such an
    index is read against a trimmed file as against another file, so no version change.)"""


def read_index(path: Path) -> Stored | None:
    """The index file's columns, or None when it is missing, of another version or malformed.
    The spec texts, its last line, are parsed when first asked for (:class:`SpecTexts`)."""
    try:
        with open(path, "rb") as file:
            head = file.readline()
            texts = file.read()  # kept as bytes until asked for: not decoded, no objects
        data = json.loads(head)
    except (OSError, ValueError):  # missing, not JSON or not UTF-8
        return None
    if not isinstance(data, dict):
        return None
    try:
        if data["version"] != INDEX_VERSION or type(data["spec_count"]) is not int:
            return None
        offset, mark = data["opened_at"], data.get("opened_mark", "")
        if type(offset) is not int or offset < 0 or not isinstance(mark, str):
            return None
        columns = data["runs"]
        run_ids, signatures, spec_numbers = (
            columns["run_id"],
            columns["signature"],
            columns["spec"],
        )
        stored = [decoded_column(columns[name]) for name in STORED_FIELDS]
        signatures = unpacked(signatures, len(run_ids))
    except (KeyError, TypeError, ValueError):
        return None
    every = [run_ids, spec_numbers, *stored]
    if not all(isinstance(column, list) and len(column) == len(run_ids) for column in every):
        return None
    return Stored(
        position=dict(zip(run_ids, range(len(run_ids)), strict=True)),
        signatures=signatures,
        spec_numbers=spec_numbers,
        rows=list(map(_MAKE, zip(run_ids, *stored, repeat(False)))),
        specs=SpecTexts(data["spec_count"], texts, path),
        opened_at=Position(mark, offset),
    )


def decoded_column(column: Any) -> list[Any]:
    """A column as the file keeps it: a list, or each distinct value once and a string with
    a character per run naming its value (``{"values": [...], "codes": "..."}``, value
    ``n`` as ``chr(CODE_BASE + n)``), looked up by C-level passes, so a value repeated by
    100,000 runs is one object, not 100,000, and no number per run is parsed (a list of
    codes took five times as long). TypeError or KeyError when malformed."""
    if type(column) is list:
        return column
    values, codes = column["values"], column["codes"]
    if type(values) is not list or type(codes) is not str:
        raise TypeError("a column's values are a list and its codes a string")
    named = dict(zip(map(chr, range(CODE_BASE, CODE_BASE + len(values))), values, strict=True))
    return list(map(named.__getitem__, codes))


CODE_BASE = 35
"""The character of a column's first value: ``#``, the first printable one JSON writes as
itself after ``"``. (A code among the surrogates cannot be written: see :func:`encoded_column`.)"""
_MOST_CODES = 0xD800 - CODE_BASE


def encoded_column(column: list[Any]) -> list[Any] | dict[str, Any]:
    """``column`` as :func:`decoded_column` reads it: values and codes when at most half its
    values are distinct (a run's state, spec, stop reason) and they fit below the
    surrogates, else as it is. Values are told apart by type too (``1`` and ``1.0`` stay
    what they were)."""
    table: dict[tuple[Any, type], int] = {}
    codes = [
        table.setdefault(key, len(table)) for key in zip(column, map(type, column), strict=True)
    ]
    if len(table) * 2 > len(column) or len(table) > _MOST_CODES:
        return column
    return {
        "values": [value for value, _type in table],
        "codes": "".join(map(chr, (CODE_BASE + code for code in codes))),
    }


class SpecTexts:
    """Every distinct lowercase spec text the index file holds, parsed from its last line the
    first time they are asked for (by the filter, or a check that reads runs from the index).

    The list is on screen without them: with a spec of its own per run, they are half of the
    file and a third of its parse at 100,000 runs. Texts that prove malformed read as empty
    (the filter then finds runs by id and spec name only) and the file is removed, so that
    the next launch rebuilds it."""

    def __init__(self, count: int, text: bytes, path: Path | None = None) -> None:
        self.count = count
        self._text = text
        self._path = path
        self._lock = threading.Lock()
        self._parsed: list[str] | None = None

    def texts(self) -> list[str]:
        with self._lock:
            if self._parsed is None:
                self._parsed = self._parse()
            return self._parsed

    def _parse(self) -> list[str]:
        try:
            decoded = self._text.decode()
            self._text = b""  # let go before the texts are made
            texts = json.loads(decoded)
        except ValueError:
            texts = None
        self._text = b""
        if type(texts) is list and len(texts) == self.count and set(map(type, texts)) <= {str}:
            return texts
        if self._path is not None:
            with contextlib.suppress(OSError):
                self._path.unlink()
        return [""] * self.count


_MAKE = partial(tuple.__new__, RunSummary)
"""``RunSummary._make`` without its Python frame and length check (zip makes each row the
right length): a C call per run."""


@dataclass
class Entry:
    signature: str
    summary: RunSummary
    spec: str | None


def stored_run(stored: Stored, run_id: str, number: int) -> tuple[RunSummary, str | None] | None:
    """Run ``number`` of the index file and its spec text; None when its columns are malformed."""
    spec_number = stored.spec_numbers[number]
    try:
        if spec_number is None:
            return stored.rows[number], None
        return stored.rows[number], stored.specs.texts()[spec_number]
    except (TypeError, IndexError):
        return None


def stored_entry(stored: Stored, run_id: str, number: int) -> Entry | None:
    """Run ``number`` of the index file as an entry; None when its columns are malformed."""
    found = stored_run(stored, run_id, number)
    return None if found is None else Entry(stored.signatures[number], *found)


def trusted_entry(stored: Stored, run_id: str) -> Entry | None:
    number = stored.position.get(run_id)
    return None if number is None else stored_entry(stored, run_id, number)


def write_index(path: Path, entries: list[Entry], opened_at: Position) -> None:
    specs: dict[str, int] = {}
    spec_numbers = [
        None if entry.spec is None else specs.setdefault(entry.spec, len(specs))
        for entry in entries
    ]
    summaries = [entry.summary for entry in entries]
    columns: dict[str, Any] = {
        "run_id": [summary.run_id for summary in summaries],
        "signature": packed([entry.signature for entry in entries]),
        "spec": spec_numbers,
    }
    for name in STORED_FIELDS:
        columns[name] = encoded_column([getattr(summary, name) for summary in summaries])
    data = {
        "version": INDEX_VERSION,
        "opened_at": opened_at.offset,
        "opened_mark": opened_at.mark,
        "runs": columns,
        "spec_count": len(specs),
    }
    head = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    texts = json.dumps(list(specs), ensure_ascii=False, separators=(",", ":"))
    try:
        write_bytes_atomic(path, f"{head}\n{texts}".encode(), durable=False)
        for name in OLD_INDEX_NAMES:
            (path.parent / name).unlink(missing_ok=True)
    except OSError:
        pass
