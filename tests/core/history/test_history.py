"""core.history against logs written by the real engine (scripted provider, demo spec), plus
synthetic and hand-damaged run folders."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench.synthetic_runs import write_synthetic_runs
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.events import EventBus, Notice, RunStarted
from orch_tui.core.domain.spec import Spec
from orch_tui.core.domain.state import RunState
from orch_tui.core.history import index as history_index
from orch_tui.core.history.detail import (
    HistoryError,
    compare,
    load_run,
    reviewed_changes,
    workspace_at,
)
from orch_tui.core.history.export import export_markdown
from orch_tui.core.history.grid import ABSENT, FAILED, PASSED, SKIPPED
from orch_tui.core.history.grid import test_grid as grid_of  # aliased: pytest would collect test_*
from orch_tui.core.history.index import build_index, list_runs, recorded_then_checked
from orch_tui.core.history.index_db import INDEX_NAME, INDEX_VERSION
from orch_tui.core.history.resume import mark_resumable, resume_blocker
from orch_tui.core.history.run_query import RunView
from orch_tui.core.history.scan import NEVER_STARTED, RunSummary, ScannedRun, scan_run
from orch_tui.core.loop.engine import Engine, RunOptions
from orch_tui.core.loop.review import AcceptAllReviewer, ReviewAborted, ReviewSession
from orch_tui.core.providers.scripted import ScriptedProvider
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.conversation import turns_with_content
from orch_tui.core.runlog.reader import read_events
from orch_tui.core.runlog.writer import RunLog

DEMO = Path(__file__).resolve().parents[3] / "core" / "demo"
FAILING_TEST = "tests/test_wordstats.py::test_counting_ignores_case"

DEMO_SUCCESS = (
    "5 tests pass (5 added, 0 rewritten, 0 weakened); 0 of 10 changed lines run by no test"
    ", after 2 attempts"
)
"""The demo's successful run's stop reason: its evidence line."""


class _LeaveMidReview:
    def review(self, session: ReviewSession) -> None:
        raise ReviewAborted


def run_engine(root: Path, *, script: dict | None = None, leave_mid_review: bool = False) -> str:
    """Run the real engine in project folder ``root`` on the demo spec; returns the run id."""
    root.mkdir(parents=True, exist_ok=True)
    spec_text = (DEMO / "spec.md").read_text(encoding="utf-8")
    (root / "spec.md").write_text(spec_text, encoding="utf-8")
    script_path = root / "script.json"
    if script is None:
        shutil.copy(DEMO / "script.json", script_path)
    else:
        script_path.write_text(json.dumps(script), encoding="utf-8")
    engine = Engine(
        paths=ProjectPaths(root),
        config=Config(),
        spec=Spec(Path("spec.md"), spec_text),
        provider=ScriptedProvider.from_path(script_path),
        reviewer=_LeaveMidReview() if leave_mid_review else AcceptAllReviewer(),
        bus=EventBus(),
        options=RunOptions(max_retries=1 if script is not None else 5),
    )
    try:
        engine.run()
    except ReviewAborted:
        pass
    return engine.state.run_id


@dataclass
class DemoProject:
    root: Path
    success: str  # the demo: attempt 0 fails one test, attempt 1 fixes it
    failed: str  # the script ends after attempt 0: model error on attempt 1
    unfinished: str  # left mid-review of attempt 0; the run in state.json

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def state(self) -> Path:
        return self.root / "state.json"


def make_demo_project(root: Path) -> DemoProject:
    """Three real runs in one project: a success, a failure and an unfinished one."""
    success = run_engine(root)
    first_attempt = json.loads((DEMO / "script.json").read_text(encoding="utf-8"))
    first_attempt["attempts"] = first_attempt["attempts"][:1]
    (root / "state.json").unlink()
    (root / "workspace").rename(root / "success-workspace")
    failed = run_engine(root, script=first_attempt)
    (root / "state.json").unlink()
    shutil.rmtree(root / "workspace")
    unfinished = run_engine(root, leave_mid_review=True)
    return DemoProject(root, success, failed, unfinished)


@pytest.fixture
def demo(demo_runs: DemoProject, tmp_path: Path) -> DemoProject:
    """A private copy of the real runs, free to damage."""
    root = tmp_path / "project"
    shutil.copytree(demo_runs.root, root)
    return DemoProject(root, demo_runs.success, demo_runs.failed, demo_runs.unfinished)


# -- the list -----------------------------------------------------------------------------------


def index_rows(index: Path, sql: str) -> list[Any]:
    """What a query of the index file returns (one value a row when it selects one)."""
    connection = sqlite3.connect(index)
    try:
        rows = connection.execute(sql).fetchall()
        connection.commit()
    finally:
        connection.close()
    return [row[0] if len(row) == 1 else row for row in rows]


def test_list_runs_summarises_real_runs_newest_first(demo: DemoProject) -> None:
    runs = list_runs(demo.logs)
    assert [run.run_id for run in runs] == [demo.unfinished, demo.failed, demo.success]
    unfinished, failed, success = runs
    assert (success.state, success.attempts, success.spec_name) == ("SUCCESS", 2, "spec.md")
    assert success.stop_reason == DEMO_SUCCESS
    assert success.tokens == 20205 and success.cost_usd == pytest.approx(0.033139)
    assert success.duration_s is not None and success.duration_s > 0
    assert failed.state == "FAILED" and failed.attempts == 2
    # the failed demo run stopped when its replay ran out of recorded turns (said plainly)
    assert failed.stop_reason is not None
    assert failed.stop_reason.startswith("the recording has no more turns")
    assert (unfinished.state, unfinished.stop_reason) == ("REVIEWING", None)
    assert not unfinished.finished and success.finished
    assert all(run.damaged is None for run in runs)


def test_index_is_written_reused_and_rebuilt(demo: DemoProject) -> None:
    first = list_runs(demo.logs)
    index = demo.logs / INDEX_NAME
    assert set(index_rows(index, "SELECT run_id FROM runs")) == {run.run_id for run in first}
    # A stale entry is recomputed: the run grows an event after the index was written.
    events = demo.logs / demo.unfinished / runlog.EVENTS
    with events.open("a") as handle:
        handle.write(
            json.dumps(
                {
                    "event": "state",
                    "at": "2030-01-01T00:00:00.000Z",
                    "state": "FAILED",
                    "attempt": 0,
                    "max_retries": 5,
                }
            )
            + "\n"
        )
    assert next(r for r in list_runs(demo.logs) if r.run_id == demo.unfinished).state == "FAILED"
    # A corrupt index is rebuilt from the logs, with the same answer.
    index.write_text("{not json")
    rebuilt = list_runs(demo.logs)
    assert [r.run_id for r in rebuilt] == [r.run_id for r in first]
    assert index_rows(index, "PRAGMA user_version") == [INDEX_VERSION]


def test_index_entry_is_trusted_while_its_signature_holds(demo: DemoProject) -> None:
    list_runs(demo.logs)
    index = demo.logs / INDEX_NAME
    index_rows(
        index,
        f"UPDATE runs SET spec_name = 'from-the-index.md' WHERE run_id = '{demo.success}' "
        "RETURNING id",
    )
    names = {run.run_id: run.spec_name for run in list_runs(demo.logs)}
    assert names[demo.success] == "from-the-index.md"


def test_only_runs_whose_files_changed_are_summarised_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 20)
    scanned: list[str] = []
    real_scan = history_index.scan_run

    def counting_scan(folder: str) -> ScannedRun:
        scanned.append(os.path.basename(folder))
        return real_scan(folder)

    monkeypatch.setattr(history_index, "scan_run", counting_scan)
    list_runs(logs)
    assert sorted(scanned) == sorted(ids)  # no index yet: every run
    scanned.clear()
    with (logs / ids[3] / runlog.EVENTS).open("a") as handle:
        handle.write(json.dumps({"event": "notice", "at": "2026-06-01T00:00:00.000Z"}) + "\n")
    runs = list_runs(logs)
    assert scanned == [ids[3]] and len(runs) == 20
    scanned.clear()
    list_runs(logs)
    assert scanned == []


def test_runs_read_back_from_the_index_are_the_runs_read_from_their_files(
    demo: DemoProject, tmp_path: Path
) -> None:
    """Every field the list and the filter show survives the index: a list from the index
    equals the runs summarised from their folders, and each is found by its spec's text."""
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 30)
    for source in (logs, demo.logs):
        (source / INDEX_NAME).unlink(missing_ok=True)
        build_index(source)
        assert (source / INDEX_NAME).exists()
        indexed = build_index(source)
        scanned = [scan_run(folder) for folder in source.iterdir() if folder.is_dir()]
        newest_first = sorted(scanned, key=lambda s: (s.summary.started, s.summary.run_id))
        assert indexed.runs == [each.summary for each in reversed(newest_first)]
        for each in scanned:
            last_line = (each.spec_lower or "").strip().splitlines()[-1]
            found = RunView(indexed, query=f"{last_line} {each.summary.run_id}")
            assert [run.run_id for run in found] == [each.summary.run_id]


def _write_run(logs: Path, run_id: str, events: list[dict[str, object]]) -> Path:
    folder = logs / run_id
    folder.mkdir(parents=True)
    meta = {"run_id": run_id, "spec_path": "specs/zoo.md", "created_at": "2026-03-01T10:00:00Z"}
    (folder / runlog.RUN_META).write_text(json.dumps(meta))
    (folder / runlog.SPEC_COPY).write_text("# Zoo\n")
    (folder / runlog.EVENTS).write_text("".join(json.dumps(event) + "\n" for event in events))
    return folder


def test_a_resumed_run_counts_only_the_time_its_sessions_ran(tmp_path: Path) -> None:
    start = {"event": "run_started", "spec_path": "specs/zoo.md", "state": "INIT", "attempt": 0}
    events: list[dict[str, object]] = [
        {**start, "at": "2026-03-01T10:00:00Z"},
        {"event": "state", "at": "2026-03-01T10:00:10Z", "state": "GENERATING", "attempt": 0},
        {"event": "notice", "at": "not a time"},  # the session ends at the last readable time
        {**start, "at": "2026-03-02T09:00:00Z", "resumed": True},  # a day later
        {"event": "state", "at": "2026-03-02T09:00:05Z", "state": "PATCHING", "attempt": 1},
        {"event": "run_finished", "at": "2026-03-02T09:00:20Z", "state": "SUCCESS",
         "stop_reason": "all checks passed", "tokens": 1200, "cost_usd": 0.25},
    ]  # fmt: skip
    _write_run(tmp_path, "20260301-100000-aaaa", events)
    (run,) = list_runs(tmp_path)
    assert run.duration_s == 10 + 20
    assert (run.state, run.attempts, run.tokens, run.cost_usd) == ("SUCCESS", 2, 1200, 0.25)
    assert (run.spec_name, run.started, run.damaged) == ("zoo.md", "2026-03-01T10:00:00Z", None)


def test_an_event_log_longer_than_one_read_is_read_to_its_end(tmp_path: Path) -> None:
    """Files are read in 64 KiB pieces: the summary comes from the last event of a big log."""
    start = {"event": "run_started", "at": "2026-03-01T10:00:00Z", "state": "INIT", "attempt": 0}
    notices = [{"event": "notice", "at": "2026-03-01T10:00:01Z", "message": "x" * 80}] * 2000
    finished = {"event": "run_finished", "at": "2026-03-01T11:00:00Z", "state": "FAILED",
                "stop_reason": "retries exhausted"}  # fmt: skip
    folder = _write_run(tmp_path, "20260301-100000-bbbb", [start, *notices, finished])
    assert (folder / runlog.EVENTS).stat().st_size > 3 * 65536
    (run,) = list_runs(tmp_path)
    assert (run.state, run.stop_reason, run.duration_s) == ("FAILED", "retries exhausted", 3600)


def test_an_index_of_another_version_is_rebuilt(demo: DemoProject) -> None:
    index = demo.logs / INDEX_NAME
    index.write_text(json.dumps({"version": 7, "runs": {}, "spec_count": 0}))
    assert len(list_runs(demo.logs)) == 3
    assert index_rows(index, "PRAGMA user_version") == [INDEX_VERSION]


def test_a_removed_run_leaves_the_list_and_the_index(demo: DemoProject) -> None:
    list_runs(demo.logs)
    shutil.rmtree(demo.logs / demo.failed)
    assert demo.failed not in {run.run_id for run in list_runs(demo.logs)}
    assert demo.failed not in index_rows(demo.logs / INDEX_NAME, "SELECT run_id FROM runs")


def test_the_recorded_runs_come_first_then_the_runs_as_their_folders_say(
    demo: DemoProject,
) -> None:
    """The index file's record is yielded as it is (a run removed since still in it, and
    searchable), then the checked list; without an index file, only the checked one."""
    assert [index.checked for index in recorded_then_checked(demo.logs)] == [True]
    listed = [run.run_id for run in list_runs(demo.logs)]  # writes the index file
    shutil.rmtree(demo.logs / demo.failed)

    (recorded, recorded_ids, found), (checked, checked_ids, found_after) = [
        (index, [run.run_id for run in index.runs], [r.run_id for r in RunView(index, query="2")])
        for index in recorded_then_checked(demo.logs)
    ]

    assert not recorded.checked and recorded_ids == listed and set(found) == set(listed)
    assert checked.checked and checked_ids == [r for r in listed if r != demo.failed]
    assert set(found_after) == set(listed) - {demo.failed}


def test_the_check_paces_itself_for_a_ui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pace`` is called every PACE_EVERY runs the check looks at (a UI's worker sleeps there),
    whether it finds the record or summarises runs again."""
    ids = write_synthetic_runs(tmp_path / "logs", 7)
    history_index.build_index(tmp_path / "logs")
    monkeypatch.setattr(history_index, "PACE_EVERY", 3)
    paced: list[int] = []

    (recorded, recorded_runs), (checked, checked_runs) = [
        (index, index.runs)
        for index in recorded_then_checked(tmp_path / "logs", pace=lambda: paced.append(1))
    ]

    assert checked.checked and not checked.changed and checked_runs == recorded_runs
    assert len(paced) == 2

    shutil.rmtree(tmp_path / "logs" / ids[0])  # the record no longer holds: runs read again
    paced.clear()
    recorded_runs, checked_runs = [
        index.runs
        for index in recorded_then_checked(tmp_path / "logs", pace=lambda: paced.append(1))
    ]

    assert len(recorded_runs) == 7 and len(checked_runs) == 6
    assert len(paced) == 2  # six folders, three at a time


def test_a_run_changed_since_it_was_recorded_is_read_again_by_the_check(
    demo: DemoProject,
) -> None:
    """Where every folder holds as recorded, the check is the record itself; a run whose
    events grew since is summarised again."""
    list_runs(demo.logs)
    recorded, checked = [(index.checked, index.runs) for index in recorded_then_checked(demo.logs)]
    assert checked[0] and checked[1] == recorded[1]

    events = demo.logs / demo.success / runlog.EVENTS
    reason = DEMO_SUCCESS
    events.write_text(events.read_text().replace(reason, "passed at last"))

    recorded_runs, checked_runs = [index.runs for index in recorded_then_checked(demo.logs)]
    assert {run.run_id: run.stop_reason for run in recorded_runs}[demo.success] == reason
    assert {run.run_id: run.stop_reason for run in checked_runs}[demo.success] == "passed at last"


def test_listing_works_in_a_read_only_logs_folder(demo: DemoProject) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores folder permissions")
    demo.logs.chmod(0o555)
    try:
        assert len(list_runs(demo.logs)) == 3
    finally:
        demo.logs.chmod(0o755)


def test_missing_logs_folder_lists_nothing(tmp_path: Path) -> None:
    assert list_runs(tmp_path / "logs") == []


# -- filter and sort ----------------------------------------------------------------------------


class RunSearch:
    """The runs list's filter in one order, as the screen asks for it: a view per query."""

    def __init__(self, index: Any, column: str = "started", descending: bool = True) -> None:
        self.index, self.column, self.descending = index, column, descending

    def matching(self, query: str) -> RunView:
        return RunView(self.index, self.column, self.descending, query)


def sort_runs(index: Any, column: str, descending: bool) -> list[RunSummary]:
    return list(RunView(index, column, descending))


def _matching(query: str, search: RunSearch) -> list[str]:
    return [run.run_id for run in search.matching(query)]


def test_filter_by_run_id_spec_name_and_spec_text(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 40)
    index = build_index(logs)
    search = RunSearch(index)
    assert _matching(ids[7][-4:], search) == [ids[7]]
    by_name = search.matching("CSVTOOL")
    assert by_name and all(r.spec_name == "csvtool.md" for r in by_name)
    # Text only inside the spec: every spec carries "Run tag: tagNNNN".
    assert _matching("tag0012", search) == [ids[12]]
    # Every word must match, in any of the fields.
    assert _matching("tag0012 median", search) == (
        [ids[12]] if "median" in (logs / ids[12] / "spec.md").read_text() else []
    )
    assert list(search.matching("")) == index.runs
    assert _matching("no-such-thing", search) == []


def test_filter_keeps_its_order_and_narrows_as_keys_are_typed_and_deleted(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 30)
    index = build_index(logs)
    by_cost = sort_runs(index, "cost", descending=True)
    search = RunSearch(index, "cost", descending=True)

    def holds(run: RunSummary, word: str) -> bool:
        spec = (logs / run.run_id / "spec.md").read_text()
        return word in f"{run.run_id}\n{run.spec_name}\n{spec}".lower()

    for typed in ("c", "cs", "csvtool"):
        assert list(search.matching(typed)) == [run for run in by_cost if holds(run, typed)]
    assert all(run.spec_name == "csvtool.md" for run in search.matching("csvtool"))
    twelfth = next(run for run in index.runs if run.run_id == ids[12])
    both = [ids[12]] if twelfth.spec_name == "csvtool.md" else []
    assert _matching("csvtool tag0012", search) == both  # a second word narrows further
    assert list(search.matching("csv")) == list(search.matching("csvtool"))  # a key deleted
    assert list(search.matching("")) == by_cost
    assert _matching("tag0012", search) == [ids[12]]  # a new query searches every run


def test_filter_reads_no_file(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 5)
    index = build_index(logs)
    shutil.rmtree(logs)  # the texts it searches were read when the index was built
    assert _matching("tag0003", RunSearch(index)) == [ids[3]]


def test_filter_sees_a_spec_changed_after_the_index_was_read(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 3)
    index = build_index(logs)
    assert _matching("zebra", RunSearch(index)) == []
    (logs / ids[1] / "spec.md").write_text("# zebra\n")
    os.utime(logs / ids[1], ns=(1, 1))  # the folder signature changes as an atomic write would
    index = build_index(logs)
    assert _matching("zebra", RunSearch(index)) == [ids[1]]


def _runs_with_specs(logs: Path, specs: list[str]) -> list[str]:
    """One synthetic run per spec text, each with that text in its spec.md; their ids."""
    ids = write_synthetic_runs(logs, len(specs))
    for run_id, spec in zip(ids, specs, strict=True):
        (logs / run_id / runlog.SPEC_COPY).write_text(spec)
    return ids


def test_filter_searches_shared_and_own_specs_alike(tmp_path: Path) -> None:
    """Runs of the same spec share one copy of its text; a run with a spec of its own has
    it in its haystack. A query finds a run the same way through either."""
    logs = tmp_path / "logs"
    shared, own = "# Zebra crossing\nStripes.\n", "# Yak shaving\nStripes too.\n"
    ids = _runs_with_specs(logs, [shared, own, shared, shared])
    index = build_index(logs)
    assert sorted(index_rows(logs / INDEX_NAME, "SELECT text FROM specs")) == sorted(
        [shared.lower(), own.lower()]
    )
    search = RunSearch(index)
    assert sorted(_matching("zebra", search)) == [ids[0], ids[2], ids[3]]
    assert _matching("yak", search) == [ids[1]]
    assert sorted(_matching("stripes", search)) == sorted(ids)
    assert _matching("zebra yak", search) == []
    assert _matching(f"{ids[2][-4:]} zebra", search) == [ids[2]]  # an id and a shared spec
    assert _matching(f"{ids[1][-4:]} shaving", search) == [ids[1]]


def test_a_query_typed_key_by_key_finds_what_a_new_search_finds(tmp_path: Path) -> None:
    """Typing narrows the last result and checks only the new words: every step must still
    give exactly the runs whose id, spec name or spec text holds every word."""
    logs = tmp_path / "logs"
    shared = "# Csvtool\nRead CSV files.\n"
    todos = [f"# Todo {n}\nA todo list.\n" for n in range(3)]
    _runs_with_specs(logs, [shared, todos[0], shared, todos[1], todos[2], shared])
    index = build_index(logs)
    runs = sort_runs(index, "cost", descending=True)
    texts = {
        run.run_id: f"{run.run_id}\n{run.spec_name}\n"
        + (logs / run.run_id / runlog.SPEC_COPY).read_text().lower()
        for run in runs
    }
    typing = RunSearch(index, "cost", descending=True)
    for query in ("c", "cs", "csv", "csv ", "csv f", "csv fi", "csv files", "t", "to", "todo 1"):
        words = query.split()
        expected = [run for run in runs if all(word in texts[run.run_id] for word in words)]
        assert list(typing.matching(query)) == expected, query
        assert list(RunSearch(index, "cost", True).matching(query)) == expected, query


def test_matches_read_as_a_list_of_runs(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 12)
    index = build_index(logs)
    runs = sort_runs(index, "tokens", descending=False)
    matches = RunSearch(index, "tokens", descending=False).matching(
        "md"
    )  # every run: spec names end in .md
    expected = [run for run in runs if "md" in run.spec_name]
    assert len(matches) == len(expected) == 12
    assert (matches[0], matches[-1], matches[3:6]) == (expected[0], expected[-1], expected[3:6])
    assert list(matches) == expected
    assert list(RunSearch(index).matching("no-such-run")) == []


def test_sort_by_each_column(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 30)
    index = build_index(logs)
    runs = index.runs
    by_cost = sort_runs(index, "cost", descending=True)
    assert [r.cost_usd for r in by_cost] == sorted((r.cost_usd for r in runs), reverse=True)
    by_attempts = sort_runs(index, "attempts", descending=False)
    assert [r.attempts for r in by_attempts] == sorted(r.attempts for r in runs)
    by_spec = sort_runs(index, "spec", descending=False)
    assert [r.spec_name for r in by_spec] == sorted(r.spec_name for r in runs)
    oldest = sort_runs(index, "started", descending=False)
    assert [r.run_id for r in oldest] == sorted(r.run_id for r in runs)
    # Runs without a stop reason (unfinished) go last in both directions.
    for descending in (True, False):
        reasons = [r.stop_reason for r in sort_runs(index, "stop_reason", descending)]
        assert None not in reasons[: reasons.index(None)] if None in reasons else True
        assert all(reason is None for reason in reasons[reasons.index(None) :])
    with pytest.raises(ValueError, match="unknown column"):
        sort_runs(index, "colour", descending=True)


# -- one run ------------------------------------------------------------------------------------


def test_load_run_reads_attempts(demo: DemoProject) -> None:
    detail = load_run(demo.logs, demo.success)
    first, second = detail.attempts
    assert (first.outcome, second.outcome) == ("failed", "passed")
    assert first.summary == "4 passed, 1 failed" and second.summary == "5 passed"
    assert first.report is not None and first.report.failing == [FAILING_TEST]
    assert first.proposal is not None and first.proposal.files == (
        "tests/test_wordstats.py",
        "wordstats.py",
    )
    assert second.patch_counts == {"wordstats.py": (1, 1)}
    assert "lower-case" in second.model_text
    assert first.turns == 3 and second.turns == 2
    assert first.tokens + second.tokens == detail.summary.tokens
    assert first.cost_usd + second.cost_usd == pytest.approx(detail.summary.cost_usd)
    assert [e.command for e in second.edits] == ["str_replace"]
    assert detail.problems == [] and detail.spec_text.startswith("# wordstats")
    changes = reviewed_changes(second)
    assert [(c.path, len(d)) for c, d in changes] == [("wordstats.py", 1)]


def test_load_run_reads_the_model_text_of_a_version_1_conversation(demo: DemoProject) -> None:
    """A run logged before the conversation named each turn's message (version 1: the turn
    repeats its content) shows the same model text."""
    path = demo.logs / demo.success / "attempt-01" / runlog.CONVERSATION
    conversation = json.loads(path.read_text())
    version_1 = {key: value for key, value in conversation.items() if key != "version"}
    version_1["turns"] = [
        {key: value for key, value in turn.items() if key != "message"}
        for turn in turns_with_content(conversation)
    ]
    path.write_text(json.dumps(version_1))
    assert "lower-case" in load_run(demo.logs, demo.success).attempts[1].model_text
    # and a record naming no assistant message shows no model text, not another message's
    version_2 = {**conversation, "turns": [{**conversation["turns"][0], "message": 0}]}
    path.write_text(json.dumps(version_2))
    assert load_run(demo.logs, demo.success).attempts[1].model_text == ""


def test_load_run_of_stopped_and_unfinished_runs(demo: DemoProject) -> None:
    failed = load_run(demo.logs, demo.failed)
    assert [a.outcome for a in failed.attempts] == ["failed", "stopped"]
    assert failed.attempts[1].summary.startswith("the recording has no more turns")
    unfinished = load_run(demo.logs, demo.unfinished)
    assert [a.outcome for a in unfinished.attempts] == ["REVIEWING"]


def test_load_run_accepts_a_unique_prefix_and_refuses_unknown_ids(demo: DemoProject) -> None:
    assert load_run(demo.logs, demo.success[:-2]).summary.run_id == demo.success
    with pytest.raises(HistoryError, match="no run 'nope'"):
        load_run(demo.logs, "nope")
    with pytest.raises(HistoryError, match="not a run id"):
        load_run(demo.logs, "../etc")


def test_test_grid_shows_the_flip(demo: DemoProject) -> None:
    grid = grid_of(load_run(demo.logs, demo.success))
    assert grid.attempts == [0, 1]
    assert grid.tests[0] == FAILING_TEST  # the flip comes first
    assert grid.cells[0] == [FAILED, PASSED]
    assert all(cells == [PASSED, PASSED] for cells in grid.cells[1:])
    assert len(grid.tests) == 5


def test_test_grid_marks_tests_absent_from_an_attempt(demo: DemoProject) -> None:
    report_path = demo.logs / demo.success / "attempt-01" / runlog.REPORT
    report = json.loads(report_path.read_text())
    report["checks"][0]["tests"] = [
        t for t in report["checks"][0]["tests"] if not t["id"].endswith("no_room")
    ]
    report_path.write_text(json.dumps(report))
    grid = grid_of(load_run(demo.logs, demo.success))
    row = grid.tests.index("tests/test_wordstats.py::test_top_words_with_no_room")
    assert grid.cells[row] == [PASSED, ABSENT]


def test_test_grid_shows_xfailed_as_skipped_and_xpassed_as_passed(demo: DemoProject) -> None:
    report_path = demo.logs / demo.success / "attempt-01" / runlog.REPORT
    report = json.loads(report_path.read_text())
    tests = report["checks"][0]["tests"]
    tests[0]["outcome"], tests[1]["outcome"] = "xfailed", "xpassed"
    report_path.write_text(json.dumps(report))
    grid = grid_of(load_run(demo.logs, demo.success))
    assert grid.cells[grid.tests.index(tests[0]["id"])][1] == SKIPPED
    assert grid.cells[grid.tests.index(tests[1]["id"])][1] == PASSED


def test_workspace_at_and_compare(demo: DemoProject) -> None:
    detail = load_run(demo.logs, demo.success)
    assert workspace_at(detail, -1) == {}
    after_first = workspace_at(detail, 0)
    after_second = workspace_at(detail, 1)
    assert set(after_first) == {"tests/test_wordstats.py", "wordstats.py"}
    assert after_second == {
        path: (demo.root / "success-workspace" / path).read_text() for path in after_second
    }
    changes = compare(detail, 0, 1)
    assert [(c.path, c.kind.value, c.added, c.removed) for c in changes] == [
        ("wordstats.py", "M", 1, 1)
    ]
    assert "word.lower()" in changes[0].new_text
    assert [c.kind.value for c in compare(detail, -1, 1)] == ["A", "A"]
    assert compare(detail, 1, 1) == []


# -- resuming -----------------------------------------------------------------------------------


def test_only_the_unfinished_current_run_with_its_spec_is_resumable(demo: DemoProject) -> None:
    runs = {run.run_id: run for run in mark_resumable(list_runs(demo.logs), demo.state)}
    assert runs[demo.unfinished].resumable
    assert not runs[demo.success].resumable and not runs[demo.failed].resumable
    assert "already finished" in resume_blocker(runs[demo.success], demo.state)
    (demo.root / "spec.md").write_text("# something else\n")
    assert "changed since" in resume_blocker(runs[demo.unfinished], demo.state)
    (demo.root / "spec.md").unlink()
    assert "spec not found" in resume_blocker(runs[demo.unfinished], demo.state)
    demo.state.unlink()
    assert "not the current run" in resume_blocker(runs[demo.unfinished], demo.state)


def test_a_corrupt_state_file_blocks_resuming_with_its_message(demo: DemoProject) -> None:
    demo.state.write_text("{")
    run = next(r for r in list_runs(demo.logs) if r.run_id == demo.unfinished)
    assert "corrupt" in resume_blocker(run, demo.state)
    assert not mark_resumable([run], demo.state)[0].resumable


# -- damaged runs -------------------------------------------------------------------------------


def _damaged(demo: DemoProject, run_id: str) -> str | None:
    return next(r for r in list_runs(demo.logs) if r.run_id == run_id).damaged


def test_torn_last_event_line_is_tolerated(demo: DemoProject) -> None:
    events = demo.logs / demo.success / runlog.EVENTS
    with events.open("a") as handle:
        handle.write('{"event": "state", "at": "2030-01-01T00:0')
    assert _damaged(demo, demo.success) is None
    detail = load_run(demo.logs, demo.success)
    assert detail.torn_tail and detail.summary.state == "SUCCESS"


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda run: (run / runlog.RUN_META).unlink(), "run.json is missing"),
        (lambda run: (run / runlog.RUN_META).write_text("{oops"), "run.json is not valid JSON"),
        (lambda run: (run / runlog.SPEC_COPY).unlink(), "spec.md is missing"),
        (lambda run: (run / runlog.EVENTS).unlink(), "events.jsonl is missing"),
        (lambda run: (run / runlog.EVENTS).write_text(""), "events.jsonl is empty"),
        (
            lambda run: (run / runlog.EVENTS).write_text(
                "garbage\n" + (run / runlog.EVENTS).read_text()
            ),
            "events.jsonl line 1 is not a valid event",
        ),
        (
            lambda run: (run / "attempt-01" / runlog.REPORT).unlink(),
            "attempt-01/report.json is missing",
        ),
    ],
)
def test_damaged_runs_are_listed_with_what_is_wrong(demo: DemoProject, damage, expected) -> None:
    folder = demo.logs / demo.success
    damage(folder)
    os.utime(folder, ns=(1, 1))  # as removing or replacing a file in the folder would
    assert expected in (_damaged(demo, demo.success) or "")
    assert _damaged(demo, demo.failed) is None
    detail = load_run(demo.logs, demo.success)  # opening never crashes
    assert any(expected in problem for problem in detail.problems)
    assert f"# Run {demo.success}" in export_markdown(demo.logs, demo.success)


def test_corrupt_attempt_files_are_problems_of_the_attempt(demo: DemoProject) -> None:
    attempt = demo.logs / demo.success / "attempt-00"
    (attempt / runlog.PROPOSAL).write_text("[1, 2")
    (attempt / runlog.DECISIONS).write_text('{"hunks": {"x": ["maybe"]}}')
    (attempt / runlog.APPLIED_PATCH).write_text("@@ nonsense @@\n+x\n")
    detail = load_run(demo.logs, demo.success)
    first = detail.attempts[0]
    assert first.proposal is None and first.decisions is None
    assert "attempt-00/proposal.json is not valid JSON" in first.problems
    assert "attempt-00/decisions.json does not hold what it should" in first.problems
    assert detail.summary.damaged and "proposal.json" in detail.summary.damaged
    assert reviewed_changes(first) == []
    assert compare(detail, 0, 1)  # what survives still compares


def test_a_stray_empty_folder_is_a_damaged_run(demo: DemoProject) -> None:
    (demo.logs / "20200101-000000-dead").mkdir()
    damaged = _damaged(demo, "20200101-000000-dead")
    assert damaged and "run.json is missing" in damaged and "events.jsonl is missing" in damaged


def test_a_run_killed_before_its_first_step_is_marked_in_history(demo: DemoProject) -> None:
    """A ghost: a run opened (run.json, run_started) and killed before it did anything."""
    spec_text = "# another spec\n"
    engine = Engine(
        paths=ProjectPaths(demo.root),
        config=Config(),
        spec=Spec(Path("other.md"), spec_text),
        provider=ScriptedProvider.from_path(demo.root / "script.json"),
        reviewer=AcceptAllReviewer(),
        bus=EventBus(),
        options=RunOptions(max_retries=1),
    )
    engine._open_run()  # the kill came here, before the first step

    ghost = next(run for run in list_runs(demo.logs) if run.run_id == engine.state.run_id)

    assert (ghost.state, ghost.attempts, ghost.damaged) == ("INIT", 0, None)
    assert ghost.stop_reason == NEVER_STARTED
    others = [run for run in list_runs(demo.logs) if run.run_id != engine.state.run_id]
    assert all(run.stop_reason != NEVER_STARTED for run in others)


# -- export -------------------------------------------------------------------------------------


def test_export_markdown_has_attempts_decisions_tests_and_cost(demo: DemoProject) -> None:
    text = export_markdown(demo.logs, demo.success)
    assert text.startswith(f"# Run {demo.success}\n")
    assert "| final state | SUCCESS |" in text
    assert "| cost | $0.0331 |" in text and "| tokens | 20,205 |" in text
    assert "## Attempt 0: failed" in text and "## Attempt 1: passed" in text
    assert "\n- 2 hunks accepted (2 by default)\n" in text
    assert f"- ✗ `{FAILING_TEST}`" in text
    assert f"| `{FAILING_TEST}` | ✗ | ✓ |" in text
    assert "| `wordstats.py` | M | 1 | 1 |" in text
    assert "lower-case" in text  # the model's text
    # each attempt's evidence: its added tests were run against the code before it
    assert "- evidence: 5 tests added; " in text
    assert load_run(demo.logs, demo.success).attempts[1].evidence.startswith("evidence: ")


def test_export_of_an_unknown_run_raises_a_clear_error(demo: DemoProject) -> None:
    with pytest.raises(HistoryError, match=r"no run 'missing-run' in .*logs"):
        export_markdown(demo.logs, "missing-run")


def test_export_records_a_rejected_proposal(demo: DemoProject) -> None:
    attempt = demo.logs / demo.unfinished / "attempt-00"
    decisions = (
        json.loads((attempt / runlog.DECISIONS).read_text())
        if (attempt / runlog.DECISIONS).exists()
        else {"hunks": {}, "edits": {}, "file_decisions": {}}
    )
    decisions["reject_reason"] = "use a Counter"
    (attempt / runlog.DECISIONS).write_text(json.dumps(decisions))
    assert "- proposal rejected: use a Counter" in export_markdown(demo.logs, demo.unfinished)


def test_export_writes_the_persons_and_the_models_text_as_text(demo: DemoProject) -> None:
    """A reason or summary holding Markdown makes no heading, link or broken table row."""
    from markdown_it import MarkdownIt

    attempt = demo.logs / demo.unfinished / "attempt-00"
    decisions = {"hunks": {}, "edits": {}, "file_decisions": {}}
    decisions["reject_reason"] = "# not a heading\n[link](http://x) | `tick"
    (attempt / runlog.DECISIONS).write_text(json.dumps(decisions))
    text = export_markdown(demo.logs, demo.unfinished)
    assert "- proposal rejected: \\# not a heading \\[link\\](http://x) \\| \\`tick" in text
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    assert not [t for t in tokens if t.type == "heading_open" and t.tag == "h1"][1:]
    assert not [t for t in tokens if t.type == "inline" and "link_open" in str(t.children)]


def test_an_event_after_a_torn_line_starts_a_line_of_its_own(demo: DemoProject) -> None:
    """A kill cut the last line; the resumed run's first event is not swallowed by it."""
    events = demo.logs / demo.unfinished / runlog.EVENTS
    with events.open("a") as handle:
        handle.write('{"event": "state", "at": "2030-01-01T00:0')

    resumed = RunLog(demo.logs, demo.unfinished)
    resumed.clear_after_kill()  # as the engine does when it opens the run
    resumed(
        RunStarted(
            run_id=demo.unfinished, spec_path="spec.md", provider="scripted", model="m",
            max_retries=1, resumed=True, state=RunState.REVIEWING, attempt=0,
        )
    )  # fmt: skip
    resumed(Notice(message="and on"))

    log = read_events(events)
    assert log.problems == []
    assert [event.name for event in log.events[-2:]] == ["run_started", "notice"]
    assert _damaged(demo, demo.unfinished) is None


def test_a_torn_line_inside_the_log_is_skipped_before_a_new_session(demo: DemoProject) -> None:
    events = demo.logs / demo.success / runlog.EVENTS
    text = events.read_text(encoding="utf-8")
    first_line = text.splitlines(keepends=True)[0]
    assert '"run_started"' in first_line
    # The torn line, ended by the next session, then that session's first event and more.
    events.write_text(text + '{"event": "model_turn", "at": "2030\n' + first_line + text)

    log = read_events(events)
    assert log.problems == [] and not log.torn_tail
    assert len(log.events) == 2 * len(text.splitlines()) + 1
    assert _damaged(demo, demo.success) is None


HOSTILE = "\x1b]0;pwned\x07\r\x1b[2K\u202egnp.py\u200b\ufeff\U000e0041"
"""An OSC title, a bell, a carriage return and an erase, a bidi override, a zero-width space,
a BOM and an invisible tag character: everything a terminal or a reader would act on."""
HOSTILE_SPELT = "\\x1b]0;pwned\\x07\\r\\x1b[2K\\u202egnp.py\\u200b\\ufeff\\U000e0041"


def _unsafe_characters(text: str) -> set[str]:
    from orch_tui.core.util.terminal_text import is_unsafe

    return {char for char in text if is_unsafe(char) and char not in "\n\t"}


def test_export_spells_out_controls_bidi_and_invisible_characters(demo: DemoProject) -> None:
    """Model text, a file name and a plan title carrying escape sequences, a bell, a carriage
    return, a bidi override and zero-width characters reach the report spelt out, never raw."""
    attempt = demo.logs / demo.success / "attempt-00"
    conversation = json.loads((attempt / runlog.CONVERSATION).read_text())
    first_turn = conversation["messages"][conversation["turns"][0]["message"]]
    first_turn["content"][0]["text"] = f"Looking {HOSTILE} around."
    (attempt / runlog.CONVERSATION).write_text(json.dumps(conversation))
    proposal = json.loads((attempt / runlog.PROPOSAL).read_text())
    proposal["changes"][0]["path"] = f"lib{HOSTILE}.py"
    (attempt / runlog.PROPOSAL).write_text(json.dumps(proposal))
    task = {"id": "t1", "description": "d", "acceptance": "a", "title": f"Title {HOSTILE}"}
    (demo.logs / demo.success / runlog.PLAN_FILE).write_text(json.dumps({"tasks": [task]}))

    text = export_markdown(demo.logs, demo.success)

    assert _unsafe_characters(text) == set()
    assert f"Looking {HOSTILE_SPELT} around." in text  # the model's text, in its fence
    # The file name and the plan title (Markdown-escaped too), on one line: the carriage
    # return, a line break, is folded into a space there.
    one_line = HOSTILE_SPELT.replace("\\r", " ")
    assert f"lib{one_line}.py" in text
    assert "t1: Title \\\\x1b\\]0;pwned\\\\x07 \\\\x1b\\[2K\\\\u202egnp.py" in text
