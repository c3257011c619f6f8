"""A run's chain in the history (DESIGN section 16): the runs before a change run, and the
export of the whole chain, read from hand-made run folders (what a change run writes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.history.chain import earlier_runs
from orch_tui.core.history.chain_export import export_chain_markdown
from orch_tui.core.history.detail import HistoryError
from orch_tui.core.history.export import export_markdown
from orch_tui.core.runlog import layout as runlog


def make_run(logs: Path, run_id: str, follows: str | None = None, diff: str = "") -> None:
    folder = logs / run_id
    folder.mkdir(parents=True)
    meta = {"run_id": run_id, "spec_path": "spec.md", "model": "m", "provider": "scripted"}
    (folder / runlog.RUN_META).write_text(
        json.dumps(meta | ({"follows": follows} if follows else {}))
    )
    (folder / runlog.SPEC_COPY).write_text("# calc\n")
    if diff:
        (folder / runlog.SPEC_DIFF).write_text(diff)


def test_earlier_runs_walk_follows_back_oldest_first(tmp_path: Path) -> None:
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", follows="a")
    make_run(tmp_path, "c", follows="b")
    make_run(tmp_path, "other")
    assert earlier_runs(tmp_path, "c") == ["a", "b"]
    assert earlier_runs(tmp_path, "a") == []
    # a deleted run is still named (it was followed), and the walk ends there
    make_run(tmp_path, "d", follows="gone")
    assert earlier_runs(tmp_path, "d") == ["gone"]
    # run.json files edited by hand into a loop end the walk instead of hanging it
    make_run(tmp_path, "x", follows="y")
    make_run(tmp_path, "y", follows="x")
    assert earlier_runs(tmp_path, "x") == ["y"]


def test_the_chain_export_holds_every_runs_report_oldest_first(tmp_path: Path) -> None:
    make_run(tmp_path, "run-a")
    make_run(tmp_path, "run-b", follows="run-a", diff="--- spec.md\n+++ spec.md\n+add sub\n")
    make_run(tmp_path, "run-c", follows="run-b", diff="--- spec.md\n+++ spec.md\n+add div\n")

    report = export_chain_markdown(tmp_path, "run-c")

    assert report.startswith("# Chain of run run-c\n")
    assert "3 runs: the first built the project, each one after it changed it" in report
    rows = [line.split("|") for line in report.splitlines() if line[:4] in ("| 1 ", "| 2 ", "| 3 ")]
    assert [row[2].strip() for row in rows] == ["`run-a`", "`run-b`", "`run-c`"]
    assert "| | total |" in report
    heads = [report.index(f"# Run run-{name}\n") for name in "abc"]
    assert heads == sorted(heads)
    # each change run's report carries the spec edit it was started for, in that order
    assert report.index("+add sub") < report.index("+add div")
    assert report.index("# Run run-b") < report.index("+add sub") < report.index("# Run run-c")
    # one run's own export has its edit, and the first run (no edit) none
    assert "## Spec edit" in export_markdown(tmp_path, "run-b")
    assert "## Spec edit" not in export_markdown(tmp_path, "run-a")


def test_a_chain_whose_earlier_log_is_gone_names_it_and_exports_the_rest(tmp_path: Path) -> None:
    make_run(tmp_path, "run-b", follows="run-a")
    report = export_chain_markdown(tmp_path, "run-b")
    assert "| 1 | `run-a` | its log is gone | – | – |" in report
    assert "# Run run-b" in report and "# Run run-a" not in report
    with pytest.raises(HistoryError):
        export_chain_markdown(tmp_path, "missing")
