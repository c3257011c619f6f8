"""A run's chain (DESIGN section 16): the run it follows, and the runs that follow it.

A change run records ``follows`` in its ``run.json``; the runs that follow one are found by
reading the other runs' ``run.json`` (small files, read only when one run is opened).
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import Any

from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.reader import read_json_file
from orch_tui.core.util.records import record


@record(frozen=True)
class Chain:
    follows: str | None = None
    """The run whose project this one changed (its spec was edited); None: none."""
    followed_by: list[str] = field(default_factory=list)
    """The runs that changed this one's project, oldest first."""

    def line(self) -> str | None:
        """``follows A · followed by B``; None for a run on its own."""
        parts = [f"follows {self.follows}"] if self.follows else []
        if self.followed_by:
            parts.append("followed by " + ", ".join(self.followed_by))
        return " · ".join(parts) or None


def follows_of(meta: dict[str, Any]) -> str | None:
    value = meta.get("follows")
    return value if isinstance(value, str) and value else None


def run_chain(logs: Path, run_id: str, meta: dict[str, Any]) -> Chain:
    """What ``run_id`` (whose ``run.json`` is ``meta``) follows and what follows it."""
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(logs)
            if entry.is_dir() and not entry.name.startswith(".") and entry.name != run_id
        )
    except OSError:
        names = []
    followers = []
    for name in names:
        data, _problem = read_json_file(logs / name / runlog.RUN_META)
        if isinstance(data, dict) and follows_of(data) == run_id:
            followers.append(name)
    return Chain(follows=follows_of(meta), followed_by=followers)


def earlier_runs(logs: Path, run_id: str) -> list[str]:
    """The runs ``run_id`` changes the project of, by their ``follows``, oldest first.

    The walk stops at a run that follows none, at one whose ``run.json`` is gone (that run
    is still listed: it was followed), and at a loop of hand-edited ``run.json`` files.
    """
    earlier: list[str] = []
    seen = {run_id}
    current = run_id
    while True:
        meta, _problem = read_json_file(logs / current / runlog.RUN_META)
        before = follows_of(meta) if isinstance(meta, dict) else None
        if before is None or before in seen:
            return earlier[::-1]
        earlier.append(before)
        seen.add(before)
        current = before
