"""Atomic, durable file writes, and :class:`Commit`: files made durable together, then a state.

A reader (or a process killed half-way) sees the old file or the new one, never a torn mix.
A durable write also survives a power loss; each fsync waits for a journal commit (milliseconds
on a busy disk), so files that go together are fsynced together: the filesystem (ext4's and
XFS's journals) folds fsyncs that wait at the same time into one commit.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import stat
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from orch_tui.core.util.worker_threads import Outcome, WorkerThreads


def _umask() -> int:
    """The process's umask (read by setting it, so once, at import, before any thread)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _umask()
_FSYNC_THREADS = 8
_pool: WorkerThreads | None = None
_pool_lock = threading.Lock()
_settling: list[Outcome] = []
"""Background fsyncs of a state's folder (``Commit(settle_later=True)``) not yet waited for."""


def new_file_mode(path: Path) -> int:
    """The mode ``path`` keeps when it exists; else what ``open()`` would give: 0666 & ~umask.

    A temp file is made 0600; without this a config or state file would be unreadable
    by the person's group where their other files are not.
    """
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~UMASK


def json_bytes(data: Any, items: ItemMemo | None = None) -> bytes:
    """``data`` as the JSON every file of ours holds: UTF-8, one final newline, and an object
    laid out one key a line, a list in it one item a line, each item on its line compact.

    json's indenting encoder is pure Python, several times slower than its compact one (C),
    and a conversation is rewritten after every model turn; this layout keeps a file
    readable (a conversation: one message a line) at the compact encoder's speed.

    ``items``: the lines of list items encoded by earlier calls, reused for the same objects
    (a conversation rewritten after each turn encodes only what the turn added); the caller
    must not change an item once it has been written.
    """
    if not isinstance(data, dict) or not data or not all(isinstance(key, str) for key in data):
        return (_compact(data) + "\n").encode("utf-8")
    encode_item = _item_bytes if items is None else items.encode
    # One join of the pieces: a 200-file conversation is 8 MB, copied once rather than at
    # each level of nesting.
    pieces = [b"{\n"]
    for index, (key, value) in enumerate(data.items()):
        name = _compact(key)
        if index:
            pieces.append(b",\n")
        if isinstance(value, list) and value:
            pieces.append(f"  {name}: [\n".encode())
            for position, item in enumerate(value):
                pieces += (b",\n    " if position else b"    ", encode_item(item))
            pieces.append(b"\n  ]")
        else:
            pieces.append(f"  {name}: {_compact(value)}".encode())
    pieces.append(b"\n}\n")
    return b"".join(pieces)


def _item_bytes(item: Any) -> bytes:
    return _compact(item).encode("utf-8")


class ItemMemo:
    """:func:`json_bytes`' encoded list items, by the identity of each item (kept alive here,
    so an identity is never reused for another object while it is remembered)."""

    def __init__(self) -> None:
        self._encoded: dict[int, tuple[Any, bytes]] = {}

    def remember(self, item: Any, line: bytes) -> None:
        """``item``'s line is ``line`` (encoded by a caller that had its parts encoded)."""
        self._encoded[id(item)] = (item, line)

    def encode(self, item: Any) -> bytes:
        known = self._encoded.get(id(item))
        if known is None:
            known = self._encoded[id(item)] = (item, _item_bytes(item))
        return known[1]


_compact = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(data, ensure_ascii=False)``, without making an encoder for every call (dumps
makes one whenever an option differs from its defaults: some 200 calls an attempt)."""


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` in one rename; ``durable``: fsync the file and the folder.

    A file nothing resumes from (a log for people) needs no fsync: after a crash it is whole,
    old or missing, never torn, and a missing one costs no decision.
    """
    if durable:
        Commit().commit(path, data)
        return
    temp = _temp_with(path, data)
    try:
        os.replace(temp, path)
    except BaseException:
        _remove(temp)
        raise


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    write_bytes_atomic(path, text.encode("utf-8"), durable=durable)


def write_json_atomic(path: Path, data: Any, *, durable: bool = True) -> None:
    write_bytes_atomic(path, json_bytes(data), durable=durable)


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (best effort where unsupported)."""
    _fsync_path(folder, folder=True)


class Commit:
    """The files a state transition points to, made durable together before the state itself.

    - :meth:`write` puts a file in place at once (temp file and rename, no fsync yet), for a
      file the current state's resume rewrites: a power loss that tears it costs nothing.
    - :meth:`replace` stages a file the current state's resume reads, so it must stay whole:
      it takes its place during :meth:`commit`, after its temp file is on disk.
    - :meth:`add` names a file already written in place the same way (the workspace's files).

    :meth:`commit` then writes ``last`` (state.json): (1) fsync together every written file
    and its folder, every staged temp file and ``last``'s temp file; (2) rename the staged
    files and fsync their folders together; (3) rename ``last`` and fsync its folder. A power
    loss leaves the old ``last`` with what it pointed to, or the new one with all of its files.

    ``settle_later``: step (3)'s fsync runs in the background while the caller goes on (the
    engine's next step); every later fsync batch of this process waits for it before it
    returns, so before anything renamed after the batch, and :func:`settle` waits for it.
    """

    def __init__(self, *, settle_later: bool = False) -> None:
        self._written: dict[Path, None] = {}
        self._staged: dict[Path, str] = {}
        self._settle_later = settle_later

    def write(self, path: Path, data: bytes) -> None:
        write_bytes_atomic(path, data, durable=False)
        self.add(path)

    def replace(self, path: Path, data: bytes) -> None:
        earlier = self._staged.pop(path, None)
        if earlier is not None:
            _remove(earlier)
        self._staged[path] = _temp_with(path, data)

    def add(self, path: Path) -> None:
        """Make ``path`` (a file, a deleted file or a new folder) and its folder durable."""
        self._written[path] = None

    def commit(self, last: Path, data: bytes) -> None:
        temp = _temp_with(last, data)
        try:
            files, folders = self._written_files_and_folders()
            fsync_together([*files, *self._staged.values(), temp], folders)
            renamed = {target.parent for target in self._staged}
            for target, staged in list(self._staged.items()):
                os.replace(staged, target)
                del self._staged[target]
            fsync_together([], renamed)
            os.replace(temp, last)
        except BaseException:
            _remove(temp)
            self.discard()
            raise
        self._written.clear()
        if not self._settle_later:
            fsync_dir(last.parent)
            return
        outcome = _threads().submit(_fsync_path, last.parent, folder=True)
        with _pool_lock:
            _settling.append(outcome)

    def _written_files_and_folders(self) -> tuple[list[Path], set[Path]]:
        """The written paths that are files, and the folders to fsync: each path's own folder,
        and the path itself when it is a folder (new); one ``stat`` a path."""
        files: list[Path] = []
        folders: set[Path] = set()
        for path in self._written:
            try:
                mode = os.stat(path).st_mode
            except OSError:  # deleted: only its folder's entry changed
                mode = 0
            if stat.S_ISREG(mode):
                files.append(path)
            elif stat.S_ISDIR(mode):
                folders.add(path)
            folders.add(path.parent)
        return files, folders

    def discard(self) -> None:
        """Remove the staged temp files (the step that staged them failed)."""
        for staged in self._staged.values():
            _remove(staged)
        self._staged.clear()
        self._written.clear()


def _temp_with(path: Path, data: bytes) -> str:
    """A new temp file beside ``path`` holding ``data``, with the mode ``path`` will have.

    One ``open(O_CREAT | O_EXCL)`` of a random name, as ``mkstemp`` does but without its
    per-call set-up (an attempt writes some 17 of these); ``path``'s folder is made only
    when the open finds it missing, not asked for before every file.
    """
    folder, name = os.path.split(os.fspath(path))
    made_folder = False
    for _ in range(_TEMP_TRIES):
        # os.urandom, as secrets.token_hex: importing secrets (base64, hmac) slowed every start
        temp = os.path.join(folder, f".{name}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(temp, _TEMP_FLAGS, 0o600)
        except FileExistsError:
            continue
        except FileNotFoundError:
            if made_folder or not folder:
                raise
            os.makedirs(folder, exist_ok=True)
            made_folder = True
            continue
        try:
            os.fchmod(fd, new_file_mode(path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except BaseException:
            _remove(temp)
            raise
        return temp
    raise FileExistsError(f"no free temp name beside {path} after {_TEMP_TRIES} tries")


_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_TRIES = 100


def _remove(temp: str) -> None:
    try:
        os.unlink(temp)
    except FileNotFoundError:
        pass


def fsync_together(files: Iterable[Path | str], folders: Iterable[Path]) -> None:
    """fsync ``files`` and ``folders`` from several threads at once, so that one journal commit
    serves them all (one after another, each waits for its own); re-raises a file's error.
    Returns once the fsyncs a :class:`Commit` left in the background are done too.

    The calling thread takes the first fsync itself while the pool's threads take the rest:
    it would only wait for it, and each handed-over fsync costs a thread's wake-up (an
    attempt issues some five batches)."""
    jobs = [(path, False) for path in dict.fromkeys(files)]
    jobs += [(folder, True) for folder in dict.fromkeys(folders)]
    if jobs:
        outcomes: list[Outcome] = []
        if len(jobs) > 1:
            pool = _threads()
            outcomes = [pool.submit(_fsync_path, p, folder=is_dir) for p, is_dir in jobs[1:]]
        _fsync_path(jobs[0][0], folder=jobs[0][1])
        for outcome in outcomes:
            outcome.wait()
    settle()


def settle() -> None:
    """Wait for the fsyncs a :class:`Commit` with ``settle_later`` left in the background."""
    with _pool_lock:
        pending = list(_settling)
        _settling.clear()
    for outcome in pending:
        outcome.wait()


def _threads() -> WorkerThreads:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = WorkerThreads(_FSYNC_THREADS, "fsync")
            atexit.register(settle)  # its threads are daemons: a background fsync is waited for
        return _pool


def _fsync_path(path: Path | str, *, folder: bool) -> None:
    """fsync one file or folder; a folder's errors are ignored (some filesystems refuse it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        if folder:
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not folder:
            raise
    finally:
        os.close(fd)


_TEMP_NAME = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
"""The name :func:`write_bytes_atomic` gives its temp file: ``.<target>.<8 random hex digits>.tmp``."""


def remove_temp_files(folder: Path) -> None:
    """Delete the temp files a killed writer left in ``folder`` (ours only, by their name).

    Call it where no other writer is at work: under the project lock, before the run writes.
    """
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if _TEMP_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            Path(entry.path).unlink(missing_ok=True)
