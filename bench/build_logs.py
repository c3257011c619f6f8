"""A project of its own for each build a benchmark compares (run by hand, not by the suite).

A build removes the index files of the versions before its own once its index is open
(``index_db.remove_older_indexes``), so two builds of different index versions over one
``logs/`` would make an older build rebuild its index at every launch. Each build named with
``--build`` gets a copy of the project instead: ``logs/`` hard-linked (the run files shared,
nothing copied), without the index files, which the build makes once, on its first launch.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

MADE = ".made"
"""Written last: a copy without it was interrupted and is made again."""


def own_project(project: Path, build: str) -> Path:
    """``project``'s copy for ``build`` (``<project>-<build>`` beside it), made once."""
    copy = project.with_name(f"{project.name}-{build}")
    if (copy / MADE).exists():
        return copy
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir(parents=True)
    if (project / "logs").is_dir():
        subprocess.run(["cp", "-al", str(project / "logs"), str(copy / "logs")], check=True)
        for cached in (copy / "logs").glob(".index*"):
            cached.unlink()
        (copy / "logs" / ".opened-runs").unlink(missing_ok=True)  # appended to: not shared
    (copy / MADE).touch()
    return copy
