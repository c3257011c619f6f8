"""The workspace boundary: path safety.

The model is told its project lives at ``/workspace``; every path it names goes through
:func:`resolve_inside`, which follows symlinks at every level and refuses anything whose real
location is outside the workspace, and :func:`is_protected` refuses ``.git``, ``.venv`` and
the configured protected paths. The model's edits land in a ``staging.Staging`` overlay;
``apply`` writes the accepted change to disk.

Text is read and written as UTF-8 with no newline translation, so ``"\\r\\n"`` survives.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import posixpath
import re
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

VIRTUAL_ROOT = "/workspace"
"""Where the model believes the project lives; ``/workspace/a.py`` means ``a.py``."""

SKIPPED_DIRS = frozenset(
    {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
)
"""Folders that are never listed, read into prompts, or copied for trial runs."""


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
    return Path(resolve_real(os.path.realpath(root), rel))


def to_relative(root: Path, rel: str) -> str:
    """The normalised posix path of ``rel``'s real location, relative to the workspace.

    ``""`` is the workspace itself. Raises :class:`SafetyViolation` like :func:`resolve_inside`.
    """
    base = os.path.realpath(root)
    return key_of(base, resolve_real(base, rel))


def resolve_real(base: str, rel: str) -> str:
    """:func:`resolve_inside` for a workspace whose real location is ``base``."""
    if not isinstance(rel, str):
        raise SafetyViolation(repr(rel), "a path must be a string")
    if "\x00" in rel:
        raise SafetyViolation(rel, "the path contains a NUL byte")
    relative = strip_virtual_root(rel)
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
    the full walk from ``/`` is left to ``realpath`` where a link is met: an edit resolves its
    path several times, and every system call of the engine's thread waits for the
    interpreter lock again while the review screen paints. Where a part cannot be looked at
    (missing: a new file), nothing below it can be either, and ``realpath`` takes such parts
    as they are written: the path as joined is its answer, without its walk from ``/``.
    """
    if normalised == ".":
        return base
    path = base
    for part in normalised.split("/"):
        path = os.path.join(path, part)
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return os.path.realpath(os.path.join(base, normalised))
        except OSError:
            return os.path.join(base, normalised)
    return path


def key_of(base: str, real: str) -> str:
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
    matcher = _protected_matcher(tuple(protected))
    return matcher is not None and matcher(normalised) is not None


@functools.lru_cache(maxsize=16)
def _protected_matcher(protected: tuple[str, ...]) -> Callable[[str], object] | None:
    """One regular expression for every glob of ``protected`` (what ``fnmatchcase`` would
    match, each glob's candidates as alternatives): an edit is checked twice against some
    twenty candidates, which one by one cost a 200-file proposal's edits ~10 ms."""
    candidates = []
    for pattern in protected:
        pattern = pattern.strip().rstrip("/")
        if not pattern:
            continue
        candidates += [pattern, f"{pattern}/*"]
        if pattern.startswith("**/"):
            candidates += [pattern[3:], f"{pattern[3:]}/*"]
    if not candidates:
        return None
    return re.compile("|".join(fnmatch.translate(candidate) for candidate in candidates)).match


def strip_virtual_root(rel: str) -> str:
    """``/workspace/a.py`` -> ``a.py``; other absolute paths raise; relative ones pass through."""
    if rel == VIRTUAL_ROOT or rel.startswith(f"{VIRTUAL_ROOT}/"):
        return rel[len(VIRTUAL_ROOT) :].lstrip("/")
    if posixpath.isabs(rel):
        raise SafetyViolation(rel, f"absolute paths must be under {VIRTUAL_ROOT}")
    return rel


def inside(root_real: str, folder: str, name: str) -> bool:
    """Whether ``folder/name``, symlinks followed, is inside the workspace (a link out is not
    listed, so the model is not led to a path that would stop the run).

    ``folder`` is one that ``os.walk`` reached from ``root_real`` (a real path) without following
    links, so it is real and inside: only a symlink can lead out. Anything else is inside with
    one ``lstat``, where resolving it would ``lstat`` every part of its path (the prompt's files
    and the editor's listing ask for every file of the workspace).
    """
    path = os.path.join(folder, name)
    if not os.path.islink(path):
        return True
    real = os.path.realpath(path)
    return os.path.commonpath([root_real, real]) == root_real


def read_text(path: Path) -> str:
    """A file's text as UTF-8, newlines untranslated."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()
