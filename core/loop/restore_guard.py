"""What ``restore`` must not overwrite: the person's edits made after the run last wrote.

The run knows what it last wrote to every file it touched (the last step's text). A file on disk
that differs from that (edited, recreated after the run deleted it, removed) holds the person's
later work. Outside git it is copied into the run's log folder before the restore writes over it,
and the restore's message names the copy; in git a restore refuses a dirty tree, and refuses
when such a file is untracked, naming the files, so the person commits or stashes them first.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from orch_tui.core.workspace.git import Repo


class LaterEdits(Exception):
    """The restore would overwrite the person's later work; the message says which files."""


def _disk_bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def later_edits(workspace: Path, last_written: Mapping[str, str | None]) -> list[str]:
    """The files (sorted) whose content on disk differs from what the run last wrote."""
    changed = []
    for rel, text in sorted(last_written.items()):
        expected = None if text is None else text.encode("utf-8")
        if _disk_bytes(workspace / rel) != expected:
            changed.append(rel)
    return changed


def refuse_in_git(repo: Repo, edited: Iterable[str]) -> None:
    """LaterEdits when the tree is dirty or a file the run touched was changed since."""
    dirty = sorted({*repo.tracked_changes(), *edited})
    if dirty:
        shown = ", ".join(dirty[:8]) + (" ..." if len(dirty) > 8 else "")
        raise LaterEdits(
            f"the workspace has changes the run did not make ({shown}); a restore would "
            "overwrite them: commit or stash them first (`git stash -u`), then restore again"
        )


def keep_copies(workspace: Path, edited: Iterable[str], folder: Path) -> list[str]:
    """Copy each edited file that exists into ``folder`` (same relative path); their names."""
    kept = []
    for rel in edited:
        source = workspace / rel
        if source.is_file():
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            kept.append(rel)
    return kept
