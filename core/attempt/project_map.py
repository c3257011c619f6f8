"""A map of the project for prompts: paths, sizes and top-level definitions, not whole files.

A real project does not fit in a prompt. The model gets :func:`project_map` (every file with its
size, and for Python files the top-level classes and functions read with :mod:`ast`) and the full
text only of the files that matter (:func:`files_that_matter`); it reads the rest with the editor
tool's ``view``. ``AGENTS.md`` at the workspace root is the project's own instructions.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from pathlib import Path

from orch_tui.core.workspace.boundary import SKIPPED_DIRS
from orch_tui.core.workspace.test_guard import NOT_SEARCHED

AGENTS_FILE = "AGENTS.md"
MAP_CHARS = 20_000
"""Characters of project map in a generation prompt."""
MAX_AGENTS_CHARS = 20_000
"""An AGENTS.md longer than this is cut (it is part of every request)."""


def project_files(root: Path) -> dict[str, int]:
    """Every file of the project (relative posix path → size in bytes), installed code left out."""
    found: dict[str, int] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and d not in NOT_SEARCHED)
        for name in files:
            path = Path(folder, name)
            if path.is_file():
                found[path.relative_to(root).as_posix()] = path.stat().st_size
    return dict(sorted(found.items()))


def top_level_names(source: str) -> list[str]:
    """``class X``, ``def f`` at the top level of a Python module; [] when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.append(f"class {node.name}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.append(f"def {node.name}")
    return names


def project_map(root: Path, budget: int) -> str:
    """One line per file, within ``budget`` characters (the rest is counted, not listed)."""
    files = project_files(root)
    if not files:
        return "(none: the workspace is empty)"
    lines: list[str] = []
    used = 0
    for number, (path, size) in enumerate(files.items()):
        line = f"- {path} ({size:,} bytes)"
        if path.endswith(".py") and size <= 500_000:
            names = top_level_names((root / path).read_text(encoding="utf-8", errors="replace"))
            if names:
                line += ": " + ", ".join(names)
        if used + len(line) + 1 > budget:
            lines.append(
                f"- ... and {len(files) - number} more files (list them with `view /workspace`)"
            )
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def files_that_matter(root: Path, changed: Iterable[str], mentions: Iterable[str]) -> list[str]:
    """Files changed in this run, then files named in ``mentions`` (failures, the task), in order."""
    files = project_files(root)
    chosen = [path for path in changed if path in files]
    text = "\n".join(mentions)
    for path in files:
        if path not in chosen and (path in text or f"/{Path(path).name}" in text):
            chosen.append(path)
    return chosen


def agents_instructions(root: Path) -> str | None:
    """The text of ``AGENTS.md`` at the workspace root, cut to a bound; None when absent."""
    path = root / AGENTS_FILE
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    return text if len(text) <= MAX_AGENTS_CHARS else text[:MAX_AGENTS_CHARS] + "\n[... cut ...]"


def project_instructions(root: Path) -> list[dict[str, str]]:
    """The system prompt block carrying ``AGENTS.md``, or none."""
    text = agents_instructions(root)
    if text is None:
        return []
    wrapped = f'<project-instructions file="{AGENTS_FILE}">\n{text}\n</project-instructions>'
    return [{"type": "text", "text": wrapped}]
