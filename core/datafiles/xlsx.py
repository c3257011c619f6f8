"""Excel workbooks: each sheet's columns and first rows, through openpyxl (the ``xlsx`` extra).

The workbook is opened read-only, so only the rows asked for are read from a large sheet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orch_tui.core.datafiles.head import DataError
from orch_tui.core.datafiles.tabular import SHOWN_ROWS, column_type

MISSING = "reading .xlsx data files needs openpyxl, the xlsx extra: pip install 'orch-tui[xlsx]'"
MAX_SHEETS = 20
SAMPLE_ROWS = 20
"""Rows read to infer each column's type."""


def describe_xlsx(path: Path) -> str:
    try:
        import openpyxl
    except ImportError:
        raise DataError(f"{path}: {MISSING}") from None
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds for a broken workbook
        raise DataError(f"{path}: not a readable .xlsx workbook ({exc})") from None
    try:
        names = book.sheetnames
        parts = [f"sheets ({len(names)}): {', '.join(names)}"]
        parts += [_sheet(name, book[name]) for name in names[:MAX_SHEETS]]
    finally:
        book.close()
    return "\n".join(parts)


def _sheet(name: str, sheet: Any) -> str:
    rows = [
        ["" if cell is None else str(cell) for cell in row]
        for row in sheet.iter_rows(max_row=SAMPLE_ROWS + 1, values_only=True)
    ]
    rows = [row for row in rows if any(row)]
    if not rows:
        return f'sheet "{name}": empty'
    header, body = rows[0], rows[1:]
    columns = ", ".join(
        f"{title or f'(column {index + 1})'} ({column_type([r[index] for r in body if index < len(r)])})"
        for index, title in enumerate(header)
    )
    count = sheet.max_row
    counted = f"{count - 1:,} rows after the header" if count else "row count unknown"
    shown = "\n".join("  " + " | ".join(row) for row in rows[: SHOWN_ROWS + 1])
    return f'sheet "{name}": {counted}\ncolumns ({len(header)}): {columns}\nfirst rows:\n{shown}'
