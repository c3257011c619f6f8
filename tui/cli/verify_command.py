"""``orch-tui verify [--mutation] [--json]``: the checks again on the finished workspace.

The work is ``core.checks.verify_run`` and the options are ``parse``'s; this module prints and
turns the outcome into an exit code: 0 when the checks pass in the fresh copy (surviving
mutants are evidence, not a failure: some are equivalent to the original), 1 when they fail,
there is no run or mutmut cannot run, 130 on Ctrl+C.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from orch_tui.core.checks.mutation import CTRL_C, MutationUnavailable, run_mutation
from orch_tui.core.checks.mutation_results import MutationReport
from orch_tui.core.checks.runner import TestReport
from orch_tui.core.checks.verify_run import NoRun, fresh_copy, run_changes, verify_checks
from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.models import Config, load_config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.tui.cli.failing import fail
from orch_tui.tui.cli.shared import holding_lock

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130
BAR_WIDTH = 30


def run_verify(options: argparse.Namespace) -> int:
    """Run ``verify`` with parsed ``options`` (``config``, ``mutation``, ``json``)."""
    try:
        paths = ProjectPaths.locate(getattr(options, "config", None))
        config = load_config(paths.config)
        changes = run_changes(paths)
    except (ConfigError, NoRun) as exc:
        return fail(str(exc))
    outcome: dict[str, Any] = {"run_id": changes.run_id}

    def verify() -> int:
        try:
            return _verify(config, changes.workspace, changes.mutable_lines(), options, outcome)
        except KeyboardInterrupt:
            print("\norch-tui: verify stopped (Ctrl+C)", file=sys.stderr)
            return EXIT_INTERRUPTED
        finally:
            if getattr(options, "json", False):
                print(json.dumps(outcome))

    return holding_lock(paths, verify)


def _verify(
    config: Config,
    workspace: Path,
    lines: dict[str, list[int]],
    options: argparse.Namespace,
    outcome: dict[str, Any],
) -> int:
    as_json = bool(getattr(options, "json", False))
    say = _printer(sys.stderr if as_json else sys.stdout)
    say(f"verifying {workspace} in a fresh copy (no .git, no caches) …")
    with fresh_copy(workspace) as (copy, reports):
        report = verify_checks(config, workspace, copy, reports, on_notice=say)
        outcome["checks"] = _checks_json(report)
        say(f"checks: {report.summary()}")
        if not report.passed:
            say("the checks fail on the finished workspace" + _failing(report))
            return EXIT_FAILED
        if not getattr(options, "mutation", False):
            return EXIT_OK
        if not any(lines.values()):
            say("the run changed no Python lines outside the tests: nothing to mutate")
            outcome["mutation"] = MutationReport().to_json()
            return EXIT_OK
        say("mutation testing the changed lines with mutmut …")
        bar = _progress_bar(sys.stderr)
        try:
            mutation = run_mutation(
                config,
                workspace,
                copy,
                reports,
                lines,
                on_progress=bar,
                on_step=lambda step: say(f"mutmut: {step} …"),
            )
        except MutationUnavailable as exc:
            outcome["mutation"] = {"error": str(exc)}
            say(f"mutation: {exc}")
            return EXIT_FAILED
        finally:
            bar(-1, -1)
    outcome["mutation"] = mutation.to_json()
    say(f"mutation: {mutation.summary()}")
    for line in mutation.survivor_lines():
        say(f"  survived: {line}")
    if mutation.stopped == CTRL_C:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if mutation.stopped else EXIT_OK


def _progress_bar(stream: TextIO) -> Any:
    """A one-line bar on a terminal (redrawn in place), else a line per step; ``(-1, -1)``
    ends the bar's line."""
    live = stream.isatty()
    drawn = [False]

    def show(done: int, total: int) -> None:
        if done < 0:
            if live and drawn[0]:
                stream.write("\n")
                stream.flush()
            return
        filled = BAR_WIDTH * done // total if total else BAR_WIDTH
        text = f"mutants [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {done}/{total}"
        stream.write("\r" + text if live else text + "\n")
        stream.flush()
        drawn[0] = True

    return show


def _checks_json(report: TestReport) -> dict[str, Any]:
    return {"passed": report.passed, "summary": report.summary(), "failing": report.failing}


def _failing(report: TestReport) -> str:
    failing = report.failing
    return f": {', '.join(failing[:10])}" if failing else ""


def _printer(stream: TextIO) -> Any:
    def say(line: str) -> None:
        print(line, file=stream, flush=True)

    return say
