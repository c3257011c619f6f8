"""Writes many small, realistic run folders into a ``logs/`` folder, as the engine would.

Each run has the files :mod:`core.runlog` describes (``run.json``, ``spec.md``,
``events.jsonl`` and per attempt the conversation, proposal, decisions, applied change and
patch, test report and output), built with the same core types the engine uses. Runs are
deterministic for a given seed: run ``i`` starts ``i`` hours after 2026-01-01.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from orch_tui.core.checks.junit import TestCase
from orch_tui.core.checks.runner import CheckResult, TestReport
from orch_tui.core.domain.proposal import Decisions, FileChange, Proposal, render_patch, resolve
from orch_tui.core.runlog import layout as runlog

SPECS = {
    "wordstats.md": "# wordstats\n\nCount words in text; `top_words(text, n)` gives the n most "
    "frequent.\n",
    "csvtool.md": "# csvtool\n\nRead CSV files and print column statistics (mean, median).\n",
    "todo.md": "# todo\n\nA command-line todo list stored in a JSON file, with due dates.\n",
    "shapes.md": "# shapes\n\nAreas and perimeters of circles, squares and triangles.\n",
}
TESTS = [f"tests/test_main.py::test_case_{n}" for n in range(8)]
BASE_TIME = datetime(2026, 1, 1, tzinfo=UTC)


def _stamp(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _module(version: int) -> str:
    body = "\n".join(f"def f{n}(x):\n    return x + {n + version}\n" for n in range(6))
    return f'"""Generated module, version {version}."""\n\n{body}'


def _report(failing: set[str]) -> TestReport:
    tests = [
        TestCase(
            test, "failed" if test in failing else "passed", "assert 1 == 2" * (test in failing)
        )
        for test in TESTS
    ]
    output = "".join("F" if t.outcome == "failed" else "." for t in tests)
    check = CheckResult(
        "tests", ["python", "-m", "pytest"], int(bool(failing)), False, 0.8, output, 0, tests
    )
    return TestReport([check])


def write_run(logs: Path, index: int, rng: random.Random) -> str:
    """One run folder; returns its run id."""
    started = BASE_TIME + timedelta(hours=index)
    run_id = started.strftime("%Y%m%d-%H%M%S-") + f"{index:04x}"
    folder = logs / run_id
    folder.mkdir(parents=True)
    spec_name = rng.choice(sorted(SPECS))
    spec_text = SPECS[spec_name] + f"\nRun tag: tag{index:04d}.\n"
    attempts = rng.randint(1, 5)
    unfinished = index % 97 == 5
    succeeded = not unfinished and rng.random() < 0.7
    (folder / runlog.RUN_META).write_text(
        json.dumps(
            {
                "run_id": run_id,
                "spec_path": spec_name,
                "spec_hash": "0" * 64,
                "provider": "scripted",
                "model": "claude-sonnet-4-5",
                "max_retries": 5,
                "created_at": _stamp(started),
            }
        )
    )
    (folder / runlog.SPEC_COPY).write_text(spec_text)
    clock = started
    events: list[dict[str, Any]] = []

    def event(kind: str, **fields: Any) -> None:
        nonlocal clock
        clock += timedelta(seconds=rng.uniform(0.5, 20))
        events.append({"event": kind, "at": _stamp(clock), **fields})

    event(
        "run_started",
        run_id=run_id,
        spec_path=spec_name,
        provider="scripted",
        model="claude-sonnet-4-5",
        max_retries=5,
        resumed=False,
        state="INIT",
        attempt=0,
    )
    tokens, cost = 0, 0.0
    workspace: dict[str, str] = {}
    failing = set(rng.sample(TESTS, rng.randint(1, 3)))
    for attempt in range(attempts):
        last = attempt == attempts - 1
        event(
            "state",
            state="GENERATING" if attempt == 0 else "PATCHING",
            attempt=attempt,
            max_retries=5,
        )
        new_text = _module(attempt)
        change = FileChange("main.py", workspace.get("main.py"), new_text)
        proposal = Proposal(attempt, (change,))
        turn_tokens = rng.randint(2000, 9000)
        tokens += turn_tokens
        cost += turn_tokens * 3e-6
        event(
            "model_turn",
            attempt=attempt,
            turn=0,
            stop_reason="end_turn",
            input_tokens=turn_tokens,
            output_tokens=0,
            cache_write_tokens=0,
            cache_read_tokens=0,
            run_tokens=tokens,
            run_cost_usd=round(cost, 6),
        )
        base = folder / runlog.attempt_dir_name(attempt)
        base.mkdir()
        text = f"Attempt {attempt}: I rewrote main.py."
        (base / runlog.CONVERSATION).write_text(
            json.dumps(
                {
                    "model": "claude-sonnet-4-5",
                    "system": [],
                    "tools": [],
                    "messages": [],
                    "turns": [
                        {
                            "content": [{"type": "text", "text": text}],
                            "stop_reason": "end_turn",
                            "usage": {"input_tokens": turn_tokens},
                            "model": "",
                        }
                    ],
                }
            )
        )
        (base / runlog.PROPOSAL).write_text(json.dumps(proposal.to_json()))
        event(
            "proposal",
            attempt=attempt,
            files=["main.py"],
            added=proposal.added,
            removed=proposal.removed,
            hunks=proposal.hunk_count,
        )
        if unfinished and last:
            event("state", state="REVIEWING", attempt=attempt, max_retries=5)
            break
        decisions = Decisions.undecided(proposal)
        landed = resolve(proposal, decisions)
        (base / runlog.DECISIONS).write_text(json.dumps(decisions.to_json()))
        (base / runlog.APPLIED).write_text(json.dumps({"files": landed}))
        (base / runlog.APPLIED_PATCH).write_text(
            render_patch((path, workspace.get(path), text) for path, text in landed.items())
        )
        workspace.update({p: t for p, t in landed.items() if t is not None})
        event(
            "review",
            attempt=attempt,
            accepted=1,
            rejected=0,
            edited=[],
            reject_reason=None,
            files_landing=sorted(landed),
        )
        event("state", state="TESTING", attempt=attempt, max_retries=5)
        if succeeded and last:
            failing = set()
        elif failing and rng.random() < 0.5:
            failing = set(rng.sample(TESTS, rng.randint(1, 3)))
        report = _report(failing)
        (base / runlog.REPORT).write_text(json.dumps(report.to_json()))
        (base / runlog.TEST_OUTPUT).write_text(report.checks[0].output)
        event(
            "tests",
            attempt=attempt,
            passed=report.passed,
            summary=report.summary(),
            counts=report.counts,
            failing=report.failing,
            errors=[],
        )
    if not unfinished:
        final = "SUCCESS" if succeeded else "FAILED"
        reason = (
            f"all checks passed after {attempts} attempts"
            if succeeded
            else f"retries exhausted: checks failed after {attempts - 1} patch attempts"
        )
        event("state", state=final, attempt=attempts - 1, max_retries=5)
        event(
            "run_finished",
            state=final,
            attempt=attempts - 1,
            stop_reason=reason,
            exit_code=0 if succeeded else 1,
            tokens=tokens,
            cost_usd=round(cost, 6),
        )
    (folder / runlog.EVENTS).write_text("".join(json.dumps(e) + "\n" for e in events))
    return run_id


def write_synthetic_runs(logs: Path, count: int, seed: int = 7) -> list[str]:
    """``count`` run folders in ``logs``; returns their run ids, oldest first."""
    rng = random.Random(seed)
    return [write_run(logs, index, rng) for index in range(count)]


def write_cloned_runs(logs: Path, count: int, templates: int = 100) -> list[str]:
    """``count`` runs made quickly from ``templates`` full runs, for lists of 100,000.

    The templates are written (as :func:`write_synthetic_runs` does) beside ``logs``, in
    ``templates/``. Clone ``i`` has its own ``run.json`` (its id, and a start ``i`` minutes
    after the first), ``spec.md`` (its own tag, ``tag{i:06d}``) and ``events.jsonl`` (the
    template's, under its id), and symlinks its attempt folders to its template's: a run
    reads the same as a written one, at a tenth of the disk. Returns the ids, oldest first.
    """
    source = logs.parent / "templates"
    template_ids = write_synthetic_runs(source, templates)
    ids = []
    for index in range(count):
        template = source / template_ids[index % templates]
        started = BASE_TIME + timedelta(minutes=index)
        run_id = started.strftime("%Y%m%d-%H%M%S-") + f"{index:05x}"
        folder = logs / run_id
        folder.mkdir(parents=True)
        meta = json.loads((template / runlog.RUN_META).read_text())
        meta.update(run_id=run_id, created_at=_stamp(started))
        (folder / runlog.RUN_META).write_text(json.dumps(meta))
        spec = (template / runlog.SPEC_COPY).read_text()
        (folder / runlog.SPEC_COPY).write_text(
            spec.split("\nRun tag:")[0] + f"\nRun tag: tag{index:06d}.\n"
        )
        events = (template / runlog.EVENTS).read_text().replace(template.name, run_id)
        (folder / runlog.EVENTS).write_text(events)
        for attempt in template.glob("attempt-*"):
            (folder / attempt.name).symlink_to(attempt.resolve())
        ids.append(run_id)
    return ids
