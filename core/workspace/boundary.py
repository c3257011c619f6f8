"""The workspace boundary: path safety, the staging overlay, and transactional apply.

The model is told its project lives at ``/workspace``; every path it names goes through
:func:`resolve_inside`, which follows symlinks at every level and refuses anything whose real
location is outside the workspace. The model's edits land in a :class:`Staging` overlay, never on
disk; only the person's accepted change reaches disk, through :func:`apply_change`, as one
all-or-nothing transaction.

Text is read and written as UTF-8 with no newline translation, so ``"\\r\\n"`` survives.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import secrets
import shutil
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from orch_tui.core.util.atomic import Commit, fsync_together
from orch_tui.core.domain.proposal import FileChange, Proposal

VIRTUAL_ROOT = "/workspace"
"""Where the model believes the project lives; ``/workspace/a.py`` means ``a.py``."""

SKIPPED_DIRS = frozenset(
    {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
)
"""Folders that are never listed, read into prompts, or copied for trial runs."""

_TEMP_SUFFIX = ".orch-tmp"


class SafetyViolation(Exception):
    """A model path that leaves the workspace; the run stops with exit 2."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"unsafe path {path!r}: {reason}")
        self.path = path
        self.reason = reason


class ProtectedPath(Exception):
    """A refused write to ``.git/``, ``.venv/`` or a configured protected path; the run goes on."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} is protected and cannot be edited")
        self.path = path


def resolve_inside(root: Path, rel: str) -> Path:
    """Return the real absolute location of ``rel``, or raise :class:`SafetyViolation`.

    Accepts relative paths and absolute paths under ``/workspace``. Symlinks are followed at
    every level (also for files that do not exist yet), so a link inside the workspace that
    points outside is caught.
    """
    return Path(_resolve(os.path.realpath(root), rel))


def to_relative(root: Path, rel: str) -> str:
    """The normalised posix path of ``rel``'s real location, relative to the workspace.

    ``""`` is the workspace itself. Raises :class:`SafetyViolation` like :func:`resolve_inside`.
    """
    base = os.path.realpath(root)
    return _key(base, _resolve(base, rel))


def _resolve(base: str, rel: str) -> str:
    """:func:`resolve_inside` for a workspace whose real location is ``base``."""
    if not isinstance(rel, str):
        raise SafetyViolation(repr(rel), "a path must be a string")
    if "\x00" in rel:
        raise SafetyViolation(rel, "the path contains a NUL byte")
    relative = _strip_virtual_root(rel)
    normalised = posixpath.normpath(relative) if relative else "."
    if normalised == ".." or normalised.startswith("../"):
        raise SafetyViolation(rel, "the path climbs out of the workspace with '..'")
    real = _real_below(base, normalised)
    if real != base and os.path.commonpath([base, real]) != base:
        raise SafetyViolation(rel, f"the path resolves to {real}, outside the workspace")
    return real


def _real_below(base: str, normalised: str) -> str:
    """``os.path.realpath`` of ``normalised`` (no ``..`` in it) under the real folder ``base``.

    Only the parts below ``base`` can be links, so each is looked at once (one ``lstat``) and
    the full walk from ``/`` is left to ``realpath`` where a link or a missing part is met:
    an edit resolves its path several times, and every system call of the engine's thread
    waits for the interpreter lock again while the review screen paints.
    """
    path = base
    if normalised != ".":
        for part in normalised.split("/"):
            path = os.path.join(path, part)
            try:
                if stat.S_ISLNK(os.lstat(path).st_mode):
                    return os.path.realpath(os.path.join(base, normalised))
            except OSError:
                return os.path.realpath(os.path.join(base, normalised))
    return path


def _key(base: str, real: str) -> str:
    """The overlay key of ``real``: its posix path relative to ``base``, ``""`` for ``base``."""
    relative = os.path.relpath(real, base)
    return "" if relative == "." else Path(relative).as_posix()


def is_protected(rel: str, protected: Sequence[str]) -> bool:
    """True for ``.git`` and anything under it, for the project's ``.venv`` at the root (its
    interpreter runs the installer outside the sandbox), and for paths matching a configured glob.

    Globs are fnmatch-style on the normalised relative posix path (``*`` also crosses ``/``,
    so ``tests/**`` covers the whole folder); a plain folder name covers everything under it,
    and ``**/x`` also matches ``x`` at the top level.
    """
    normalised = posixpath.normpath(rel.replace("\\", "/")).lstrip("/")
    parts = normalised.split("/")
    if ".git" in parts or parts[0] == ".venv":
        return True
    for pattern in protected:
        pattern = pattern.strip().rstrip("/")
        if not pattern:
            continue
        candidates = [pattern, f"{pattern}/*"]
        if pattern.startswith("**/"):
            candidates += [pattern[3:], f"{pattern[3:]}/*"]
        if any(fnmatch.fnmatchcase(normalised, candidate) for candidate in candidates):
            return True
    return False


class Staging:
    """An in-memory overlay on top of the workspace: the model's edits land here, never on disk.

    Overlay keys are the normalised real relative paths from :func:`to_relative`, so two names
    for one file (``a.py``, ``/workspace/a.py``, a symlink) share one entry.
    """

    def __init__(self, root: Path, protected: Sequence[str] = ()) -> None:
        self.root = root
        self.protected = tuple(protected)
        self._overlay: dict[str, str] = {}
        self._base = os.path.realpath(root)
        """The workspace's real location, resolved once: the run made it and nothing moves it."""

    def _locate(self, rel: str) -> tuple[str, str]:
        """``rel``'s real location and its overlay key; raises :class:`SafetyViolation`."""
        real = _resolve(self._base, rel)
        return real, _key(self._base, real)

    def is_protected(self, rel: str) -> bool:
        """True when either the name given or its real location is protected."""
        return self._protected(rel, self._locate(rel)[1])

    def _protected(self, rel: str, key: str) -> bool:
        return is_protected(key, self.protected) or is_protected(
            _strip_virtual_root(rel), self.protected
        )

    def read(self, rel: str) -> str | None:
        """The overlay's text, else the disk's; None when absent or a folder.

        Raises ``UnicodeDecodeError`` for a file on disk that is not UTF-8 text.
        """
        real, key = self._locate(rel)
        if key in self._overlay:
            return self._overlay[key]
        if not os.path.isfile(real):
            return None
        return _read_text(Path(real))

    def write(self, rel: str, text: str) -> None:
        """Stage ``text`` as the file's new content.

        Raises :class:`SafetyViolation`, :class:`ProtectedPath`, ``IsADirectoryError`` when the
        path is a folder, and ``NotADirectoryError`` when one of its parents is a file.
        """
        real, key = self._locate(rel)
        if self._protected(rel, key):
            raise ProtectedPath(posixpath.normpath(_strip_virtual_root(rel)))
        if self._is_dir(real, key):
            raise IsADirectoryError(f"{rel} is a directory")
        parts = key.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent in self._overlay or (self.root / parent).is_file():
                raise NotADirectoryError(f"{parent} is a file, not a directory")
        self._overlay[key] = text

    def exists(self, rel: str) -> bool:
        real, key = self._locate(rel)
        return key in self._overlay or self._is_dir(real, key) or os.path.exists(real)

    def is_dir(self, rel: str) -> bool:
        """True for folders on disk and for folders that only staged files imply."""
        return self._is_dir(*self._locate(rel))

    def _is_dir(self, real: str, key: str) -> bool:
        if key == "" or os.path.isdir(real):
            return True
        return any(path.startswith(f"{key}/") for path in self._overlay)

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
                    f"{prefix}{inner}{name}/" for name in dirs if _inside(root_real, folder, name)
                )
                entries.update(
                    f"{prefix}{inner}{name}" for name in files if _inside(root_real, folder, name)
                )
        for path in self._overlay:
            if not path.startswith(prefix):
                continue
            parts = path[len(prefix) :].split("/")
            if any(part in SKIPPED_DIRS for part in parts):
                continue
            for level in range(1, min(len(parts), depth) + 1):
                is_folder = level < len(parts)
                entries.add(prefix + "/".join(parts[:level]) + ("/" if is_folder else ""))
        return sorted(entries)

    def changed_paths(self) -> list[str]:
        """Staged paths whose text differs from the disk's, sorted."""
        return sorted(key for key, text in self._overlay.items() if text != self._disk_text(key))

    def to_proposal(self, attempt: int) -> Proposal:
        """The staged edits as a proposal: only files whose text differs from disk."""
        changes = tuple(
            FileChange(path=key, old_text=self._disk_text(key), new_text=self._overlay[key])
            for key in self.changed_paths()
        )
        return Proposal(attempt=attempt, changes=changes)

    def _disk_text(self, key: str) -> str | None:
        """The file's text on disk; undecodable bytes become U+FFFD so a diff can still show."""
        path = self.root / key
        if not path.is_file():
            return None
        return path.read_bytes().decode("utf-8", errors="replace")


def apply_change(
    root: Path,
    resolved: Mapping[str, str | None],
    *,
    commit: Commit | None = None,
    durable: bool = True,
) -> None:
    """Write every file of ``resolved`` (None deletes) as one transaction.

    Phase one writes each new text to a temp file in its target folder and checks every
    deletion; if anything fails there, the temp files and any folders it created are removed
    and the disk is as it was. Phase two ``os.replace``-s every temp file and deletes.
    Applying the same mapping twice gives the same tree, so the engine may re-apply after a
    crash.

    ``durable``: the temp files are fsynced before the renames, the folders after them. With a
    ``commit`` that is left to it instead: the engine's state stays TESTING until the commit,
    and resuming TESTING applies the change again, so a power loss before it costs nothing. A
    scratch copy for a trial run needs neither.
    """
    targets: dict[Path, str | None] = {}
    for rel, text in resolved.items():
        target = resolve_inside(root, rel)
        relative = to_relative(root, rel)
        if relative == "" or is_protected(relative, ()):
            raise ProtectedPath(rel)
        if target in targets and targets[target] != text:
            raise ValueError(f"{rel} names the same file as another entry with different text")
        targets[target] = text

    for target in targets:
        _remove_stale_temps(target)
    staged: list[tuple[Path, Path]] = []
    created_dirs: list[Path] = []
    try:
        for target, text in sorted(targets.items()):
            if target.is_dir():
                raise IsADirectoryError(f"{target} is a directory")
            if text is None:
                continue
            created_dirs += _make_parents(target.parent)
            staged.append((_write_temp(target, text), target))
    except BaseException:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
        for folder in reversed(created_dirs):
            _remove_empty_dir(folder)
        raise

    sync_now = durable and commit is None
    if sync_now:
        fsync_together([temp for temp, _ in staged], [])
    for temp, target in staged:
        os.replace(temp, target)
    for target, text in targets.items():
        if text is None:
            target.unlink(missing_ok=True)
    changed = [*targets, *created_dirs]  # a new folder: its entry in its parent
    if sync_now:
        fsync_together([], {path.parent for path in changed})
    elif commit is not None:
        for path in changed:
            commit.add(path)


def read_tree(root: Path, max_file_bytes: int = 200_000) -> dict[str, str]:
    """The workspace's text files by relative path, sorted.

    Skips tool caches, files over ``max_file_bytes``, files that are not UTF-8 text, and
    symlinks whose target is outside the workspace.
    """
    base = os.path.realpath(root)
    tree: dict[str, str] = {}
    for folder, dirs, files in os.walk(base):
        dirs[:] = [name for name in dirs if name not in SKIPPED_DIRS]
        for name in files:
            path = Path(folder, name)
            if not _inside(base, folder, name) or not path.is_file():
                continue
            if path.stat().st_size > max_file_bytes:
                continue
            data = path.read_bytes()
            if b"\x00" in data:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            tree[path.relative_to(base).as_posix()] = text
    return dict(sorted(tree.items()))


def copy_tree(src: Path, dst: Path) -> None:
    """Copy the workspace to ``dst`` for a trial test run, without ``.git`` and caches."""
    shutil.copytree(
        src, dst, symlinks=True, ignore=shutil.ignore_patterns(*SKIPPED_DIRS), dirs_exist_ok=True
    )


def _strip_virtual_root(rel: str) -> str:
    """``/workspace/a.py`` -> ``a.py``; other absolute paths raise; relative ones pass through."""
    if rel == VIRTUAL_ROOT or rel.startswith(f"{VIRTUAL_ROOT}/"):
        return rel[len(VIRTUAL_ROOT) :].lstrip("/")
    if posixpath.isabs(rel):
        raise SafetyViolation(rel, f"absolute paths must be under {VIRTUAL_ROOT}")
    return rel


def _inside(root_real: str, folder: str, name: str) -> bool:
    """Whether ``folder/name``, symlinks followed, is inside the workspace (a link out is not
    listed, so the model is not led to a path that would stop the run)."""
    real = os.path.realpath(os.path.join(folder, name))
    return os.path.commonpath([root_real, real]) == root_real


def _read_text(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the ones created, outermost first."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        current = current.parent
    created: list[Path] = []
    try:
        for path in reversed(missing):
            path.mkdir()
            created.append(path)
    except BaseException:
        for path in reversed(created):
            _remove_empty_dir(path)
        raise
    return created


def _write_temp(target: Path, text: str) -> Path:
    """Write ``text`` to a fresh temp file beside ``target``, keeping ``target``'s mode (not fsynced)."""
    temp = target.parent / f".{target.name}.{secrets.token_hex(4)}{_TEMP_SUFFIX}"
    mode = target.stat().st_mode & 0o7777 if target.is_file() else 0o666
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        if target.is_file():
            os.chmod(temp, mode)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp


def _remove_stale_temps(target: Path) -> None:
    """Delete temp files of ``target`` left by an apply that was killed half-way.

    The engine re-applies the same change after a crash; without this, the killed
    attempt's ``.name.<hex>.orch-tmp`` files would stay in the person's project.
    """
    if not target.parent.is_dir():
        return
    prefix = f".{target.name}."
    for entry in target.parent.iterdir():
        name = entry.name
        token = name[len(prefix) : -len(_TEMP_SUFFIX)]
        if name.startswith(prefix) and name.endswith(_TEMP_SUFFIX) and len(token) == 8:
            entry.unlink(missing_ok=True)


def _remove_empty_dir(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
