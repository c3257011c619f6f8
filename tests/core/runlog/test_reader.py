"""Reading ``logs/<run_id>/`` back (core/runlog/reader.py), and writing it (writer.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from orch_tui.core.domain.events import STREAM_EVENTS, UnknownEvent
from orch_tui.core.runlog.layout import EVENTS, attempt_dir_name
from orch_tui.core.runlog.reader import parse_events, read_events, read_json_file
from orch_tui.core.runlog.writer import RunLog
from orch_tui.core.util.atomic import Commit
from tests.core.domain.test_events import SAMPLES


def test_what_the_writer_logs_reads_back_as_the_same_events(tmp_path: Path) -> None:
    log = RunLog(tmp_path, "run-1")
    for event in SAMPLES:
        log(event)
    read = read_events(tmp_path / "run-1" / EVENTS)
    assert read.problems == [] and not read.torn_tail
    assert read.events == [event for event in SAMPLES if not isinstance(event, STREAM_EVENTS)]


def test_a_torn_last_line_is_dropped_and_an_unknown_kind_kept(tmp_path: Path) -> None:
    log = RunLog(tmp_path, "run-1")
    log(SAMPLES[0])
    path = tmp_path / "run-1" / EVENTS
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"event": "batch_started", "jobs": 2}\n{"event": "state", "at": "2026-')
    read = read_events(path)
    assert read.problems == [] and read.torn_tail
    assert read.events[0] == SAMPLES[0]
    (unknown,) = read.events[1:]
    assert isinstance(unknown, UnknownEvent) and unknown.name == "batch_started"


def test_a_missing_events_file_is_a_problem_not_an_error(tmp_path: Path) -> None:
    assert read_events(tmp_path / EVENTS).problems == [f"{EVENTS} is missing"]
    assert read_events(tmp_path / EVENTS).events == []


def test_json_files_read_as_data_or_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text('{"a": 1}')
    (tmp_path / "bad.json").write_text("{")
    assert read_json_file(tmp_path / "good.json") == ({"a": 1}, None)
    assert read_json_file(tmp_path / "bad.json") == (None, "bad.json is not valid JSON")
    assert read_json_file(tmp_path / "none.json") == (None, "none.json is missing")


@pytest.mark.parametrize(
    ("data", "events", "problems", "torn"),
    [
        (b'{"event": "a"}\n\n{"event": "b"}\n', ["a", "b"], [], False),
        (b'{"event": "a"}\n{"event": "b"', ["a"], [], True),
        (b'{"event": "a"}\n{"event": "b", "x": "\xc3', ["a"], [], True),
        (b'{"event": "a"}\n{"event": "\xff"}\n{"event": "c"}\n', ["a", "c"], [2], False),
        (b'{"event": "a"}, {"event": "b"}\n{"event": "c"}\n', ["c"], [1], False),
        (b'{"event": "a", "x": [1,\n2]}\n{"event": "c"}\n', ["c"], [1, 2], False),
        (b'[]\n{"event": 3}\n{"event": "c"}\n', ["c"], [1, 2], False),
        (
            b'{"event": "a"}\n{"event": "b\n{"event": "run_started"}\n',
            ["a", "run_started"],
            [],
            False,
        ),
        (
            b'{"event": "a"}\n{"event": "b", "x": "\xc3\n{"event": "run_started"}\n',
            ["a", "run_started"],
            [],
            False,
        ),
        (b'{"event": "a"}\nnot json\n', ["a"], [2], False),
    ],
)
def test_each_events_line_must_hold_one_event(
    data: bytes, events: list[str], problems: list[int], torn: bool
) -> None:
    log = parse_events(data)
    assert [event.name for event in log.events] == events
    assert log.problems == [f"events.jsonl line {n} is not a valid event" for n in problems]
    assert log.torn_tail is torn


def test_an_attempts_folder_is_made_once_however_many_files_it_gets(tmp_path, monkeypatch):
    """Each of an attempt's files asks for its folder; the folder is made by the first ask
    only (an attempt wrote ~17 files, each a mkdir of a folder already there)."""
    log = RunLog(tmp_path, "run-1")
    made: list[str] = []
    real_mkdir = os.mkdir

    def counting_mkdir(path, *args, **kwargs):
        made.append(os.fspath(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", counting_mkdir)
    commit = Commit()
    log.write_json(0, "proposal.json", {"files": []})
    log.write_text(0, "applied.patch", "")
    log.write_json(0, "report.json", {"passed": True}, commit)
    log.stage_json(0, "decisions.json", {}, commit)
    log.write_json(1, "proposal.json", {"files": []})
    assert log.attempt_dir(0) == tmp_path / "run-1" / attempt_dir_name(0)
    commit.commit(tmp_path / "state.json", b"{}\n")

    assert made == [os.fspath(log.attempt_dir(0)), os.fspath(log.attempt_dir(1))]
    assert json.loads((log.attempt_dir(0) / "decisions.json").read_text()) == {}
    assert log.read_json(0, "report.json") == {"passed": True}
