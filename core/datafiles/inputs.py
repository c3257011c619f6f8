"""The data files of a run (``--data``, or ``[spec] data``): each checked, fingerprinted and
described for the first prompt, and where it lives in the workspace (``data/<name>``).

The description is bounded (see :mod:`~orch_tui.core.datafiles.head`); the fingerprint reads the
file in chunks, never holding it whole, so a changed data file is noticed like a changed spec.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from orch_tui.core.datafiles.head import DataError, size_words
from orch_tui.core.util.digests import sha256_hex
from orch_tui.core.util.records import record

DATA_FOLDER = "data"
"""Where the data files are copied in the workspace."""

_FORMATS = {".csv": "CSV", ".tsv": "TSV", ".json": "JSON", ".xlsx": "Excel workbook (.xlsx)"}


@record(frozen=True)
class DataFile:
    """One data file given with the spec."""

    source: Path
    """Where it was given (resolved)."""
    name: str
    """Its path in the workspace, ``data/<file name>``."""
    size: int
    digest: str
    """sha256 of its bytes: a changed file starts a new run, as a changed spec does."""
    description: str
    """What the first prompt says about it (format, size, and its contents' outline)."""

    def prompt_block(self) -> str:
        return f'<data path="{self.name}">\n{self.description}\n</data>'


def read_data_files(paths: Sequence[Path]) -> tuple[DataFile, ...]:
    """Check and describe every data file; DataError names the first bad one."""
    files: list[DataFile] = []
    seen: dict[str, Path] = {}
    for given in paths:
        path = given.resolve()
        if path in seen.values():
            continue
        data = read_data_file(path)
        if data.name in seen:
            raise DataError(
                f"{given}: has the same name as {seen[data.name]}; both would be {data.name} "
                "in the workspace (rename one)"
            )
        seen[data.name] = path
        files.append(data)
    return tuple(files)


def read_data_file(path: Path) -> DataFile:
    if not path.exists():
        raise DataError(f"data file not found: {path}")
    if path.is_dir():
        raise DataError(f"data file is a folder, not a file: {path} (give each file with --data)")
    if not path.is_file():
        raise DataError(f"data file is not a regular file: {path}")
    if not os.access(path, os.R_OK):
        raise DataError(f"data file cannot be read (permission denied): {path}")
    try:
        size = path.stat().st_size
        description = describe(path, size)
        digest = file_digest(path)
    except OSError as exc:
        raise DataError(f"data file cannot be read: {path}: {exc.strerror or exc}") from None
    return DataFile(
        source=path,
        name=f"{DATA_FOLDER}/{path.name}",
        size=size,
        digest=digest,
        description=description,
    )


def describe(path: Path, size: int) -> str:
    """Format and size, then the outline of its contents, from at most its head."""
    # Imported here: every run reads this module, few give data files (a run's start, issue 26).
    from orch_tui.core.datafiles.json_shape import describe_json
    from orch_tui.core.datafiles.kinds import file_kind
    from orch_tui.core.datafiles.tabular import describe_table
    from orch_tui.core.datafiles.xlsx import describe_xlsx

    suffix = path.suffix.lower()
    fmt = _FORMATS.get(suffix)
    if suffix in (".csv", ".tsv"):
        body = describe_table(path, size, "," if suffix == ".csv" else "\t")
    elif suffix == ".json":
        body = describe_json(path, size)
    elif suffix == ".xlsx":
        body = describe_xlsx(path)
    else:
        fmt, body = file_kind(path), ""
    first = f"format: {fmt}; size: {size_words(size)}"
    return f"{first}\n{body}" if body else first


def file_digest(path: Path) -> str:
    import hashlib  # OpenSSL: only for a run given data files

    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def with_data(spec_digest: str, files: Sequence[DataFile]) -> str:
    """The run's digest: the spec's alone without data files (as before them), else the spec's
    and every file's name and digest together."""
    if not files:
        return spec_digest
    joined = "\n".join([spec_digest, *(f"{f.name} {f.digest}" for f in files)])
    return sha256_hex(joined.encode("utf-8"))
