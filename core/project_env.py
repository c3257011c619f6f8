"""Which Python runs a project's checks (``{python}`` in a check command).

``checks.python`` wins when set; otherwise a project that has its own virtual environment
(``.venv`` in the workspace) is tested with it, so its declared dependencies are there and
orch-tui's own packages and pytest plugins are not; otherwise the interpreter running orch-tui.
"""

from __future__ import annotations

import sys
from pathlib import Path

from orch_tui.core.config import Config

PROJECT_VENV = ".venv"


def venv_python(workspace: Path) -> Path | None:
    """The interpreter of ``workspace/.venv`` (POSIX or Windows layout), if there is one."""
    for relative in ("bin/python", "Scripts/python.exe"):
        candidate = workspace / PROJECT_VENV / relative
        if candidate.is_file():
            return candidate
    return None


def check_python(config: Config, workspace: Path) -> str:
    if config.checks.python:
        return config.checks.python
    found = venv_python(workspace)
    return str(found.absolute()) if found is not None else sys.executable
