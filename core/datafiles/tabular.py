"""CSV and TSV: columns with inferred types, the row count and the first rows, from the head.

Only the head is read (:data:`~orch_tui.core.datafiles.head.HEAD_BYTES`); when the file is
larger, the row count is an estimate from the head's rows per byte, and says so.
"""

from __future__ import annotations

import csv
import datetime
import io
from collections.abc import Sequence
from pathlib import Path

from orch_tui.core.datafiles.head import HEAD_BYTES, DataError, read_head, text_head

SHOWN_ROWS = 5
"""Rows after the header quoted in the description."""
MAX_COLUMNS_LISTED = 60
MAX_CELL_CHARS = 80


def describe_table(path: Path, size: int, delimiter: str) -> str:
    """The columns (with types), the row count and the first rows of a CSV (``,``) or TSV."""
    what = "CSV" if delimiter == "," else "TSV"
    head = read_head(path)
    whole = size <= len(head)
    text = text_head(path, head, f"{what} text")
    if not whole:  # the last line may be cut: only whole lines count
        cut = text.rfind("\n")
        if cut < 0:
            raise DataError(
                f"{path}: its first line is longer than {HEAD_BYTES:,} bytes "
                f"(a {what} header is expected)"
            )
        text = text[: cut + 1]
    rows = _parse(path, text, delimiter, what)
    header, body = rows[0], rows[1:]
    lines = [_columns_line(header, body), _rows_line(len(body), whole, size, len(head))]
    lines.append("first rows:")
    lines += [_quoted(row, delimiter) for row in rows[: SHOWN_ROWS + 1]]
    return "\n".join(lines)


def _parse(path: Path, text: str, delimiter: str, what: str) -> list[list[str]]:
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter, strict=True))
    except csv.Error as exc:
        raise DataError(f"{path}: not readable as {what} ({exc})") from None
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise DataError(f"{path}: its first line is empty (a {what} header row is expected)")
    return [row for row in rows if row]


def _columns_line(header: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    named = [
        f"{name.strip() or f'(column {index + 1})'} ({column_type([row[index] for row in body if index < len(row)])})"
        for index, name in enumerate(header[:MAX_COLUMNS_LISTED])
    ]
    more = len(header) - MAX_COLUMNS_LISTED
    suffix = f", and {more} more" if more > 0 else ""
    return f"columns ({len(header)}): " + ", ".join(named) + suffix


def _rows_line(count: int, whole: bool, size: int, head_bytes: int) -> str:
    if whole:
        return f"rows: {count:,} (after the header)"
    estimate = round(count * size / max(head_bytes, 1), -2 if count > 100 else 0)
    return f"rows: about {int(estimate):,} (estimated from the first {head_bytes:,} bytes)"


def _quoted(row: Sequence[str], delimiter: str) -> str:
    cells = [cell if len(cell) <= MAX_CELL_CHARS else cell[:MAX_CELL_CHARS] + "…" for cell in row]
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="").writerow(cells)
    return out.getvalue()


def column_type(values: Sequence[str]) -> str:
    """The narrowest type every non-empty value fits: integer, decimal, boolean, date,
    datetime or text ("empty" when there is no value)."""
    present = [value.strip() for value in values if value.strip()]
    if not present:
        return "empty"
    for name, fits in _TYPES:
        if all(fits(value) for value in present):
            return name
    return "text"


def _is_int(value: str) -> bool:
    return value.lstrip("+-").isdigit()


def _is_decimal(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return value.lower() not in ("nan", "inf", "-inf", "+inf", "infinity")


def _is_bool(value: str) -> bool:
    return value.lower() in ("true", "false", "yes", "no")


def _is_date(value: str) -> bool:
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_datetime(value: str) -> bool:
    try:
        datetime.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


_TYPES = (
    ("integer", _is_int),
    ("decimal", _is_decimal),
    ("boolean", _is_bool),
    ("date", _is_date),
    ("datetime", _is_datetime),
)
