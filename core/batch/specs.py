"""The specs a batch runs: files and folders from the command line, each given a unique name.

A spec is a non-empty Markdown or text file. A folder stands for the specs directly inside it.
The name (the file's stem, made safe for a folder name) is where the run lives,
``batches/<batch_id>/<name>/``, so two specs with one name are refused rather than merged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from orch_tui.core.util.records import record

SPEC_SUFFIXES = (".md", ".markdown", ".txt")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class BatchError(Exception):
    """Bad input for a batch (no specs, a file that is not a spec, two specs with one name)."""


@record(frozen=True)
class BatchSpec:
    """One spec of a batch: its name in the batch folder and the file it is read from."""

    name: str
    path: Path


def spec_name(path: Path) -> str:
    """The folder name of a spec's run: its stem with anything unsafe replaced by ``-``."""
    return _UNSAFE.sub("-", path.stem).strip(".-") or "spec"


def collect_specs(arguments: Sequence[Path]) -> list[BatchSpec]:
    """Every spec the arguments name, in order; :class:`BatchError` on bad input."""
    files: list[Path] = []
    for argument in arguments:
        if argument.is_dir():
            found = sorted(p for p in argument.iterdir() if p.suffix in SPEC_SUFFIXES)
            if not found:
                raise BatchError(f"{argument}: no specs in this folder (*.md, *.markdown, *.txt)")
            files += found
        elif argument.exists():
            files.append(argument)
        else:
            raise BatchError(f"{argument}: no such file or folder")
    specs: dict[str, BatchSpec] = {}
    for path in files:
        _check_is_spec(path)
        spec = BatchSpec(spec_name(path), path.resolve())
        if spec.name in specs and specs[spec.name].path != spec.path:
            raise BatchError(
                f"two specs are named {spec.name!r}: {specs[spec.name].path} and {spec.path}; "
                "rename one (each run lives in a folder named after its spec)"
            )
        specs[spec.name] = spec
    return list(specs.values())


def _check_is_spec(path: Path) -> None:
    if path.suffix not in SPEC_SUFFIXES:
        raise BatchError(f"{path}: not a spec (a spec is a .md, .markdown or .txt file)")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BatchError(f"{path}: cannot be read as text ({exc})") from None
    if not text.strip():
        raise BatchError(f"{path}: the spec is empty")
