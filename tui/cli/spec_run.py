"""``orch-tui SPEC``: the review screen on a terminal, or ``--auto`` headless.

This module loads next to nothing: on a terminal the review screen paints its frame before the
config models, the spec, the state and the engine are loaded (tui/launch.py opens the run
behind it, through ``run.open_for_review``), and ``--auto`` never loads Textual.
"""

from __future__ import annotations

import argparse
import sys

from orch_tui.tui.cli.failing import fail


def has_terminal() -> bool:
    """Both ends of a person's terminal: keys come in on stdin, the screen goes to stdout."""
    return sys.stdin.isatty() and sys.stdout.isatty()


NO_TERMINAL = "the review screen needs a terminal (stdin and stdout); use --auto to run without one"


def _probe_sandbox_early(args: argparse.Namespace) -> None:
    """Start bubblewrap's probe while the run's modules load, when the config may use it; a
    config that cannot be read is left to the full read, which says why."""
    from orch_tui.core.checks.sandbox import probe_early
    from orch_tui.core.config.files import ConfigError
    from orch_tui.tui.cli.shared import glance_project

    try:
        _paths, mode = glance_project(args.config)
    except ConfigError:
        return
    if mode != "none":
        probe_early()


def run_spec(args: argparse.Namespace) -> int:
    if args.json and not args.auto:
        return fail("--json only works with --auto (the review screen prints no events)")
    if args.auto:
        _probe_sandbox_early(args)
        from orch_tui.tui.cli.run import run_headless_spec

        return run_headless_spec(args)
    if not has_terminal():
        return fail(NO_TERMINAL)
    from orch_tui.tui.launch import run_review  # Textual is imported only here

    return run_review(args)
