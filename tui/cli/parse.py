"""Argument parsing: the run's options, each subcommand's, and which subcommand was named.

No Textual and no engine run here: ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from orch_tui.core.loop.exit_codes import EXIT_FAILED

SUBCOMMANDS = (
    "status",
    "reset",
    "restore",
    "history",
    "init",
    "doctor",
    "batch",
    "inbox",
    "verify",
)

EPILOG = """\
other commands:
  orch-tui status [--json]          where the current run stands
  orch-tui reset [--yes]            clear state.json and undo the run in its workspace
                                    (workspace/ is emptied; an existing project is restored)
  orch-tui restore K                put the workspace back to attempt K's result (a new step)
  orch-tui history [--export ID]    browse past runs, or print one as Markdown
                                    (--chain: with the runs before it, for a change run)
  orch-tui history --costs          tokens and dollars per day and per model
  orch-tui init                     write a commented default orchestrator.toml
  orch-tui doctor                   check key, API, model, check commands and folder
  orch-tui verify [--mutation]      the checks again on a fresh copy of the finished workspace;
                                    --mutation also mutation-tests the lines the run changed
  orch-tui batch SPEC|DIR... [--jobs N] [--engine local|ray] [--max-cost-usd X] [--json]
                 [--workspace REPO] many specs at once, each in batches/<id>/<name>/ (with
                                    --workspace: each in its own git worktree of REPO)
  orch-tui batch --compare A B      two batches side by side
  orch-tui inbox [--into DIR]       review finished batch runs: accepted hunks land in your
                                    project, rejected ones can go back to the model

exit codes: 0 success · 1 failed (retries or budget spent, model error, no progress,
bad input) · 2 safety violation · 3 corrupt or unreadable state · 4 needs help (answer
with --guidance TEXT) · 130 interrupted (state kept: the same command resumes)
"""


class _Retried(Exception):
    """A usage error while :class:`_Parser` looks for unknown options."""


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 1: exit 2 means a safety violation here. An unknown option is named
    as one, even when the spec is missing too (``orch-tui --bogus``)."""

    _given: list[str] | None = None
    _looking = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if not self._looking:
            self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        if self._looking:
            raise _Retried
        if message.startswith("the following arguments are required"):
            unknown = self._unknown_options()
            message = _unknown_message(unknown) if unknown else message
        elif message.startswith(UNRECOGNIZED):
            words = message[len(UNRECOGNIZED) :].split()
            if all(word.startswith("-") for word in words):
                message = _unknown_message(words)
        self.print_usage(sys.stderr)
        self.exit(EXIT_FAILED, f"orch-tui: error: {message}\n")

    def _unknown_options(self) -> list[str]:
        """The options argparse knows not, found by parsing again with every positional given."""
        positionals = [action for action in self._actions if not action.option_strings]
        self._looking = True
        try:
            _, extra = super().parse_known_args([*(self._given or []), *("x" * len(positionals))])
        except _Retried:
            return []
        finally:
            self._looking = False
        return [word for word in extra if word.startswith("-")]


UNRECOGNIZED = "unrecognized arguments: "


def _unknown_message(options: Sequence[str]) -> str:
    return f"unknown option{'s' if len(options) > 1 else ''}: {' '.join(options)}"


def run_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="orch-tui",
        description="Turn a written spec into a working, tested project with Claude; "
        "review every hunk before it lands.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", type=Path, help="the spec (Markdown) to build")
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("--auto", action="store_true", help="headless: accept every proposal")
    parser.add_argument("--json", action="store_true", help="with --auto: one JSON event per line")
    parser.add_argument(
        "--plan", action="store_true", help="plan tasks first, then build them one by one"
    )
    parser.add_argument("--max-retries", type=int, metavar="N", help="patch attempts (1..50)")
    parser.add_argument(
        "--max-cost-usd", type=_dollars, metavar="X", help="stop when the run costs X"
    )
    _add_model_options(parser)
    parser.add_argument(
        "--script", type=Path, metavar="FILE", help="recorded turns or logs/<run_id>"
    )
    parser.add_argument(
        "--task",
        metavar="ID",
        help="run one task of the approved plan (its id, e.g. t2), leaving the others as they are",
    )
    parser.add_argument(
        "--data",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a data file for the spec (repeatable): copied to workspace/data/, read-only to "
        "the model, described in its first prompt",
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help="orchestrator.toml to use")
    parser.add_argument(
        "--fresh", action="store_true", help="start a new run even if one can resume"
    )
    _add_workspace_option(parser)
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="start in a git repository with uncommitted changes to tracked files",
    )
    parser.add_argument(
        "--continue",
        dest="continue_run",
        action="store_true",
        help="reopen a FAILED or NEEDS_HELP run with a fresh retry budget",
    )
    parser.add_argument(
        "--guidance",
        metavar="TEXT",
        help="answer the run's question (or an option's number); implies --continue",
    )
    parser.add_argument(
        "--rework",
        action="store_true",
        help="with --guidance: reopen even a successful run for another attempt",
    )
    parser.add_argument(
        "--give-up",
        action="store_true",
        help="end the saved run FAILED, with no model request (as the stuck question's "
        '"Give up on this run" option does)',
    )
    parser.add_argument(
        "--no-notify", action="store_true", help="no bell, desktop notification or notify command"
    )
    return parser


def _dollars(text: str) -> float:
    """A budget: a finite amount of dollars, 0 or more (nan or inf would switch it off)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of dollars: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite amount of 0 or more, not {text!r}")
    return value


def _day(text: str) -> str:
    """A day as ``YYYY-MM-DD``."""
    import datetime

    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a day (YYYY-MM-DD): {text!r}") from None


def _add_workspace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace",
        type=Path,
        metavar="PATH",
        help="work in this existing folder or git repository instead of workspace/",
    )


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked for (reading the
    package metadata costs a run's launch as much as the rest of its argument parsing)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="show program's version number and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"orch-tui {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("orch-tui")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    """``--model`` and ``--provider``: for a run, and for ``doctor`` to check them."""
    parser.add_argument("--model", metavar="M", help="model id sent to the provider")
    parser.add_argument("--provider", choices=PROVIDERS, help="where turns come from")


PROVIDERS = ("anthropic", "openai", "claude-code", "scripted")


def sub_parser(command: str) -> argparse.ArgumentParser:
    parser = _Parser(prog=f"orch-tui {command}")
    parser.add_argument("--config", type=Path, metavar="FILE", help="orchestrator.toml to use")
    if command == "reset":
        parser.add_argument("--yes", action="store_true", help="do not ask before removing")
        _add_workspace_option(parser)
    if command == "restore":
        parser.add_argument("attempt", type=int, metavar="K", help="the attempt to go back to")
    if command == "doctor":
        _add_model_options(parser)
    if command == "status":
        parser.add_argument("--json", action="store_true", help="print state.json's fields as JSON")
    if command == "verify":
        parser.add_argument(
            "--mutation", action="store_true", help="also mutation-test the lines the run changed"
        )
        parser.add_argument(
            "--json", action="store_true", help="print the outcome as one JSON object"
        )
    if command == "history":
        parser.add_argument("--export", metavar="RUN_ID", help="print the run as a Markdown report")
        parser.add_argument(
            "--chain",
            action="store_true",
            help="with --export: the runs before it in its chain of change runs too, oldest first",
        )
        parser.add_argument(
            "--costs",
            action="store_true",
            help="tokens and dollars per day, per model and per spec",
        )
        parser.add_argument(
            "--since",
            type=_day,
            metavar="DATE",
            help="with --costs: only from this day on (YYYY-MM-DD, UTC)",
        )
    return parser


VALUE_OPTIONS = frozenset(
    (
        "--max-retries",
        "--max-cost-usd",
        "--model",
        "--provider",
        "--script",
        "--config",
        "--export",
        "--task",
        "--data",
        "--since",
    )
)
"""Options of ``run_parser`` and ``sub_parser`` that take the next word as their value."""


def split_command(args: Sequence[str]) -> tuple[str | None, list[str]]:
    """The subcommand named anywhere among ``args`` (options may come first), and the rest.

    The first word that is not an option or an option's value is either a subcommand or the
    spec: ``orch-tui --config f status`` is ``status`` with ``--config f``.
    """
    expects_value = False
    for index, word in enumerate(args):
        if expects_value:
            expects_value = False
        elif word == "--":
            break
        elif word.startswith("-"):
            expects_value = word in VALUE_OPTIONS
        else:
            if word in SUBCOMMANDS:
                return word, [*args[:index], *args[index + 1 :]]
            break
    return None, list(args)
