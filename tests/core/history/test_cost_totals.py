"""``orch-tui history --costs`` and ``orch-tui --version``."""

from __future__ import annotations

import json
import subprocess
from importlib.metadata import version
from pathlib import Path

from orch_tui.core.domain.events import ModelTurn, RunStarted
from orch_tui.core.history.costs import cost_rows, format_costs
from tests.support.e2e_support import orch_tui


def started(model: str, at: str, spec: str = "s.md") -> dict:
    return RunStarted(
        at=at,
        run_id="r",
        spec_path=spec,
        provider="p",
        model=model,
        max_retries=5,
        resumed=False,
        state="INIT",
        attempt=0,
    ).to_json()


def turn(at: str, tokens: int, run_cost: float) -> dict:
    return ModelTurn(
        at=at,
        attempt=0,
        turn=0,
        stop_reason="end_turn",
        input_tokens=tokens,
        output_tokens=0,
        cache_write_tokens=0,
        cache_read_tokens=0,
        run_tokens=0,
        run_cost_usd=run_cost,
    ).to_json()


def write_run(logs: Path, name: str, events: list[dict]) -> None:
    folder = logs / name
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


def make_logs(logs: Path) -> None:
    write_run(
        logs,
        "run-a",
        [
            started("gpt-4.1", "2026-11-20T10:00:00Z"),
            turn("2026-11-20T10:00:01Z", 100, 0.25),
            turn("2026-11-20T10:00:02Z", 50, 0.40),  # the run's total so far: this turn cost 0.15
            turn("2026-11-21T09:00:00Z", 10, 0.50),  # resumed the next day
        ],
    )
    write_run(
        logs,
        "run-b",
        [
            started("qwen2.5-coder", "2026-11-21T11:00:00Z"),
            turn("2026-11-21T11:00:01Z", 1000, 0.0),
        ],
    )


def test_tokens_and_dollars_per_day_and_model(tmp_path: Path) -> None:
    make_logs(tmp_path)
    rows = [(r.day, r.model, r.tokens, round(r.cost_usd, 6)) for r in cost_rows(tmp_path)]
    assert rows == [
        ("2026-11-20", "gpt-4.1", 150, 0.40),
        ("2026-11-21", "gpt-4.1", 10, 0.10),
        ("2026-11-21", "qwen2.5-coder", 1000, 0.0),
    ]
    text = format_costs(cost_rows(tmp_path))
    lines = [line.split() for line in text.splitlines()]
    assert ["all", "days", "gpt-4.1", "160", "$0.5000"] in lines
    assert ["all", "days", "qwen2.5-coder", "1,000", "$0.0000"] in lines
    assert lines[-1] == ["total", "1,160", "$0.5000"]


def test_totals_per_spec_and_since_a_day(tmp_path: Path) -> None:
    make_logs(tmp_path)
    write_run(
        tmp_path,
        "run-c",
        [
            started("gpt-4.1", "2026-11-22T08:00:00Z", "other.md"),
            turn("2026-11-22T08:00:01Z", 7, 0.3),
        ],
    )

    lines = [line.split() for line in format_costs(cost_rows(tmp_path)).splitlines()]
    assert ["spec", "other.md", "7", "$0.3000"] in lines
    assert ["spec", "s.md", "1,160", "$0.5000"] in lines
    assert lines[-1] == ["total", "1,167", "$0.8000"]

    since = cost_rows(tmp_path, since="2026-11-21")
    assert [(r.day, r.model, r.spec, r.tokens, round(r.cost_usd, 6)) for r in since] == [
        ("2026-11-21", "gpt-4.1", "s.md", 10, 0.10),
        ("2026-11-21", "qwen2.5-coder", "s.md", 1000, 0.0),
        ("2026-11-22", "gpt-4.1", "other.md", 7, 0.3),
    ]


def test_since_on_the_command_line_and_its_bad_input(tmp_path: Path) -> None:
    make_logs(tmp_path / "logs")
    (tmp_path / "orchestrator.toml").write_text("")

    def history(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [orch_tui(), "history", *args], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )

    done = history("--costs", "--since", "2026-11-21")
    assert done.returncode == 0, done.stderr
    assert "2026-11-20" not in done.stdout and "2026-11-21  gpt-4.1" in done.stdout
    bad = history("--costs", "--since", "yesterday")
    assert bad.returncode == 1 and "not a day (YYYY-MM-DD): 'yesterday'" in bad.stderr
    alone = history("--since", "2026-11-21")
    assert alone.returncode == 1 and "--since works with --costs" in alone.stderr


def test_history_costs_on_the_command_line(tmp_path: Path) -> None:
    make_logs(tmp_path / "logs")
    (tmp_path / "orchestrator.toml").write_text("")
    done = subprocess.run(
        [orch_tui(), "history", "--costs"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == format_costs(cost_rows(tmp_path / "logs"))
    assert "2026-11-21  qwen2.5-coder" in done.stdout


def test_version_prints_the_installed_version() -> None:
    done = subprocess.run([orch_tui(), "--version"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, f"orch-tui {version('orch-tui')}\n")
