"""Writes ``logs/<run_id>/``: the append-only event log and the files of each attempt."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from orch_tui.core.domain.events import STREAM_EVENTS, Event, RunFinished, RunStarted
from orch_tui.core.runlog.layout import (
    APPLIED,
    EVENTS,
    ORIGINALS,
    RECORDS_FOR_PEOPLE,
    attempt_dir_name,
)
from orch_tui.core.runlog.opened_runs import note_opened
from orch_tui.core.util.atomic import (
    Commit,
    ItemMemo,
    json_bytes,
    remove_temp_files,
    write_bytes_atomic,
)


class RunLog:
    """Writes one run's folder; also an event subscriber for ``events.jsonl``.

    The run is named in ``logs/.opened-runs`` (:mod:`opened_runs`) when it is opened and
    after each session's start and end are written: history trusts its record of a finished
    run that is not named there since."""

    def __init__(self, logs_root: Path, run_id: str) -> None:
        self.dir = logs_root / run_id
        self.dir.mkdir(parents=True, exist_ok=True)
        self._attempt_dirs: dict[int, Path] = {}
        self._applied_paths: dict[int, list[str]] = {}
        """The files each attempt's applied.json lands, once read: every patch prompt names
        the files of all the run's attempts, and applied.json holds their full texts. Only
        this writer writes an applied.json (a write forgets what was read)."""
        note_opened(logs_root, run_id)

    def clear_after_kill(self) -> None:
        """What a killed writer of this run left: temp files, and a last event line cut short.

        The torn line is ended here, so the next event starts a line of its own instead of
        being glued to it (history skips the torn line before a ``run_started``). Only the
        run's own engine calls this, under the project lock, before it writes.
        """
        for folder in (self.dir, self.dir / ORIGINALS, *self.dir.glob("attempt-*")):
            remove_temp_files(folder)
        try:
            with (self.dir / EVENTS).open("rb+") as handle:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    handle.write(b"\n")
        except OSError:  # no events yet (missing or empty)
            pass

    def attempt_dir(self, attempt: int) -> Path:
        """The attempt's folder, made by the first call (each of the attempt's files asks)."""
        folder = self._attempt_dirs.get(attempt)
        if folder is None:
            folder = self.dir / attempt_dir_name(attempt)
            folder.mkdir(exist_ok=True)
            self._attempt_dirs[attempt] = folder
        return folder

    def __call__(self, event: Event) -> None:
        if isinstance(event, STREAM_EVENTS):
            return
        line = json.dumps(event.to_json(), ensure_ascii=False) + "\n"
        # One write on an O_APPEND descriptor: a kill can cut the last line, never interleave.
        fd = os.open(self.dir / EVENTS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
        if isinstance(event, RunStarted | RunFinished):
            note_opened(self.dir.parent, self.dir.name)

    def write_json(
        self,
        attempt: int | None,
        name: str,
        data: Any,
        commit: Commit | None = None,
        items: ItemMemo | None = None,
    ) -> None:
        """``commit``: the file is in place at once and durable with the state that commit
        writes (for a file the current state's resume rewrites); else durable now, unless it
        is a record for people. ``items``: see :func:`json_bytes`."""
        self._write(attempt, name, json_bytes(data, items), commit)

    def write_text(
        self, attempt: int | None, name: str, text: str, commit: Commit | None = None
    ) -> None:
        """As :meth:`write_json`."""
        self._write(attempt, name, text.encode("utf-8"), commit)

    def stage_json(self, attempt: int | None, name: str, data: Any, commit: Commit) -> None:
        """Put the file in place when ``commit`` writes its state, whole even after a power
        loss (for a file the current state's resume reads)."""
        folder = self.dir if attempt is None else self.attempt_dir(attempt)
        self._forget(attempt, name)
        commit.replace(folder / name, json_bytes(data))
        commit.add(folder)  # a new attempt folder: its entry in the run's folder

    def _write(self, attempt: int | None, name: str, data: bytes, commit: Commit | None) -> None:
        folder = self.dir if attempt is None else self.attempt_dir(attempt)
        self._forget(attempt, name)
        if commit is None:
            write_bytes_atomic(folder / name, data, durable=name not in RECORDS_FOR_PEOPLE)
            return
        commit.write(folder / name, data)
        commit.add(folder)

    def _forget(self, attempt: int | None, name: str) -> None:
        """The attempt's ``name`` is written again: what was kept of reading it is dropped."""
        if name == APPLIED and attempt is not None:
            self._applied_paths.pop(attempt, None)

    def applied_paths(self, attempt: int) -> list[str] | None:
        """The files the attempt's applied.json lands, sorted; None when it has none."""
        known = self._applied_paths.get(attempt)
        if known is None:
            applied = self.read_json(attempt, APPLIED)
            if applied is None:
                return None
            known = self._applied_paths[attempt] = sorted(applied["files"])
        return list(known)

    def read_json(self, attempt: int | None, name: str) -> Any | None:
        folder = self.dir if attempt is None else self.dir / attempt_dir_name(attempt)
        path = folder / name
        if not path.exists():
            return None
        return json.loads(path.read_text(encoding="utf-8"))
