"""Accepted hunks into the person's project: each file's reviewed text, merged with theirs.

A file the person has not touched since the run's start (or does not have, for a new file)
gets the reviewed text as it is. One they changed gets a three-way merge of their copy, the
run's start and the reviewed text, so their edits stay; where the two conflict nothing is
written to that file and it is named. Everything that can land lands as one transaction: in
the folder's files, or, for a :class:`Target` with a branch, as one commit on that branch
(their copy is then the branch's), their checkout untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from orch_tui.core.util.records import record
from orch_tui.core.workspace.apply import apply_change
from orch_tui.core.workspace.boundary import resolve_inside
from orch_tui.core.workspace.branch_commit import commit_onto_branch
from orch_tui.core.workspace.git import Repo
from orch_tui.core.workspace.merge_text import merge_text


@record(frozen=True)
class Target:
    """Where reviewed hunks land: a folder's files, or a branch of the repository there."""

    folder: Path
    branch: str | None = None

    def __str__(self) -> str:
        return f"branch {self.branch} of {self.folder}" if self.branch else str(self.folder)


@record(frozen=True)
class Landing:
    landed: list[str]
    conflicts: list[str]


def land(
    target: Target,
    reviewed: Mapping[str, str | None],
    start: Mapping[str, str | None],
    message: str = "orch-tui: reviewed hunks",
) -> Landing:
    """Land ``reviewed`` (path → text, None deletes) in ``target``, given each file's ``start``
    text; returns what landed and what conflicted."""
    folder = target.folder
    if target.branch is None:
        writes, conflicts = _merged(reviewed, start, lambda path: _read(folder, path))
        changed = {p: t for p, t in writes.items() if _differs(folder, p, t)}
        if changed:
            folder.mkdir(parents=True, exist_ok=True)
            apply_change(folder, changed)
        return Landing(sorted(writes), conflicts)
    repo, branch = Repo(folder), target.branch
    writes, conflicts = _merged(reviewed, start, lambda path: repo.file_at(branch, path))
    changed = {p: t for p, t in writes.items() if repo.file_at(branch, p) != t}
    if changed:
        commit_onto_branch(folder, branch, changed, message)
    return Landing(sorted(writes), conflicts)


def _read(folder: Path, path: str) -> str | None:
    file = resolve_inside(folder, path)
    return file.read_text(encoding="utf-8") if file.is_file() else None


def _merged(
    reviewed: Mapping[str, str | None],
    start: Mapping[str, str | None],
    current_of: Callable[[str], str | None],
) -> tuple[dict[str, str | None], list[str]]:
    """Each file's text to land (merged with the person's copy), and the files that conflict."""
    writes: dict[str, str | None] = {}
    conflicts = []
    for path, text in sorted(reviewed.items()):
        current = current_of(path)
        base = start.get(path)
        if current == base or current == text:
            writes[path] = text
            continue
        merged = None
        if current is not None and text is not None:
            merged = merge_text(current, base or "", text)
        if merged is None:
            conflicts.append(path)
        else:
            writes[path] = merged
    return writes, conflicts


def _differs(target: Path, path: str, text: str | None) -> bool:
    file = target / path
    if text is None:
        return file.exists()
    return not file.is_file() or file.read_text(encoding="utf-8") != text
