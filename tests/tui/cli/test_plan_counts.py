"""Plan mode counts attempts one way everywhere, the planning turn being none, and shows what
the planning turn cost (issue 25, item 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.tui.cli.commands import main
from tests.support.fake_anthropic import Turn
from tests.support.tui_support import FIRST_ATTEMPT, make_tui_project

PLAN = {"tasks": [{"id": "t1", "title": "Fix calc", "description": "add and mul",
                   "acceptance": "the tests pass"}]}  # fmt: skip


def test_status_history_summary_and_export_agree_and_show_the_planning_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = {"input_tokens": 3000, "output_tokens": 400}
    planning = [Turn([Turn.tool_use("submit_plan", PLAN)], "tool_use", usage)]
    project = make_tui_project(tmp_path / "project", [planning, FIRST_ATTEMPT])
    monkeypatch.chdir(project.root)
    assert main(["spec.md", "--auto", "--plan", "--script", str(project.script)]) == 0
    out = capsys.readouterr().out
    spent = project.state()["plan"]["planning"]
    tokens, cost = spent["tokens"], spent["cost_usd"]
    assert tokens > 0 and cost > 0
    planning_cost = f"{tokens:,} tokens, ${cost:.4f}"

    assert "[planning] PLANNING" in out  # the planning turn is not "attempt 0"
    assert f"plan (1 task, from the model; planning {planning_cost})" in out
    (summary,) = [line for line in out.splitlines() if line.startswith("summary: ")]
    assert f" · 1 attempt · planning {planning_cost} · " in summary
    assert "after 1 attempt ·" in out.splitlines()[-1]  # the verdict counts the same way

    assert main(["status"]) == 0
    status = capsys.readouterr().out.splitlines()
    assert "state     SUCCESS (1 attempt after planning)" in status
    assert f"planning  {planning_cost}" in status

    assert main(["history"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert dict(zip(header.split("\t"), row.split("\t"), strict=True))["Attempts"] == "1"

    run_id = row.split("\t")[0]
    assert main(["history", "--export", run_id]) == 0
    export = capsys.readouterr().out
    assert "| attempts | 1 |" in export
    assert f"| planning | {planning_cost} |" in export
    assert (
        json.loads((project.root / "logs" / run_id / "plan-draft.json").read_text())["planning"]
        == spent
    )
