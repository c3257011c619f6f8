"""A map of the project for prompts: paths, sizes and top-level definitions, not whole files.

A real project does not fit in a prompt. The model gets :func:`project_map` (every file with its
size, and for Python files the top-level classes and functions read with :mod:`ast`) and the full
text only of the files that matter (:func:`files_that_matter`); it reads the rest with the editor
tool's ``view``. ``AGENTS.md`` at the workspace root is the project's own instructions.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from orch_tui.core.util.digests import blake2b_16
from orch_tui.core.workspace.boundary import SKIPPED_DIRS
from orch_tui.core.workspace.test_guard import NOT_SEARCHED

AGENTS_FILE = "AGENTS.md"
MAP_CHARS = 20_000
"""Characters of project map in a generation prompt."""
MAX_AGENTS_CHARS = 20_000
"""An AGENTS.md longer than this is cut (it is part of every request)."""


def project_files(root: Path) -> dict[str, int]:
    """Every file of the project (relative posix path → size in bytes), installed code left out.

    A file (or a link to one) is listed; a folder is searched unless it is a link or one of
    the left-out names; what cannot be read is passed over. Read with ``os.scandir``, whose
    entries know whether they are files and hold their own stat: a run's opening and its first
    prompt each list the project, and on 200 files a ``Path`` made, checked and stat'ed twice
    per file was about half of each listing.
    """
    found: dict[str, int] = {}
    _list_files(os.fspath(root), "", found)
    return dict(sorted(found.items()))


def _list_files(folder: str, prefix: str, found: dict[str, int]) -> None:
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir():
                if not (
                    entry.name in SKIPPED_DIRS or entry.name in NOT_SEARCHED or entry.is_symlink()
                ):
                    _list_files(entry.path, f"{prefix}{entry.name}/", found)
            elif entry.is_file():
                found[prefix + entry.name] = entry.stat().st_size
        except OSError:  # gone, or unreadable, since the folder was read
            continue


MAX_PARSED_BYTES = 500_000
"""A Python file larger than this is listed without its outline (nor parsed)."""


def top_level_names(source: str) -> list[str]:
    """``class X``, ``def f`` at the top level of a Python module; [] when it does not parse."""
    names, _error = outline(source)
    return names


OUTLINES_KEPT = 4096
"""Outlines remembered by content, so a run's opening (:func:`unparsable_files`) and its first
prompt (:func:`project_map`) parse each file once: on a 200-file workspace each pass is ~0.1 s."""
_outlines: dict[bytes, tuple[tuple[str, ...], str | None]] = {}


def outline(source: str) -> tuple[list[str], str | None]:
    """A module's top-level ``class X`` / ``def f`` names, or why it does not parse
    (``line 3: invalid syntax``)."""
    key = blake2b_16(source.encode("utf-8", "surrogatepass"))
    found = _outlines.get(key)
    if found is None:
        names, error = _parse_outline(source)
        if len(_outlines) >= OUTLINES_KEPT:
            del _outlines[next(iter(_outlines))]
        found = _outlines[key] = (tuple(names), error)
    return list(found[0]), found[1]


def _parse_outline(source: str) -> tuple[list[str], str | None]:
    import ast  # a workspace without Python files (a new project's start) parses nothing

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        why = getattr(exc, "msg", None) or str(exc)
        return [], f"line {line}: {why}" if line else why
    names = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.append(f"class {node.name}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.append(f"def {node.name}")
    return names, None


def _python_source(root: Path, path: str, size: int) -> str | None:
    if not path.endswith(".py") or size > MAX_PARSED_BYTES:
        return None
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as source:
        return source.read()


def project_map(root: Path, budget: int) -> str:
    """One line per file, within ``budget`` characters (the rest is counted, not listed); a
    Python file that does not parse says so (a hand edit the model should know of)."""
    files = project_files(root)
    if not files:
        return "(none: the workspace is empty)"
    lines: list[str] = []
    used = 0
    for number, (path, size) in enumerate(files.items()):
        line = f"- {path} ({size:,} bytes)"
        source = _python_source(root, path, size)
        if source is not None:
            names, error = outline(source)
            if error:
                line += f": does not parse ({error})"
            elif names:
                line += ": " + ", ".join(names)
        if used + len(line) + 1 > budget:
            lines.append(
                f"- ... and {len(files) - number} more files (list them with `view /workspace`)"
            )
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def unparsable_files(root: Path) -> dict[str, str]:
    """The project's Python files that do not parse (path → why), in path order."""
    found = {}
    for path, size in project_files(root).items():
        source = _python_source(root, path, size)
        error = outline(source)[1] if source is not None else None
        if error:
            found[path] = error
    return found


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
