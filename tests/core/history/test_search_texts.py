"""What the runs filter searches: each run's label and its spec's number, every spec text
kept once; and a query typed key by key finds what the whole query typed at once finds."""

from __future__ import annotations

import operator
from pathlib import Path

from bench.synthetic_runs import write_synthetic_runs
from orch_tui.core.history.index import build_index
from orch_tui.core.history.run_labels import RunLabels
from orch_tui.core.history.scan import in_newest_first_order
from orch_tui.core.history.search import RunSearch, sort_runs
from orch_tui.core.runlog import layout as runlog

SHARED = "# Zebra crossing\nStripes and zigzags.\n"
OWN = ["# Yak shaving\nStripes too.\n", "# Zebu herding\nNo stripes.\n", "# Quokka\nsmiles\n"]


def _runs(logs: Path) -> list[str]:
    """Runs of one shared spec, runs with specs of their own, and one whose spec is gone."""
    specs = [SHARED, OWN[0], SHARED, OWN[1], SHARED, OWN[2], SHARED, None]
    ids = write_synthetic_runs(logs, len(specs))
    for run_id, spec in zip(ids, specs, strict=True):
        copy = logs / run_id / runlog.SPEC_COPY
        if spec is None:
            copy.unlink()
        else:
            copy.write_text(spec)
    return ids


def test_each_spec_text_is_kept_once_and_runs_point_to_it(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    ids = _runs(logs)
    index = build_index(logs)
    assert sorted(index.specs[:-1]) == sorted(text.lower() for text in [SHARED, *OWN])
    assert index.specs[-1] == ""
    by_id = {run.run_id: run for run in index.runs}
    for run_id, (label, _number) in index.search.items():
        assert label == f"{run_id}\n{by_id[run_id].spec_name}".lower()
        assert "\n" not in label.split("\n", 1)[1]  # no spec text in a run's label
    numbers = [index.search[run_id][1] for run_id in ids]
    assert numbers[0] == numbers[2] == numbers[4] == numbers[6]
    assert index.specs[numbers[0]] == SHARED.lower()
    assert index.specs[numbers[1]] == OWN[0].lower()
    assert numbers[7] == -1 and index.specs[numbers[7]] == ""


def _matching(query: str, search: RunSearch) -> list[str]:
    return [run.run_id for run in search.matching(query)]


def test_a_query_typed_key_by_key_finds_what_it_finds_typed_at_once(tmp_path: Path) -> None:
    """Each key narrows the previous key's result (fewer runs than specs: each run's spec is
    searched as it comes; more: each spec once); the runs found are the same as a fresh
    search's, whether a word is in an id, a spec name, a shared spec or a run's own."""
    logs = tmp_path / "logs"
    ids = _runs(logs)
    index = build_index(logs)
    queries = ["stripes", "zebra", "zebu", "yak shaving", "s zig", ids[5][-6:], "quokka smiles"]
    for query in queries:
        typed = RunSearch(index.runs, index)
        for end in range(1, len(query) + 1):
            fresh = _matching(query[:end], RunSearch(index.runs, index))
            assert _matching(query[:end], typed) == fresh, query[:end]
    every = RunSearch(index.runs, index)
    assert sorted(_matching("stripes", every)) == sorted(ids[:5] + [ids[6]])
    assert sorted(_matching("zebra", every)) == sorted(ids[0:7:2])
    assert _matching("zebu", every) == [ids[3]]
    assert _matching("quokka smiles", every) == [ids[5]]
    assert _matching(ids[7][-6:], every) == [ids[7]]  # a run with no spec, found by its id
    assert _matching("zebra zebu", every) == []


def test_runs_in_another_order_are_found_by_their_own_texts(tmp_path: Path) -> None:
    """A search in the index's order reads its lists as they are; in any other order (a
    sort by another column) each run's texts are looked up by its id, and a run the index
    does not know is found by nothing."""
    logs = tmp_path / "logs"
    ids = _runs(logs)
    index = build_index(logs)
    stranger = index.runs[0]._replace(run_id="20990101-000000-zebra")
    reordered = RunSearch([*sorted(index.runs, key=lambda run: run.run_id), stranger], index)
    in_order = RunSearch(index.runs, index)
    for query in ["zebra", "stripes", "quokka", ids[7][-6:], "zebra 0002"]:
        assert sorted(_matching(query, reordered)) == sorted(_matching(query, in_order)), query
    assert len(reordered.matching("")) == len(ids) + 1


def test_a_word_in_every_spec_finds_every_run_with_a_spec_and_only_those(tmp_path: Path) -> None:
    """When every spec text holds the word, each run with a spec matches without being
    looked at; a run whose spec is gone matches only by its own label."""
    logs = tmp_path / "logs"
    ids = _runs(logs)
    index = build_index(logs)
    assert sorted(_matching("#", RunSearch(index.runs, index))) == sorted(ids[:7])
    assert sorted(_matching("s", RunSearch(index.runs, index))) == sorted(ids)  # "*.md" names


def test_runs_in_order_are_kept_and_runs_out_of_order_or_started_together_are_sorted(
    tmp_path: Path,
) -> None:
    """The list takes runs that are newest first as they are (the index keeps them so), and
    sorts any others, a tie in start time broken by run id."""
    logs = tmp_path / "logs"
    _runs(logs)
    runs = build_index(logs).runs
    assert in_newest_first_order(runs) and sort_runs(runs, "started", True) == runs
    oldest_first = runs[::-1]
    assert not in_newest_first_order(oldest_first)
    assert sort_runs(oldest_first, "started", True) == runs
    tie = [runs[1]._replace(started=runs[0].started), runs[0]]  # the same second
    assert not in_newest_first_order(tie)
    assert sort_runs(tie, "started", True) == sorted(tie, key=lambda run: run.run_id)[::-1]


def test_labels_make_no_string_per_run_and_still_find_a_word_in_any_case() -> None:
    ids = ["20260101-000000-0001a", "20260101-000100-0001b", "20260101-000200-0001c"]
    names = ["Shapes.md", "Shapes.md", "csv.md"]
    labels = RunLabels.of(ids, names)
    assert all(map(operator.is_, labels.ids, ids))  # lowercase already: the ids themselves
    assert labels.names[0] is labels.names[1] == "shapes.md"  # one lowercase per name
    assert labels[0] == "20260101-000000-0001a\nshapes.md"
    assert labels.rows_with("shapes") == [0, 1] and labels.rows_with("0001c", [1, 2]) == [2]
    assert labels.rows_with("md\n2026") == []  # a word never spans the id and the name
    upper = RunLabels.of(["Run-A", "run-b"], ["x.md", "x.md"])
    assert upper.ids == ["run-a", "run-b"] and upper.rows_with("run-a") == [0]
    assert upper.reordered([1, 0]).ids == ["run-b", "run-a"]


class _Counted(list[str]):
    """A list that counts the items read from it one by one."""

    reads = 0

    def __getitem__(self, item):  # type: ignore[no-untyped-def]
        _Counted.reads += 1
        return super().__getitem__(item)


def test_a_word_of_some_specs_in_no_label_reads_no_run_label(tmp_path: Path) -> None:
    """A word in some specs' texts and in no id or spec name (the common case: ``tag00``
    over 100,000 runs matches 10,000) is found from the runs' spec numbers in C-level passes:
    no run's id or name is read one by one; a word in a label still finds it."""
    logs = tmp_path / "logs"
    ids = _runs(logs)
    index = build_index(logs)
    search = RunSearch(index.runs, index)
    labels, numbers = index.texts.rows_for(index.runs)
    counted = RunLabels(_Counted(labels.ids), _Counted(labels.names))
    search._texts = (counted, numbers)
    _Counted.reads = 0
    assert sorted(_matching("stripes", search)) == sorted(ids[:5] + [ids[6]])
    assert _Counted.reads == 0
    assert counted.holding("zigzags") is None
    assert _matching(ids[7][-6:], RunSearch(index.runs, index)) == [ids[7]]  # no spec: its id
    name = labels.names[0]
    assert list(counted.holding(name) or []) == [name in label for label in labels.names]
