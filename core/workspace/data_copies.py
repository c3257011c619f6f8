"""The spec's data files in the workspace: copied to ``data/<name>`` when a run opens.

A copy already there with the same bytes is left as it is (a resumed run), and the copy an
earlier run made is replaced (a change run after a data file changed); any other file at that
path is refused rather than overwritten, so nothing of the person's is lost.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from orch_tui.core.datafiles.inputs import DataFile, file_digest
from orch_tui.core.workspace.run_workspace import WorkspaceError


def place_data_files(
    workspace: Path, files: Sequence[DataFile], earlier: Mapping[str, str]
) -> list[str]:
    """Copy each data file into ``workspace``; returns the names copied now. ``earlier``: the
    copies (name → digest) an earlier run of this workspace made, which may be replaced."""
    copied = []
    for data in files:
        target = workspace / data.name
        found = file_digest(target) if target.is_file() and not target.is_symlink() else None
        if found == data.digest:
            continue
        if (found is None or earlier.get(data.name) != found) and (
            target.exists() or target.is_symlink()
        ):
            raise WorkspaceError(
                f"{target} already exists and differs from the data file {data.source}: "
                "move it away, or rename the data file"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.orch-tmp")
        shutil.copyfile(data.source, partial)
        os.replace(partial, target)
        copied.append(data.name)
    return copied
