"""Data files given with the spec: each described from at most its head, bad ones refused."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from orch_tui.core.datafiles.head import HEAD_BYTES, DataError
from orch_tui.core.datafiles.inputs import read_data_file, read_data_files, with_data
from orch_tui.core.datafiles.tabular import column_type

SALES = "id,name,price,sold_on,paid\n1,apple,1.5,2024-01-02,true\n2,pear,2,2024-02-03,false\n"


def described(path: Path) -> str:
    return read_data_file(path).description


def test_a_csv_is_described_by_its_columns_types_row_count_and_first_rows(tmp_path: Path) -> None:
    path = tmp_path / "sales.csv"
    path.write_text(SALES)

    data = read_data_file(path)

    assert data.name == "data/sales.csv" and data.size == len(SALES)
    lines = data.description.splitlines()
    assert lines[0] == f"format: CSV; size: {len(SALES)} bytes"
    assert lines[1] == (
        "columns (5): id (integer), name (text), price (decimal), sold_on (date), paid (boolean)"
    )
    assert lines[2] == "rows: 2 (after the header)"
    assert lines[3:] == ["first rows:", *SALES.splitlines()]


def test_a_tsv_is_split_on_tabs(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    path.write_text("city\tpeople\nOslo\t700000\n")

    assert "columns (2): city (text), people (integer)" in described(path)


def test_column_types() -> None:
    assert column_type(["1", "-2", ""]) == "integer"
    assert column_type(["1", "2.5"]) == "decimal"
    assert column_type(["2024-01-01T10:00:00"]) == "datetime"
    assert column_type(["", " "]) == "empty"
    assert column_type(["1", "x"]) == "text"


def read_bytes_of_this_process() -> int:
    """Bytes this process has read through read() calls so far (Linux's /proc/self/io)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux's /proc/self/io")
def test_a_huge_csv_is_described_from_its_head_never_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    row = "12345,some text here,3.25\n"
    with path.open("w") as handle:
        handle.write("id,label,value\n")
        block = row * 10_000
        for _ in range(100):  # 26 MB
            handle.write(block)
    size = path.stat().st_size

    before = read_bytes_of_this_process()
    from orch_tui.core.datafiles.inputs import describe

    description = describe(path, size)
    read = read_bytes_of_this_process() - before

    assert read < 4 * HEAD_BYTES, f"read {read:,} bytes of a {size:,}-byte file to describe it"
    assert "columns (3): id (integer), label (text), value (decimal)" in description
    rows_line = next(line for line in description.splitlines() if line.startswith("rows:"))
    estimate = int(rows_line.split()[2].replace(",", ""))
    assert 900_000 <= estimate <= 1_100_000, rows_line
    assert "estimated from the first" in rows_line


def test_json_is_described_by_its_shape_and_a_sample(tmp_path: Path) -> None:
    path = tmp_path / "people.json"
    path.write_text(json.dumps([{"name": f"p{i}", "age": i} for i in range(50)]))

    description = described(path)

    assert "top level: an array of 50 items: object (the first with keys name, age)" in description
    assert '{"name": "p0", "age": 0}' in description and "p3" not in description


def test_a_large_json_is_described_from_its_head(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + ",".join(['{"k": 1}'] * 20_000) + "]")

    description = described(path)

    assert "top level: an array (read from the first" in description


def test_an_xlsx_is_described_sheet_by_sheet(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    path = tmp_path / "book.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Q1"
    for row in (["region", "units"], ["north", 3], ["south", 4]):
        sheet.append(row)
    book.create_sheet("Notes").append(["note"])
    book.save(path)

    description = described(path)

    assert description.startswith("format: Excel workbook (.xlsx); size: ")
    assert "sheets (2): Q1, Notes" in description
    assert 'sheet "Q1": 2 rows after the header' in description
    assert "columns (2): region (text), units (integer)" in description
    assert "north | 3" in description


def test_an_xlsx_without_openpyxl_names_the_extra(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "book.xlsx"
    path.write_bytes(b"PK\x03\x04 not really")
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # import openpyxl now raises ImportError

    with pytest.raises(DataError) as caught:
        read_data_file(path)

    assert "pip install 'orch-tui[xlsx]'" in str(caught.value) and str(path) in str(caught.value)


def test_other_files_get_their_size_and_kind(tmp_path: Path) -> None:
    png = tmp_path / "logo.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 2000)
    notes = tmp_path / "notes.md"
    notes.write_text("# notes\n")

    assert described(png) == "format: PNG image; size: 2.0 KB"
    assert described(notes) == "format: text (text/markdown); size: 8 bytes"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("bin.csv", b"a,b\n\0\0\0\n", "looks binary"),
        ("empty_header.csv", b"\n1,2\n", "first line is empty"),
        ("quote.csv", b'"id,name\n1,2\n', "not readable as CSV"),
        ("latin.csv", b"name\n\xe9t\xe9 caf\xe9\n", "not UTF-8"),
        ("bad.json", b'{"a": 1,,}', "not valid JSON (Expecting property name"),
    ],
)
def test_malformed_data_is_refused_naming_the_file(tmp_path: Path, name, content, reason) -> None:
    path = tmp_path / name
    path.write_bytes(content)

    with pytest.raises(DataError) as caught:
        read_data_file(path)

    assert reason in str(caught.value) and str(path) in str(caught.value)


def test_a_first_line_longer_than_the_head_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text("x" * (HEAD_BYTES * 2) + "\n1\n")

    with pytest.raises(DataError, match="first line is longer than"):
        read_data_file(path)


def test_a_missing_file_or_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="data file not found: .*nope.csv"):
        read_data_files([tmp_path / "nope.csv"])
    with pytest.raises(DataError, match="is a folder"):
        read_data_files([tmp_path])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "secret.csv"
    path.write_text(SALES)
    path.chmod(0)

    with pytest.raises(DataError, match="cannot be read"):
        read_data_files([path])


def test_two_files_of_one_name_are_refused_and_one_file_twice_is_kept_once(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "x.csv").write_text(SALES)

    with pytest.raises(DataError, match="same name"):
        read_data_files([tmp_path / "a" / "x.csv", tmp_path / "b" / "x.csv"])
    assert (
        len(read_data_files([tmp_path / "a" / "x.csv", tmp_path / "a" / ".." / "a" / "x.csv"])) == 1
    )


def test_a_changed_data_file_changes_the_run_digest(tmp_path: Path) -> None:
    path = tmp_path / "sales.csv"
    path.write_text(SALES)
    before = with_data("spec", read_data_files([path]))
    path.write_text(SALES + "3,fig,4,2024-03-04,true\n")

    assert with_data("spec", read_data_files([path])) != before
    assert with_data("spec", ()) == "spec"
