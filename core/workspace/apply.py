"""Applying an accepted change to the workspace as one all-or-nothing transaction, and reading
or copying the workspace's tree."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from orch_tui.core.util.atomic import Commit, fsync_together
from orch_tui.core.workspace.boundary import (
    SKIPPED_DIRS,
    ProtectedPath,
    inside,
    is_protected,
    resolve_inside,
    to_relative,
)

_TEMP_SUFFIX = ".orch-tmp"


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

    _remove_stale_temps(targets)
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
        here = Path(folder).relative_to(base).as_posix()
        inner = "" if here == "." else f"{here}/"
        for name in files:
            path = os.path.join(folder, name)
            if not inside(base, folder, name):
                continue
            try:
                status = os.stat(path)  # one stat: a regular file (links followed), and its size
            except OSError:
                continue
            if not stat.S_ISREG(status.st_mode) or status.st_size > max_file_bytes:
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            if b"\x00" in data:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            tree[inner + name] = text
    return dict(sorted(tree.items()))


def copy_tree(src: Path, dst: Path) -> None:
    """Copy the workspace to ``dst`` for a trial test run, without ``.git`` and caches."""
    shutil.copytree(
        src, dst, symlinks=True, ignore=shutil.ignore_patterns(*SKIPPED_DIRS), dirs_exist_ok=True
    )


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
    temp = target.parent / f".{target.name}.{os.urandom(4).hex()}{_TEMP_SUFFIX}"
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


def _remove_stale_temps(targets: Iterable[Path]) -> None:
    """Delete temp files of ``targets`` left by an apply that was killed half-way.

    The engine re-applies the same change after a crash; without this, the killed
    attempt's ``.name.<hex>.orch-tmp`` files would stay in the person's project. Each folder
    is listed once, however many of the targets it holds (200 files in one folder: one
    listing, not 200).
    """
    by_folder: dict[Path, set[str]] = {}
    for target in targets:
        by_folder.setdefault(target.parent, set()).add(target.name)
    for folder, names in by_folder.items():
        try:
            entries = list(os.scandir(folder))
        except OSError:  # not there yet (or not a folder): nothing was left in it
            continue
        for entry in entries:
            name = entry.name
            if not (name.startswith(".") and name.endswith(_TEMP_SUFFIX)):
                continue
            stem = name[1 : -len(_TEMP_SUFFIX)]  # "<target>.<8 hex>"
            name_of_target, dot, token = stem.rpartition(".")
            if dot and len(token) == 8 and name_of_target in names:
                Path(entry.path).unlink(missing_ok=True)


def _remove_empty_dir(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
