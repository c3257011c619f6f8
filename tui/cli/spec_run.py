"""``orch-tui SPEC``: the review screen on a terminal, or ``--auto`` headless.

This module loads next to nothing: on a terminal the review screen paints its frame before the
config models, the spec, the state and the engine are loaded (tui/launch.py opens the run
behind it, through ``run.open_for_review``), and ``--auto`` never loads Textual.
"""

from __future__ import annotations

import argparse
import sys

from orch_tui.tui.cli.shared import fail


def has_terminal() -> bool:
    """Both ends of a person's terminal: keys come in on stdin, the screen goes to stdout."""
    return sys.stdin.isatty() and sys.stdout.isatty()


NO_TERMINAL = "the review screen needs a terminal (stdin and stdout); use --auto to run without one"


def run_spec(args: argparse.Namespace) -> int:
    if args.json and not args.auto:
        return fail("--json only works with --auto (the review screen prints no events)")
    if args.auto:
        from orch_tui.tui.cli.run import run_headless_spec

        return run_headless_spec(args)
    if not has_terminal():
        return fail(NO_TERMINAL)
    from orch_tui.tui.launch import run_review  # Textual is imported only here

    return run_review(args)
