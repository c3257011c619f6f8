"""The index file's columns: a column whose values repeat is kept as each value once and a
code per run, read back as one object per value; a malformed one is no index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.synthetic_runs import write_synthetic_runs
from orch_tui.core.history import index as history_index
from orch_tui.core.history.index import list_runs, recorded_then_checked
from orch_tui.core.history.index_file import (
    INDEX_NAME,
    OLD_INDEX_NAMES,
    SpecTexts,
    decoded_column,
    encoded_column,
    read_index,
)
from orch_tui.core.history.packed_signatures import packed, unpacked
from orch_tui.core.history.search import RunSearch
from tests.core.history.test_history import index_head


def test_repeated_values_are_kept_once_and_read_back_as_one_object(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 30)
    listed = list_runs(logs)
    columns = index_head(logs / INDEX_NAME)["runs"]
    assert isinstance(columns["state"], dict) and isinstance(columns["run_id"], list)
    assert len(columns["state"]["codes"]) == 30 and len(columns["state"]["values"]) < 15
    stored = read_index(logs / INDEX_NAME)
    assert stored is not None and sorted(stored.rows) == sorted(listed)
    by_state: dict[str, str] = {}
    for row in stored.rows:
        assert by_state.setdefault(row.state, row.state) is row.state  # one object per value


def test_values_equal_across_types_keep_their_types() -> None:
    column = [1, 1.0, 1, 1.0, None, None, True, True]
    stored = json.loads(json.dumps(encoded_column(column)))
    assert isinstance(stored, dict)
    back = decoded_column(stored)
    assert back == column and list(map(type, back)) == list(map(type, column))


def test_a_malformed_column_is_no_index_and_the_list_is_rebuilt(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 12)
    listed = list_runs(logs)
    path = logs / INDEX_NAME
    data, texts = index_head(path), path.read_text().split("\n", 1)[1]
    for codes in ("~" * 12, 7, None):  # a code past the values, not a string
        data["runs"]["state"]["codes"] = codes
        path.write_text(json.dumps(data) + "\n" + texts)
        assert read_index(path) is None
        assert list_runs(logs) == listed
        assert read_index(path) is not None  # rewritten


def test_writing_the_index_removes_an_earlier_versions_file(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 3)
    for name in OLD_INDEX_NAMES:
        (logs / name).write_text("{}")
    list_runs(logs)
    assert (logs / INDEX_NAME).exists()
    assert not any((logs / name).exists() for name in OLD_INDEX_NAMES)


def test_the_spec_texts_are_read_only_when_a_filter_needs_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 12)
    list_runs(logs)
    parsed: list[int] = []
    real = SpecTexts._parse

    def counted(self: SpecTexts) -> list[str]:
        parsed.append(self.count)
        return real(self)

    monkeypatch.setattr(SpecTexts, "_parse", counted)
    recorded = next(recorded_then_checked(logs))
    search = RunSearch(recorded.runs, recorded)
    assert len(search.matching("")) == 12 and parsed == []  # the list needs no spec text
    run = recorded.runs[0]
    word = (logs / run.run_id / "spec.md").read_text().lower().split()[-1]
    assert run in search.matching(word) and len(parsed) == 1  # read once, found by it


def test_malformed_spec_texts_read_as_empty_and_the_index_is_rebuilt(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 12)
    listed = list_runs(logs)
    path = logs / INDEX_NAME
    path.write_text(path.read_text().split("\n", 1)[0] + "\n[1, 2")
    stored = read_index(path)
    assert stored is not None and set(stored.specs.texts()) == {""}
    assert not path.exists()  # removed: the next launch rebuilds it
    assert list_runs(logs) == listed and read_index(path) is not None


def test_signatures_are_packed_and_read_back_as_each_folder_has_them(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 12)
    list_runs(logs)
    path = logs / INDEX_NAME
    assert isinstance(index_head(path)["runs"]["signature"], str)  # one string, not 12
    stored = read_index(path)
    assert stored is not None
    for run_id in ids:
        expected = history_index._signature(str(logs / run_id))
        assert stored.signatures[stored.position[run_id]] == expected
    assert stored.signatures[-1] == stored.signatures[len(ids) - 1]
    assert packed(["1:2:3", "-1:-1:4"]) != ["1:2:3", "-1:-1:4"]
    assert list(unpacked(packed(["1:2:3", "-1:-1:4"]), 2)) == ["1:2:3", "-1:-1:4"]
    assert packed(["1:2:3", "not:a:number"]) == ["1:2:3", "not:a:number"]  # kept as they are


@pytest.mark.parametrize("column", ["!!", "AAAA", 7, ["1:2:3"]])
def test_malformed_signatures_are_no_index(tmp_path: Path, column: object) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 3)
    listed = list_runs(logs)
    path = logs / INDEX_NAME
    data, texts = index_head(path), path.read_text().split("\n", 1)[1]
    data["runs"]["signature"] = column
    path.write_text(json.dumps(data) + "\n" + texts)
    assert read_index(path) is None
    assert list_runs(logs) == listed and read_index(path) is not None
