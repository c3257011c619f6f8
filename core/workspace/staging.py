"""The staging overlay: the model's edits land in memory on top of the workspace, never on
disk, until the person's accepted change is applied (``apply``)."""

from __future__ import annotations

import os
import posixpath
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.workspace.boundary import (
    SKIPPED_DIRS,
    ProtectedPath,
    inside,
    is_protected,
    key_of,
    read_text,
    resolve_real,
    strip_virtual_root,
)

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import Proposal


class Staging:
    """An in-memory overlay on top of the workspace: the model's edits land here, never on disk.

    Overlay keys are the normalised real relative paths from :func:`to_relative`, so two names
    for one file (``a.py``, ``/workspace/a.py``, a symlink) share one entry; an entry of None
    is a file staged for deletion.
    """

    def __init__(self, root: Path, protected: Sequence[str] = ()) -> None:
        self.root = root
        self.protected = tuple(protected)
        self._overlay: dict[str, str | None] = {}
        self._folders: Counter[str] = Counter()
        """For each folder key, how many staged (not deleted) files are under it: the folders
        that only staged files imply. Looked up instead of scanning the overlay, which made
        every edit's checks cost as many steps as files staged before it (200 files: 60,000)."""
        self._base = os.path.realpath(root)
        """The workspace's real location, resolved once: the run made it and nothing moves it."""
        self._last: tuple[str, str, str] | None = None
        """The last path located (name, real location, key), until :meth:`forget_located`."""
        self._last_protected: bool | None = None
        """Whether the last path located is protected, once asked."""

    def forget_located(self) -> None:
        """Locate every path afresh: the editor tool calls this before each tool call."""
        self._last = self._last_protected = None

    def _locate(self, rel: str) -> tuple[str, str]:
        """``rel``'s real location and its overlay key; raises :class:`SafetyViolation`.

        One tool call asks for its path up to four times in a row (protected? a folder? there
        already? then the write), and each answer walks the path's parts on disk: the last
        answer is kept until :meth:`forget_located`.
        """
        last = self._last
        if last is not None and last[0] == rel:
            return last[1], last[2]
        real = resolve_real(self._base, rel)
        key = key_of(self._base, real)
        self._last, self._last_protected = (rel, real, key), None
        return real, key

    def is_protected(self, rel: str) -> bool:
        """True when either the name given or its real location is protected."""
        return self._protected(rel, self._locate(rel)[1])

    def _protected(self, rel: str, key: str) -> bool:
        located_last = self._last is not None and self._last[0] == rel
        if located_last and self._last_protected is not None:
            return self._last_protected
        answer = is_protected(key, self.protected) or is_protected(
            strip_virtual_root(rel), self.protected
        )
        if located_last:
            self._last_protected = answer
        return answer

    def read(self, rel: str) -> str | None:
        """The overlay's text, else the disk's; None when absent or a folder.

        Raises ``UnicodeDecodeError`` for a file on disk that is not UTF-8 text.
        """
        real, key = self._locate(rel)
        if key in self._overlay:
            return self._overlay[key]
        if not os.path.isfile(real):
            return None
        return read_text(Path(real))

    def write(self, rel: str, text: str) -> None:
        """Stage ``text`` as the file's new content.

        Raises :class:`SafetyViolation`, :class:`ProtectedPath`, ``IsADirectoryError`` when the
        path is a folder, and ``NotADirectoryError`` when one of its parents is a file.
        """
        real, key = self._locate(rel)
        if self._protected(rel, key):
            raise ProtectedPath(posixpath.normpath(strip_virtual_root(rel)))
        if self._is_dir(real, key):
            raise IsADirectoryError(f"{rel} is a directory")
        parts = key.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if self._overlay.get(parent) is not None or (self.root / parent).is_file():
                raise NotADirectoryError(f"{parent} is a file, not a directory")
        self._stage(key, text)

    def delete(self, rel: str) -> None:
        """Stage the file's removal (a file only staged is simply dropped).

        Raises :class:`SafetyViolation`, :class:`ProtectedPath`, ``IsADirectoryError`` for a
        folder and ``FileNotFoundError`` when there is no such file.
        """
        real, key = self._locate(rel)
        if self._protected(rel, key):
            raise ProtectedPath(posixpath.normpath(strip_virtual_root(rel)))
        if self._is_dir(real, key):
            raise IsADirectoryError(f"{rel} is a directory")
        on_disk = os.path.isfile(real)
        if self._overlay.get(key, "" if on_disk else None) is None:
            raise FileNotFoundError(f"{rel} does not exist")
        if on_disk:
            self._stage(key, None)
        else:
            self._count_folders(key, staged=False)
            del self._overlay[key]

    def _stage(self, key: str, text: str | None) -> None:
        """Set the overlay's entry (None: deleted), keeping :attr:`_folders` counted."""
        self._count_folders(key, staged=text is not None)
        self._overlay[key] = text

    def _count_folders(self, key: str, *, staged: bool) -> None:
        """``key``'s entry becomes a staged file (``staged``) or not: count its folders."""
        if (self._overlay.get(key) is not None) == staged:
            return
        parts = key.split("/")
        for depth in range(1, len(parts)):
            self._folders["/".join(parts[:depth])] += 1 if staged else -1

    def exists(self, rel: str) -> bool:
        real, key = self._locate(rel)
        if key in self._overlay:
            return self._overlay[key] is not None or self._is_dir(real, key)
        return self._is_dir(real, key) or os.path.exists(real)

    def is_dir(self, rel: str) -> bool:
        """True for folders on disk and for folders that only staged files imply."""
        return self._is_dir(*self._locate(rel))

    def _is_dir(self, real: str, key: str) -> bool:
        return key == "" or self._folders[key] > 0 or os.path.isdir(real)

    def listing(self, rel: str = "", depth: int = 2) -> list[str]:
        """Paths under ``rel`` up to ``depth`` levels down, disk and overlay merged.

        Paths are relative to the workspace, sorted; folders end with ``/``. Skips ``.git``,
        ``__pycache__`` and the other tool caches.
        """
        real, key = self._locate(rel)
        prefix = f"{key}/" if key else ""
        entries: set[str] = set()
        base = Path(real)
        root_real = self._base
        if base.is_dir():
            for folder, dirs, files in os.walk(base):
                dirs[:] = [name for name in dirs if name not in SKIPPED_DIRS]
                here = Path(folder).relative_to(base).as_posix()
                level = 0 if here == "." else here.count("/") + 1
                inner = "" if here == "." else f"{here}/"
                if level >= depth:
                    dirs[:] = []
                    continue
                entries.update(
                    f"{prefix}{inner}{name}/" for name in dirs if inside(root_real, folder, name)
                )
                entries.update(
                    f"{prefix}{inner}{name}" for name in files if inside(root_real, folder, name)
                )
        entries.difference_update(path for path, text in self._overlay.items() if text is None)
        for path, text in self._overlay.items():
            if text is None or not path.startswith(prefix):
                continue
            parts = path[len(prefix) :].split("/")
            if any(part in SKIPPED_DIRS for part in parts):
                continue
            for level in range(1, min(len(parts), depth) + 1):
                is_folder = level < len(parts)
                entries.add(prefix + "/".join(parts[:level]) + ("/" if is_folder else ""))
        return sorted(entries)

    def to_proposal(self, attempt: int) -> Proposal:
        """The staged edits as a proposal: only files whose text differs from disk (a staged
        deletion is a change whose new text is None). Each file on disk is read once (it was
        read again for the change's old text: 200 more reads of a 200-file proposal)."""
        from orch_tui.core.domain.proposal import FileChange, Proposal  # with difflib: not at start

        changes = []
        for key, text in self._overlay.items():
            old_text = self._disk_text(key)
            if text != old_text:
                changes.append(FileChange(path=key, old_text=old_text, new_text=text))
        return Proposal(attempt=attempt, changes=tuple(changes))  # sorted by path there

    def _disk_text(self, key: str) -> str | None:
        """The file's text on disk; undecodable bytes become U+FFFD so a diff can still show."""
        path = self.root / key
        if not path.is_file():
            return None
        return path.read_bytes().decode("utf-8", errors="replace")
