"""Where the project's ``.venv`` and its interpreter are, apart from making it (``venv``).

``doctor`` and the short commands name the interpreter without loading the installer and the
check runner that making the environment needs.
"""

from __future__ import annotations

from pathlib import Path

PROJECT_VENV = ".venv"


def venv_python(workspace: Path) -> Path | None:
    """The interpreter of ``workspace/.venv`` (POSIX or Windows layout), if there is one."""
    for relative in ("bin/python", "Scripts/python.exe"):
        candidate = workspace / PROJECT_VENV / relative
        if candidate.is_file():
            return candidate
    return None
