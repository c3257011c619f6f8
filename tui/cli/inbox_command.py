"""``orch-tui inbox``: the batch runs that finished and wait for a person.

On a terminal, the inbox screen (Textual, loaded only then); without one, or with ``--json``,
the waiting runs as tab-separated lines or a JSON list, newest first. ``--help`` loads nothing
past the argument parser.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.loop.exit_codes import EXIT_SUCCESS
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.tui.cli.executable import start_collecting

if TYPE_CHECKING:  # the batch records and the config load once --help is past
    from orch_tui.core.batch.inbox import InboxEntry
    from orch_tui.core.batch.landing import Target

COLUMNS = ("run", "state", "attempt", "tests", "cost_usd", "folder")


def inbox_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="orch-tui inbox",
        description="Review the batch runs that finished: each run's whole change, hunk by "
        "hunk; accepted hunks land in your project, rejected ones can go back to the model.",
    )
    parser.add_argument("--json", action="store_true", help="list the waiting runs as JSON")
    parser.add_argument(
        "--into",
        type=Path,
        metavar="DIR",
        help="where accepted hunks land (default: the batch's --workspace, else this "
        "project's workspace)",
    )
    parser.add_argument(
        "--onto",
        metavar="BRANCH",
        help="commit accepted hunks onto this branch of the repository instead (one commit a "
        "run; the branch must exist and not be checked out; your files are not touched)",
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help="orchestrator.toml to use")
    return parser


def run_inbox_command(argv: Sequence[str]) -> int:
    args = inbox_parser().parse_args(argv)
    from orch_tui.core.batch.inbox import waiting_runs
    from orch_tui.core.config.files import ConfigError
    from orch_tui.tui.cli.failing import fail
    from orch_tui.tui.cli.shared import load_project

    try:
        paths, config = load_project(args.config)
    except ConfigError as exc:
        return fail(str(exc))
    entries, problems = waiting_runs(paths.root)
    for problem in problems:
        print(f"orch-tui inbox: {problem}", file=sys.stderr)
    if args.json:
        print(json.dumps([_as_json(entry) for entry in entries], indent=2))
        return EXIT_SUCCESS
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        _print_entries(entries)
        return EXIT_SUCCESS
    into: Path | None = args.into.resolve() if args.into is not None else None

    def target_for(entry: InboxEntry) -> Target:
        if into is not None:
            return Target(into, args.onto)
        folder = Path(entry.workspace) if entry.workspace else paths.workspace
        return Target(folder, args.onto)

    from orch_tui.core.batch.landing import Target
    from orch_tui.tui.inbox_app import InboxApp

    start_collecting()  # the inbox is open as long as the person reviews
    InboxApp(paths.root, config, target_for).run()
    return EXIT_SUCCESS


def _as_json(entry: InboxEntry) -> dict[str, object]:
    state = entry.state
    return {
        "run": entry.key,
        "batch_id": entry.batch_id,
        "name": entry.name,
        "run_id": state.run_id,
        "state": str(state.state),
        "attempt": state.attempt,
        "tests": state.last_test.summary if state.last_test else None,
        "tests_passed": state.last_test.passed if state.last_test else None,
        "cost_usd": round(state.cost_usd, 6),
        "stop_reason": state.stop_reason,
        "folder": str(entry.folder),
    }


def _print_entries(entries: list[InboxEntry]) -> None:
    print("\t".join(COLUMNS))
    for entry in entries:
        row = _as_json(entry)
        cells = [
            row["run"],
            row["state"],
            row["attempt"],
            row["tests"] or "",
            f"{entry.state.cost_usd:.4f}",
            row["folder"],
        ]
        print("\t".join(escape_controls(str(cell)).replace("\t", " ") for cell in cells))
