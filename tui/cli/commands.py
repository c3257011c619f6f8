"""``orch-tui``: the command line (DESIGN section 6): ``main`` and the subcommands' dispatch.

Imports stay light at module level: ``--help`` and ``--auto`` never load
Textual, and the Anthropic SDK is imported only when a request is made.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from orch_tui.core.checks.process_guard import make_non_dumpable
from orch_tui.core.loop.exit_codes import EXIT_SUCCESS
from orch_tui.tui.cli.parse import run_parser, split_command, sub_parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``orch-tui`` command; ``argv`` None means this process's own command line."""
    # Before any check runs: a check must not read the API key from /proc/<our pid>/environ.
    make_non_dumpable()
    command, args = split_command(sys.argv[1:] if argv is None else argv)
    if command == "batch":
        from orch_tui.tui.cli.batch_command import run_batch_command

        return run_batch_command(args)
    if command == "inbox":
        from orch_tui.tui.cli.inbox_command import run_inbox_command

        return run_inbox_command(args)
    if command is not None:
        return _flushed(lambda: run_subcommand(command, sub_parser(command).parse_args(args)))
    parsed = run_parser().parse_args(args)  # --help and --version end here, nothing loaded
    from orch_tui.tui.cli.resume_hint import remember
    from orch_tui.tui.cli.spec_run import run_spec

    remember(args)
    code = run_spec(parsed)
    if argv is None and parsed.auto:
        _exit_now(code)
    return code


def _flushed(command: Callable[[], int]) -> int:
    """Run a subcommand and flush what it printed; a reader that went away (``status | head``)
    ends it quietly, with no traceback: printing is the last thing every subcommand does."""
    try:
        code = command()
        if sys.stdout is not None:  # None: started with stdout closed, and print() was a no-op
            sys.stdout.flush()
    except OSError:  # a reader that went away, a terminal that hung up
        from orch_tui.tui.cli.printer import silence

        if sys.stdout is not None:
            silence(sys.stdout)
        return EXIT_SUCCESS
    return code


def _exit_now(code: int) -> NoReturn:
    """End the process without the interpreter's teardown (about a second with the SDK loaded).

    Safe after a headless run: every state and log file is written (state.json, the attempt
    files atomically with fsync, events.jsonl with one ``write`` per line), no check is left
    running, and only Python's own buffers need flushing.
    """
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with it closed (``>&-``)
            continue
        try:
            stream.flush()
        except OSError:  # a reader that went away (a closed pipe) takes nothing more
            pass
    os._exit(code)


def run_subcommand(command: str, args: argparse.Namespace) -> int:
    """One subcommand, its arguments parsed. Each imports only what it needs, here and not at
    start-up: ``status`` never loads the engine, the history screens or the provider SDKs."""
    from orch_tui.core.config.files import ConfigError
    from orch_tui.tui.cli.failing import fail
    from orch_tui.tui.cli.shared import glance_project, holding_lock, load_project

    if command == "verify":
        from orch_tui.tui.cli.verify_command import run_verify

        return run_verify(args)
    if command == "status":
        from orch_tui.tui.cli.state_commands import status

        try:
            paths, sandbox = glance_project(args.config)
        except ConfigError as exc:
            return fail(str(exc))
        return status(paths, sandbox, as_json=args.json)
    if command == "doctor":
        from orch_tui.tui.cli.doctor_command import doctor

        return doctor(args.config, model=args.model, provider=args.provider)
    try:
        paths, config = load_project(args.config, getattr(args, "workspace", None))
    except ConfigError as exc:
        return fail(str(exc))
    if command == "init":
        from orch_tui.core.config.init_file import write_default_config

        try:
            write_default_config(paths.config)
        except ConfigError as exc:
            return fail(str(exc))
        print(f"wrote {paths.config}")
        return EXIT_SUCCESS
    if command == "reset":
        from orch_tui.core.config.paths import ProjectPaths
        from orch_tui.tui.cli.state_commands import reset

        here = ProjectPaths.here(args.config)  # never a parent folder's project
        chosen = args.workspace.resolve() if args.workspace is not None else config.paths.workspace
        target = here.with_workspace(chosen)
        return holding_lock(target, lambda: reset(target, yes=args.yes))
    if command == "restore":
        from orch_tui.tui.cli.state_commands import restore

        return holding_lock(paths, lambda: restore(paths, args.attempt))
    if command == "history" and args.since and not args.costs:
        return fail("--since works with --costs (history --costs --since YYYY-MM-DD)")
    if command == "history" and args.chain and not args.export:
        return fail("--chain works with --export (history --export RUN_ID --chain)")
    if command == "history" and args.costs:
        from orch_tui.core.history.costs import cost_rows, format_costs

        sys.stdout.write(format_costs(cost_rows(paths.logs, since=args.since)))
        return EXIT_SUCCESS
    from orch_tui.tui.cli.history_command import history

    return history(paths, config, args.export, chain=args.chain)


if __name__ == "__main__":
    sys.exit(main())
