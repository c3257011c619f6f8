"""End to end: ``orch-tui SPEC --auto --data FILE`` against the local fake Messages API.

The data files are made by the test (a CSV and an .xlsx workbook): the first request describes
both in its cached prefix, the model's edit of one is refused, and the copies stay as given.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.e2e_support import FAST_CONFIG, assert_clean_exit, attempt_turns
from tests.support.fake_anthropic import Turn

pytestmark = pytest.mark.e2e

SPEC = "# totals\n\n`totals.py` with `total()` summing the CSV's units, and pytest tests.\n"
CSV = "region,units\nnorth,3\nsouth,4\n"
APP = (
    "import csv\n\n\ndef total(path='data/units.csv'):\n"
    "    with open(path) as f:\n        return sum(int(r['units']) for r in csv.DictReader(f))\n"
)
TEST = "from totals import total\n\n\ndef test_total():\n    assert total() == 7\n"


def make_workbook(path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.title = "Stock"
    for row in (["item", "count"], ["bolts", 120], ["nuts", 80]):
        book.active.append(row)
    book.save(path)


def test_data_files_are_described_first_and_protected(project_factory, fake_server):
    fake = fake_server(
        [
            Turn.edits(
                "Trying to tidy the data.", [("str_replace", "data/units.csv", "north", "N")]
            ),
            *attempt_turns(
                "Writing it.",
                [("create", "totals.py", APP), ("create", "tests/test_totals.py", TEST)],
            ),
        ]
    )
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    (project.root / "units.csv").write_text(CSV)
    make_workbook(project.root / "stock.xlsx")

    result = project.run_auto("--data", "units.csv", "--data", "stock.xlsx")

    assert_clean_exit(result, 0)
    first = fake.requests[0].body
    cached = first["system"][-1]
    assert cached["cache_control"] == {"type": "ephemeral"}
    assert '<data path="data/units.csv">' in cached["text"]
    assert "columns (2): region (text), units (integer)" in cached["text"]
    assert '<data path="data/stock.xlsx">' in cached["text"]
    assert 'sheet "Stock": 2 rows after the header' in cached["text"]
    assert "columns (2): item (text), count (integer)" in cached["text"]
    refusal = json.dumps(fake.requests[1].body["messages"][-1])
    assert "data/units.csv is a data file given with the spec" in refusal
    assert (project.workspace / "data" / "units.csv").read_text() == CSV
    assert (project.workspace / "data" / "stock.xlsx").read_bytes() == (
        project.root / "stock.xlsx"
    ).read_bytes()


def test_the_config_names_data_files_too(project_factory, fake_server):
    fake = fake_server(
        attempt_turns(
            "Writing it.", [("create", "totals.py", APP), ("create", "tests/test_totals.py", TEST)]
        )
    )
    project = project_factory(
        spec_text=SPEC, fake_url=fake.url, config=FAST_CONFIG + '\n[spec]\ndata = ["units.csv"]\n'
    )
    (project.root / "units.csv").write_text(CSV)

    result = project.run_auto()

    assert_clean_exit(result, 0)
    assert '<data path="data/units.csv">' in fake.requests[0].body["system"][-1]["text"]


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("missing.csv", "data file not found: "),
        ("folder", "is a folder, not a file"),
        ("binary.csv", "looks binary"),
    ],
)
def test_a_bad_data_file_stops_before_any_request(project_factory, fake_server, given, says):
    fake = fake_server([])
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    (project.root / "folder").mkdir()
    (project.root / "binary.csv").write_bytes(b"a,b\n\0\0\n")

    result = project.run_auto("--data", given)

    assert_clean_exit(result, 1)
    assert says in result.stderr and given in result.stderr
    assert fake.requests == [] and not project.state_path.exists()
