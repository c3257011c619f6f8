"""Three-way merge of one file's text with ``git merge-file``: the person's copy, the run's
start and the run's result.

Used where a reviewed change lands in a project the person may have changed since the run
started: their edits stay, the run's change is laid over them, and a conflict writes nothing.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from orch_tui.core.workspace.git import GitError, git_command, git_env


def merge_text(ours: str, base: str, theirs: str) -> str | None:
    """``base``→``theirs`` laid over ``ours``; None when the two changes conflict."""
    with tempfile.TemporaryDirectory(prefix="orch-merge-") as scratch:
        names = []
        for label, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(scratch) / label
            path.write_text(text, encoding="utf-8")
            names.append(str(path))
        try:
            done = subprocess.run(
                git_command("merge-file", "-p", "-q", *names),
                env=git_env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
            )
        except FileNotFoundError:
            raise GitError("the git command is not installed") from None
    if done.returncode < 0 or done.returncode > 127:
        raise GitError(f"git merge-file failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode("utf-8") if done.returncode == 0 else None
