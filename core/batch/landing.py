"""Accepted hunks into the person's project: each file's reviewed text, merged with theirs.

A file the person has not touched since the run's start (or does not have, for a new file)
gets the reviewed text as it is. One they changed gets a three-way merge of their copy, the
run's start and the reviewed text, so their edits stay; where the two conflict nothing is
written to that file and it is named. Everything that can land lands as one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from orch_tui.core.workspace.apply import apply_change
from orch_tui.core.workspace.boundary import resolve_inside
from orch_tui.core.workspace.merge_text import merge_text


@dataclass(frozen=True)
class Landing:
    landed: list[str]
    conflicts: list[str]


def land(
    target: Path, reviewed: Mapping[str, str | None], start: Mapping[str, str | None]
) -> Landing:
    """Write ``reviewed`` (path → text, None deletes) into ``target``, given each file's
    ``start`` text; returns what was written and what conflicted."""
    writes: dict[str, str | None] = {}
    conflicts = []
    for path, text in sorted(reviewed.items()):
        file = resolve_inside(target, path)
        current = file.read_text(encoding="utf-8") if file.is_file() else None
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
    changed = {p: t for p, t in writes.items() if _differs(target, p, t)}
    if changed:
        target.mkdir(parents=True, exist_ok=True)
        apply_change(target, changed)
    return Landing(sorted(writes), conflicts)


def _differs(target: Path, path: str, text: str | None) -> bool:
    file = target / path
    if text is None:
        return file.exists()
    return not file.is_file() or file.read_text(encoding="utf-8") != text
