"""The runs filter and sort as queries of the index: the runs found and their order are what
the list found and showed when it held every run in memory (a reference written out here),
through the trigram tables and through ``instr`` where SQLite has no FTS5; and a view reads
only the pages of rows asked for."""

from __future__ import annotations

import gc
import random
import shutil
import sqlite3
import weakref
from operator import attrgetter
from pathlib import Path

import pytest

from bench.synthetic_runs import write_synthetic_runs
from orch_tui.core.history import index_db, index_open, run_filter
from orch_tui.core.history.index import RunIndex, build_index
from orch_tui.core.history.run_query import PAGE, SORT_KEYS, RunView
from orch_tui.core.history.scan import RunSummary
from orch_tui.core.runlog import layout as runlog

SHARED = "# Zebra crossing\nStripes and zigzags.\n"
OWN = ["# Yak shaving\nStripes too.\n", "# Zebu herding\nNo «stripes».\n", '# Quokka\n"smiles"\n']

_REFERENCE_KEYS = {
    "started": lambda run: run.started,
    "run_id": lambda run: run.run_id,
    "spec": lambda run: run.spec_name.lower(),
    "state": lambda run: "DAMAGED" if run.damaged else run.state,
    "attempts": lambda run: run.attempts,
    "duration": lambda run: run.duration_s,
    "tokens": lambda run: run.tokens,
    "cost": lambda run: run.cost_usd,
    "stop_reason": lambda run: (run.stop_reason or "").lower() or None,
}
"""The list's sort keys as they were when it sorted runs in memory."""


def _reference(
    runs: list[RunSummary], texts: dict[str, str], column: str, descending: bool, query: str
) -> list[str]:
    """The runs the in-memory list showed: those whose id, spec name or spec text holds every
    word, ordered by ``column`` (empty values last, ties newest first)."""
    key = _REFERENCE_KEYS[column]
    newest = sorted(runs, key=attrgetter("started", "run_id"), reverse=True)
    present = sorted((r for r in newest if key(r) is not None), key=key, reverse=descending)
    ordered = present + [r for r in newest if key(r) is None]
    words = query.lower().split()
    return [
        run.run_id
        for run in ordered
        if all(
            word in f"{run.run_id}\n{run.spec_name}\n{texts[run.run_id]}".lower() for word in words
        )
    ]


def _history(logs: Path, count: int, seed: int, specless: bool = True) -> dict[str, str]:
    """``count`` synthetic runs, some with a spec shared, some of their own, one with none
    (unless not ``specless``), one damaged; each run's spec text ("" for none)."""
    rng = random.Random(seed)
    ids = write_synthetic_runs(logs, count)
    texts: dict[str, str] = {}
    for number, run_id in enumerate(ids):
        copy = logs / run_id / runlog.SPEC_COPY
        choice = rng.random()
        if number == 3 and specless:
            copy.unlink()
        elif choice < 0.3:
            copy.write_text(SHARED)
        elif choice < 0.5:
            copy.write_text(rng.choice(OWN) + f"Run tag: tag{number:04d}.\n")
        if number == 5:
            (logs / run_id / runlog.RUN_META).write_text("{not json")
        texts[run_id] = copy.read_text() if copy.exists() else ""
    return texts


QUERIES = [
    "", "s", "st", "str", "stripes", "stripes zig", "zebra zebu", "ZEBRA", "«stripes»",
    '"smiles"', "tag00", "tag0042", "csv", "md", ".md", "-00", "2026010", "run tag: tag001",
    "quokka smiles", "zz", "no-such-thing", "é", "median csv", "d", "q", "»", "k", "zq", "z s",
]  # fmt: skip


@pytest.mark.parametrize("specless", [True, False], ids=["a-run-without-spec", "all-specs"])
@pytest.mark.parametrize("fts", [True, False], ids=["fts5-trigram", "instr"])
def test_filter_and_sort_find_what_the_in_memory_list_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fts: bool, specless: bool
) -> None:
    """With a run without a spec, every word is searched; with a spec for every run, a word
    every spec holds is not (it filters nothing), and the runs found are the same."""
    if not fts:
        monkeypatch.setattr(index_open, "fts5_available", lambda: False)
    elif not index_open.fts5_available():
        pytest.skip("this SQLite has no FTS5 trigram tokenizer")
    logs = tmp_path / "logs"
    texts = _history(logs, 60, seed=7, specless=specless)
    index = build_index(logs)
    assert index.db.fts is fts
    runs = index.runs
    assert any(run.damaged for run in runs)
    for column in SORT_KEYS:
        for descending in (True, False):
            for query in QUERIES:
                expected = _reference(runs, texts, column, descending, query)
                view = RunView(index, column, descending, query)
                assert [run.run_id for run in view] == expected, (column, descending, query)
                assert len(view) == len(expected)


def test_a_query_typed_key_by_key_finds_what_it_finds_typed_at_once(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    texts = _history(logs, 30, seed=3)
    index = build_index(logs)
    runs = index.runs
    for query in ["stripes", "yak shaving", "s zig", runs[5].run_id[-6:], "quokka smiles"]:
        for end in range(1, len(query) + 1):
            typed = query[:end]
            found = [run.run_id for run in RunView(index, "cost", True, typed)]
            assert found == _reference(runs, texts, "cost", True, typed), typed


def _view_of(index: RunIndex) -> RunView:
    return RunView(index, "tokens", False, "md")  # every run: spec names end in .md


def test_a_view_reads_the_pages_asked_for_and_reads_as_a_list(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, PAGE * 3 + 5)
    index = build_index(logs)
    expected = sorted(
        index.runs, key=lambda run: (run.tokens, -int(run.started[:4] + run.run_id[-4:], 16))
    )
    view = _view_of(index)
    assert len(view) == PAGE * 3 + 5 and view.fetched == 0  # counted, no row read
    assert view[0] == expected[0] and view.fetched == PAGE  # one page
    assert view[PAGE - 1] == expected[PAGE - 1] and view.fetched == PAGE  # the same page
    assert view[-1] == expected[-1] and view.fetched == PAGE + 5  # the last page
    assert view[3:6] == expected[3:6]
    assert list(view) == expected and view.position(expected[70].run_id) == 70
    assert view.position("no-such-run") is None
    with pytest.raises(IndexError):
        view[len(expected)]


def test_the_resumable_run_is_marked_in_the_rows_read(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    ids = write_synthetic_runs(logs, 10)
    index = build_index(logs)
    view = RunView(index, resumable=ids[4])
    assert [run.run_id for run in view if run.resumable] == [ids[4]]


def test_the_widest_runs_hold_each_columns_largest_value_and_longest_name(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 30)
    index = build_index(logs)
    runs, widest = index.runs, RunView(index).widest()
    assert len(widest) < len(runs)
    for field in ("attempts", "duration_s", "tokens", "cost_usd"):
        values = [getattr(run, field) for run in runs if getattr(run, field) is not None]
        assert max(values) == max(getattr(run, field) or 0 for run in widest)
    assert max(map(len, (r.spec_name for r in runs))) == max(len(r.spec_name) for r in widest)
    index.db.connection.execute("DELETE FROM meta WHERE key = 'widest'")  # an index without
    found = RunView(index).widest()  # found in the runs instead
    for field in ("attempts", "duration_s", "tokens", "cost_usd"):
        assert max(getattr(run, field) or 0 for run in found) == max(
            getattr(run, field) or 0 for run in widest
        )


def test_an_unknown_sort_column_is_refused(tmp_path: Path) -> None:
    index = build_index(tmp_path / "logs")
    with pytest.raises(ValueError, match="unknown column 'colour'"):
        RunView(index, "colour")


def test_runs_added_out_of_start_order_are_still_shown_newest_first(tmp_path: Path) -> None:
    """A filter's matches are read newest first by row number while the rows are in start
    order; a run added that is older than the newest (copied in, or a clock set back) ends
    that, and the matches are sorted by start time instead: the same runs, in order."""
    logs = tmp_path / "logs"
    texts = _history(logs, 20, seed=5, specless=False)
    index = build_index(logs)
    assert index_db.rows_in_start_order(index.db.connection)
    first = index.runs[-1].run_id
    shutil.copytree(logs / first, logs / "19990101-000000-older")  # started as `first` did
    texts["19990101-000000-older"] = texts[first]
    index = build_index(logs)
    assert not index_db.rows_in_start_order(index.db.connection)
    runs = index.runs
    for query in ["stripes", "tag0", "md", "older", ""]:
        view = RunView(index, query=query)
        assert [run.run_id for run in view] == _reference(runs, texts, "started", True, query)
        for position, run in enumerate(view):
            assert view.position(run.run_id) == position


def test_views_list_the_same_rows_only_for_one_state_order_and_set_of_matches(
    tmp_path: Path,
) -> None:
    """What lets a filter key that changes nothing paint nothing: two views are the same rows
    when their query finds the same matches, in the same order, of the index unchanged."""
    logs = tmp_path / "logs"
    _history(logs, 20, seed=5, specless=False)
    index = build_index(logs)
    assert RunView(index).same_rows(RunView(index, query=" "))
    assert RunView(index, query="stripes").same_rows(RunView(index, query="Stripes "))
    assert not RunView(index, query="stripes").same_rows(RunView(index, query="stripe"))
    assert not RunView(index).same_rows(RunView(index, "cost", True))
    assert not RunView(index).same_rows(RunView(index, resumable=index.runs[0].run_id))
    before = RunView(index)
    len(before)
    with index.db.writing():  # a run written by the folder check
        pass
    assert not before.same_rows(RunView(index))


def _scans(connection: sqlite3.Connection, select: str, params: list[str]) -> list[str]:
    """The steps of ``select``'s plan that read a table row by row."""
    plan = [row[3] for row in connection.execute(f"EXPLAIN QUERY PLAN {select}", params)]
    return [step for step in plan if step.startswith("SCAN") and "VIRTUAL TABLE" not in step]


def test_a_rare_word_of_one_or_two_characters_is_found_without_a_pass_over_the_runs(
    tmp_path: Path,
) -> None:
    """``zq`` over 100,000 runs was ``instr`` over every label and spec text (42 ms a key):
    a word under three characters is looked up through the trigrams that start with it and
    the indexes of the texts' ends; the runs found are the reference's, a text of one or two
    characters included."""
    if not index_open.fts5_available():
        pytest.skip("this SQLite has no FTS5 trigram tokenizer")
    logs = tmp_path / "logs"
    texts = _history(logs, 30, seed=11)
    for number, short in ((7, "zq"), (8, "q"), (9, "é")):
        run_id = sorted(texts)[number]
        (logs / run_id / runlog.SPEC_COPY).write_text(short)
        texts[run_id] = short
    index = build_index(logs)
    connection = index.db.connection
    for word in ["zq", "q", "é", "d", "md", "«", "-0", "zz"]:
        select, params = run_filter._word_select(connection, word, fts=True)
        assert _scans(connection, select, params) == [], word
        assert [run.run_id for run in RunView(index, query=word)] == _reference(
            index.runs, texts, "started", True, word
        ), word


def test_a_short_word_in_too_many_texts_is_read_from_every_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past :data:`run_filter.SHORT_WORD_TEXTS` texts under its trigrams, merging them costs
    more than reading every text: the word is looked for with ``instr``, and found the same."""
    if not index_open.fts5_available():
        pytest.skip("this SQLite has no FTS5 trigram tokenizer")
    logs = tmp_path / "logs"
    texts = _history(logs, 30, seed=11)
    index = build_index(logs)
    monkeypatch.setattr(run_filter, "SHORT_WORD_TEXTS", 3)
    select, params = run_filter._word_select(index.db.connection, "s", fts=True)
    assert "instr" in select and _scans(index.db.connection, select, params)
    for word in ["s", "st", "zq", "s zig"]:
        assert [run.run_id for run in RunView(index, query=word)] == _reference(
            index.runs, texts, "started", True, word
        ), word


def test_a_words_spec_matches_are_joined_to_their_runs_not_listed_first(tmp_path: Path) -> None:
    """The trigram table's matches lead the runs' index on their spec (10,000 matches at
    100,000 runs: 0.78x the instructions of first listing the matched specs, then looking
    each run's spec up in that list)."""
    if not index_open.fts5_available():
        pytest.skip("this SQLite has no FTS5 trigram tokenizer")
    logs = tmp_path / "logs"
    _history(logs, 10, seed=5)
    index = build_index(logs)
    select, params = run_filter._word_select(index.db.connection, "stripes", fts=True)
    plan = [row[3] for row in index.db.connection.execute(f"EXPLAIN QUERY PLAN {select}", params)]
    assert not any(step.startswith("LIST SUBQUERY") for step in plan), plan
    assert any("runs_spec" in step for step in plan), plan


def test_an_index_let_go_with_its_views_is_collected_and_its_connection_closed(
    tmp_path: Path,
) -> None:
    """Each opening of the runs list opens the index: the views' tables kept for it must not
    keep it (and its connection) alive once the screen is gone."""
    logs = tmp_path / "logs"
    write_synthetic_runs(logs, 5)
    index = build_index(logs)
    assert len(RunView(index, "cost", True, "md")) == 5
    db = weakref.ref(index.db)
    del index
    gc.collect()
    assert db() is None


def _match_tables(index: RunIndex) -> list[str]:
    rows = index.db.connection.execute("SELECT name FROM sqlite_temp_master WHERE type = 'table'")
    return [name for (name,) in rows if name.startswith("matches_")]


def test_a_common_words_first_page_is_found_without_collecting_every_match(
    tmp_path: Path,
) -> None:
    """``q`` over 100,000 runs matches 54,000: writing them all into the matches table was most
    of the key's 37 ms. The first page, newest first, is found among the newest runs with no
    table made; it is the reference's first page, and the count, asked for after, its count."""
    logs = tmp_path / "logs"
    texts = _history(logs, 300, seed=11)
    index = build_index(logs)
    runs = index.runs
    for query in ("stripes", "S", "e stripes", "2026"):
        made = set(_match_tables(index))
        view = RunView(index, query=query)
        head = view.head()
        expected = _reference(runs, texts, "started", True, query)
        assert head is not None and len(expected) > PAGE, query
        assert [run.run_id for run in head] == expected[:PAGE], query
        assert set(_match_tables(index)) == made, query  # nothing collected for the first page
        assert view.fetched == PAGE and view[0] == head[0]
        assert len(view) == len(expected) and [run.run_id for run in view] == expected
        assert len(set(_match_tables(index)) - made) == 1  # the count made the table: kept
        assert RunView(index, query=query).head() is None  # its table is there: the way now
    assert RunView(index, query="quokka").head() is None  # too rare among the newest runs
    assert RunView(index, "cost", True, query="stripes").head() is None  # another order
    assert RunView(index).head() is None  # unfiltered: nothing to collect


def test_a_short_word_under_no_trigram_is_not_looked_for_among_the_newest_runs(
    tmp_path: Path,
) -> None:
    """``z`` over 100,000 runs is in none: looking for its first page among the newest runs
    read them for nothing before its table was made. A word of one or two characters that no
    trigram starts with is held only at texts' ends: no such look is made, and the runs found
    are the reference's; a common one is still looked for."""
    if not index_open.fts5_available():
        pytest.skip("this SQLite has no FTS5 trigram tokenizer")
    logs = tmp_path / "logs"
    texts = _history(logs, 100, seed=11)
    run_id = sorted(texts)[40]
    (logs / run_id / runlog.SPEC_COPY).write_text("# Wombat\nEnds in jx")
    texts[run_id] = "# Wombat\nEnds in jx"
    index = build_index(logs)
    read: list[str] = []
    index.db.connection.set_trace_callback(read.append)
    for word in ("jx", "zq", "ж"):  # at one text's end, in no run
        read.clear()
        view = RunView(index, query=word)
        assert view.head() is None, word
        assert not [sql for sql in read if " hit " in sql], word  # the newest runs unread
        expected = _reference(index.runs, texts, "started", True, word)
        assert [run.run_id for run in view] == expected, word
    assert len(_reference(index.runs, texts, "started", True, "jx")) == 1
    read.clear()
    assert RunView(index, query="s").head() is not None
    assert [sql for sql in read if " hit " in sql]
