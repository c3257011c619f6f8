"""``orch-tui``: the command line (DESIGN section 6).

Imports stay light at module level: ``--help`` and ``--auto`` never load
Textual, and the Anthropic SDK is imported only when a request is made.
"""

from __future__ import annotations

import argparse
import errno
import json
import math
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from orch_tui.core.checks import leftovers
from orch_tui.core.checks.process_guard import make_non_dumpable
from orch_tui.core.checks.sandbox import SandboxError, resolve_sandbox
from orch_tui.core.config.dotenv import provider_env
from orch_tui.core.config.models import (
    Config,
    ConfigError,
    NotifyConfig,
    clamp_retries,
    load_config,
)
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.doctor import local_findings, refusal
from orch_tui.core.domain.cost import price_for
from orch_tui.core.domain.describe import describe_role_decision
from orch_tui.core.domain.events import EventBus
from orch_tui.core.domain.spec import Spec, SpecError, read_spec
from orch_tui.core.domain.state import StateError, StateStore
from orch_tui.core.loop.engine import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NEEDS_HELP,
    EXIT_STATE,
    EXIT_SUCCESS,
    Engine,
    ReopenRefused,
    RunOptions,
)
from orch_tui.core.loop.notify import subscribe_notifier
from orch_tui.core.loop.reset import ResetError, reset_workspace
from orch_tui.core.providers.base import ModelError, Provider
from orch_tui.core.providers.factory import choose_provider
from orch_tui.core.providers.scripted import ScriptError
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.core.workspace.lock import ProjectLock, ProjectLocked
from orch_tui.core.workspace.run_workspace import WorkspaceError
from orch_tui.tui.cli.executable import start_collecting

SUBCOMMANDS = ("status", "reset", "restore", "history", "init", "doctor")

EPILOG = """\
other commands:
  orch-tui status [--json]          where the current run stands
  orch-tui reset [--yes]            clear state.json and undo the run in its workspace
                                    (workspace/ is emptied; an existing project is restored)
  orch-tui restore K                put the workspace back to attempt K's result (a new step)
  orch-tui history [--export ID]    browse past runs, or print one as Markdown
  orch-tui history --costs          tokens and dollars per day and per model
  orch-tui init                     write a commented default orchestrator.toml
  orch-tui doctor                   check key, API, model, check commands and folder

exit codes: 0 success · 1 failed (retries or budget spent, model error, no progress,
bad input) · 2 safety violation · 3 corrupt or unreadable state · 4 needs help (answer
with --guidance TEXT) · 130 interrupted (state kept: the same command resumes)
"""


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 1: exit 2 means a safety violation here."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_FAILED, f"orch-tui: error: {message}\n")


def run_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="orch-tui",
        description="Turn a written spec into a working, tested project with Claude; "
        "review every hunk before it lands.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", type=Path, help="the spec (Markdown) to build")
    parser.add_argument("--version", action="version", version=f"orch-tui {_version()}")
    parser.add_argument("--auto", action="store_true", help="headless: accept every proposal")
    parser.add_argument("--json", action="store_true", help="with --auto: one JSON event per line")
    parser.add_argument(
        "--plan", action="store_true", help="plan tasks first, then build them one by one"
    )
    parser.add_argument("--max-retries", type=int, metavar="N", help="patch attempts (1..50)")
    parser.add_argument(
        "--max-cost-usd", type=_dollars, metavar="X", help="stop when the run costs X"
    )
    parser.add_argument("--model", metavar="M", help="model id sent to the provider")
    parser.add_argument(
        "--provider",
        choices=("anthropic", "openai", "claude-code", "scripted"),
        help="where turns come from",
    )
    parser.add_argument(
        "--script", type=Path, metavar="FILE", help="recorded turns or logs/<run_id>"
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


def _add_workspace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace",
        type=Path,
        metavar="PATH",
        help="work in this existing folder or git repository instead of workspace/",
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("orch-tui")
    except PackageNotFoundError:
        return "unknown (not installed)"


def sub_parser(command: str) -> argparse.ArgumentParser:
    parser = _Parser(prog=f"orch-tui {command}")
    parser.add_argument("--config", type=Path, metavar="FILE", help="orchestrator.toml to use")
    if command == "reset":
        parser.add_argument("--yes", action="store_true", help="do not ask before removing")
        _add_workspace_option(parser)
    if command == "restore":
        parser.add_argument("attempt", type=int, metavar="K", help="the attempt to go back to")
    if command == "status":
        parser.add_argument("--json", action="store_true", help="print state.json's fields as JSON")
    if command == "history":
        parser.add_argument("--export", metavar="RUN_ID", help="print the run as a Markdown report")
        parser.add_argument(
            "--costs", action="store_true", help="tokens and dollars per day and per model"
        )
    return parser


def _fail(message: str, code: int = EXIT_FAILED) -> int:
    print(f"orch-tui: {message}", file=sys.stderr)
    return code


def _sigterm_as_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


VALUE_OPTIONS = frozenset(
    ("--max-retries", "--max-cost-usd", "--model", "--provider", "--script", "--config", "--export")
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


def main(argv: Sequence[str] | None = None) -> int:
    """The ``orch-tui`` command; ``argv`` None means this process's own command line."""
    # Before any check runs: a check must not read the API key from /proc/<our pid>/environ.
    make_non_dumpable()
    command, args = split_command(sys.argv[1:] if argv is None else argv)
    if command is not None:
        return _flushed(lambda: run_subcommand(command, sub_parser(command).parse_args(args)))
    parsed = run_parser().parse_args(args)
    code = run_spec(parsed)
    if argv is None and parsed.auto:
        _exit_now(code)
    return code


def _flushed(command: Callable[[], int]) -> int:
    """Run a subcommand and flush what it printed; a reader that went away (``status | head``)
    ends it quietly, with no traceback: printing is the last thing every subcommand does."""
    from orch_tui.tui.cli.printer import silence

    try:
        code = command()
        if sys.stdout is not None:  # None: started with stdout closed, and print() was a no-op
            sys.stdout.flush()
    except OSError:  # a reader that went away, a terminal that hung up
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


def has_terminal() -> bool:
    """Both ends of a person's terminal: keys come in on stdin, the screen goes to stdout."""
    return sys.stdin.isatty() and sys.stdout.isatty()


NO_TERMINAL = "the review screen needs a terminal (stdin and stdout); use --auto to run without one"


def _load(config_path: Path | None, workspace: Path | None = None) -> tuple[ProjectPaths, Config]:
    """Paths and config; ``--workspace`` (relative to the current folder) beats ``paths.workspace``."""
    paths = ProjectPaths.locate(config_path)
    if config_path is not None and not config_path.is_file():
        raise ConfigError(f"{config_path}: no such file")
    config = load_config(paths.config)
    chosen = workspace.resolve() if workspace is not None else config.paths.workspace
    return paths.with_workspace(chosen), config


def run_spec(args: argparse.Namespace) -> int:
    if args.json and not args.auto:
        return _fail("--json only works with --auto (the review screen prints no events)")
    if not args.auto and not has_terminal():
        return _fail(NO_TERMINAL)
    try:
        paths, config = _load(args.config, args.workspace)
        spec = _read_spec(args.spec)
    except (ConfigError, SpecError) as exc:
        return _fail(str(exc))
    try:
        resolve_sandbox(config.checks.sandbox)  # "bwrap" without bubblewrap stops here
    except SandboxError as exc:
        return _fail(f"{exc} ({paths.config})")
    return _holding_lock(paths, lambda: _run_locked(args, paths, config, spec))


def _holding_lock(paths: ProjectPaths, work: Callable[[], int]) -> int:
    """Do ``work`` holding the project's lock: a run, ``reset`` and ``restore`` all write the
    workspace and the state, so only one of them at a time (``status``, ``history`` only read)."""
    lock = ProjectLock(paths.root, paths.workspace)
    try:
        lock.acquire()
    except ProjectLocked as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot lock {lock.path}: {exc.strerror or exc}")
    try:
        return work()
    finally:
        lock.release()


def _read_spec(path: Path) -> Spec:
    try:
        return read_spec(path)
    except OSError as exc:  # it exists but cannot be read: permissions, an I/O error
        raise SpecError(f"cannot read the spec {path}: {exc.strerror or exc}") from None


def _run_locked(args: argparse.Namespace, paths: ProjectPaths, config: Config, spec: Spec) -> int:
    # Under the lock, so no live run's checks: what a killed run left (checks, trial copies).
    leftovers.clear(paths.root, paths.workspace)
    if args.model:
        config.model.name = args.model
    if args.provider:
        config.model.provider = args.provider
    if args.script and not args.provider:
        config.model.provider = "scripted"
    if args.no_notify:
        config.notify = NotifyConfig(bell=False, desktop=False, command=[])
    retries, warning = clamp_retries(
        args.max_retries if args.max_retries is not None else config.loop.max_retries
    )
    budget = args.max_cost_usd if args.max_cost_usd is not None else config.loop.max_cost_usd
    not_ready = refusal(local_findings(paths, config))
    if not_ready:
        return _fail(not_ready)
    model = config.model.name
    if budget is not None and price_for(config.prices, model) is None:
        return _fail(
            f"no price known for model {model}, so a cost budget cannot be kept: add "
            f'[prices."{model}"] to orchestrator.toml, or run without a budget'
        )
    try:
        choice = choose_provider(
            config, spec, args.script, provider_env(paths.root), paths.workspace
        )
    except (ModelError, ScriptError, ConfigError) as exc:
        return _fail(str(exc))
    options = RunOptions(
        max_retries=retries,
        max_cost_usd=budget,
        fresh=args.fresh,
        max_retries_given=args.max_retries is not None,
        allow_dirty=args.allow_dirty,
        notices=tuple(message for message in (choice.notice, warning) if message),
        plan=args.plan or config.loop.plan,
        continue_run=args.continue_run or args.guidance is not None,
        guidance=args.guidance,
    )
    if not args.auto:
        from orch_tui.tui.app import run_app  # Textual is imported only here

        return run_app(paths, config, spec, choice.provider, options)
    code = _run_headless(paths, config, spec, choice.provider, options, as_json=args.json)
    if code == EXIT_NEEDS_HELP and not args.json:
        _print_question(paths, args.spec)
    return code


def _print_question(paths: ProjectPaths, spec: Path) -> None:
    """The question a NEEDS_HELP run waits on, and the command that answers it."""
    from orch_tui.tui.cli.printer import QuietOutput

    state = StateStore(paths.state).load()
    if state is not None and state.question:
        lines = "\n          ".join(_question_lines(state.question, str(spec)))
        QuietOutput(sys.stdout).write(f"\nquestion  {lines}\n")


def _question_lines(question: dict[str, Any], spec: str) -> list[str]:
    from orch_tui.core.domain.asking import Question

    return [
        *map(escape_controls, Question.from_json(question).lines()),
        f'answer with: orch-tui {spec} --auto --guidance "TEXT" (or an option\'s number)',
    ]


def _run_headless(
    paths: ProjectPaths,
    config: Config,
    spec: Spec,
    provider: Provider,
    options: RunOptions,
    *,
    as_json: bool,
) -> int:
    from orch_tui.core.loop.review import AcceptAllReviewer
    from orch_tui.tui.cli.printer import JsonPrinter, LinePrinter

    bus = EventBus()
    bus.subscribe(JsonPrinter(sys.stdout) if as_json else LinePrinter(sys.stdout))
    subscribe_notifier(bus, config.notify, interactive=False)
    engine = Engine(
        paths=paths,
        config=config,
        spec=spec,
        provider=provider,
        reviewer=AcceptAllReviewer(),
        bus=bus,
        options=options,
    )
    signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    signal.signal(signal.SIGHUP, _sigterm_as_interrupt)  # the terminal closed: stop the same way
    start_collecting()
    try:
        return engine.run()
    except StateError as exc:
        return _fail(str(exc), EXIT_STATE)
    except (WorkspaceError, ReopenRefused) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return _fail(
            f"interrupted{_where(engine)}: state saved; run the same command to resume",
            EXIT_INTERRUPTED,
        )
    except OSError as exc:  # a full disk, a read-only folder, a file where a folder should be
        return _fail(
            f"stopped{_where(engine)}: {_os_problem(exc)}. {_os_advice(exc)}; "
            f"{_what_resumes(engine)}"
        )
    except Exception as exc:  # noqa: BLE001 - a person gets a sentence; the traceback goes to the log
        details = _save_crash(engine)
        return _fail(
            f"stopped on an unexpected error{_where(engine)}: {type(exc).__name__}: {exc}. "
            f"{details}; {_what_resumes(engine)}"
        )


def _where(engine: Engine) -> str:
    state = getattr(engine, "state", None)
    return f" at {state.state} (attempt {state.attempt})" if state else ""


def _os_problem(exc: OSError) -> str:
    """``path: No space left on device``: the file and what the system said about it."""
    reason = exc.strerror or str(exc)
    path = exc.filename2 or exc.filename  # a rename names its target second
    return f"{path}: {reason}" if path else reason


def _os_advice(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "Free some space"
    return "Fix that path (a writable folder where a folder is expected)"


def _what_resumes(engine: Engine) -> str:
    """What running the same command again does, as far as state.json tells it."""
    if engine.store.path.is_file():
        return (
            f"{engine.store.path.name} holds the last step saved: the same command resumes there."
        )
    return f"nothing was saved ({engine.store.path.name} was not written): the same command starts again."


def _save_crash(engine: Engine) -> str:
    """Write the traceback to ``crash.txt``; says where it went, or why it could not be written."""
    import traceback

    folder = engine.log.dir if hasattr(engine, "log") else engine.paths.logs
    path = folder / "crash.txt"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(traceback.format_exc(), encoding="utf-8")
    except OSError as exc:
        return f"The details could not be written either ({_os_problem(exc)})"
    return f"Details in {path}"


def run_subcommand(command: str, args: argparse.Namespace) -> int:
    try:
        paths, config = _load(args.config, getattr(args, "workspace", None))
    except ConfigError as exc:
        return _fail(str(exc))
    if command == "init":
        from orch_tui.core.config.init_file import write_default_config

        try:
            write_default_config(paths.config)
        except ConfigError as exc:
            return _fail(str(exc))
        print(f"wrote {paths.config}")
        return EXIT_SUCCESS
    if command == "doctor":
        return _doctor(paths, config)
    if command == "status":
        return _status(paths, config, as_json=args.json)
    if command == "reset":
        here = ProjectPaths.here(args.config)  # never a parent folder's project
        chosen = args.workspace.resolve() if args.workspace is not None else config.paths.workspace
        target = here.with_workspace(chosen)
        return _holding_lock(target, lambda: _reset(target, yes=args.yes))
    if command == "restore":
        return _holding_lock(paths, lambda: _restore(paths, args.attempt))
    if command == "history" and args.costs:
        from orch_tui.core.history.costs import cost_rows, format_costs

        sys.stdout.write(format_costs(cost_rows(paths.logs)))
        return EXIT_SUCCESS
    return _history(paths, config, args.export)


def _doctor(paths: ProjectPaths, config: Config) -> int:
    from orch_tui.core.doctor import model_findings, sandbox_finding

    try:
        env = provider_env(paths.root)
    except ConfigError as exc:
        return _fail(str(exc))
    findings = [
        *local_findings(paths, config),
        sandbox_finding(config),
        *model_findings(config, env),
    ]
    for finding in findings:
        print(finding.line())
    return EXIT_SUCCESS if all(finding.ok for finding in findings) else EXIT_FAILED


def _status(paths: ProjectPaths, config: Config, *, as_json: bool) -> int:
    try:
        state = StateStore(paths.state).load()
    except StateError as exc:
        return _fail(str(exc), EXIT_STATE)
    if state is None:
        print(json.dumps(None) if as_json else "no run yet (state.json not found)")
        return EXIT_SUCCESS
    if as_json:
        print(json.dumps(state.to_json(), indent=2))
        return EXIT_SUCCESS
    last = state.last_test or {}
    _say(f"run       {state.run_id}")
    _say(f"spec      {state.spec_path}")
    _say(f"state     {state.state} (attempt {state.attempt}/{state.max_retries})")
    record = state.workspace or {}
    if not record.get("default", True):
        git = record.get("git") or {}
        _say(f"workspace {record['path']}" + (f" (branch {git['branch']})" if git else ""))
    if state.plan:
        from orch_tui.core.loop.plan_runner import status_lines

        _say("plan")
        for line in status_lines(state.plan):
            _say(f"  {line}")
    if last:
        _say(f"tests     {last.get('summary', '')}")
    if state.stop_reason:
        _say(f"stopped   {state.stop_reason}")
    if state.last_error:
        _say(f"error     {state.last_error}")
    if state.question:
        print("question  " + "\n          ".join(_question_lines(state.question, state.spec_path)))
    for role, decided in (state.roles or {}).items():
        _say(f"{role:<9} attempt {decided.get('attempt')}: {describe_role_decision(decided)}")
    _say(f"tokens    {state.usage.total:,}  cost ${state.cost_usd:.4f}")
    try:
        _say(f"sandbox   {resolve_sandbox(config.checks.sandbox).describe()}")
    except SandboxError as exc:
        _say(f"sandbox   none: {exc}")
    _say(f"updated   {state.updated_at}")
    return EXIT_SUCCESS


def _say(line: str) -> None:
    """Print one line of ``status``: its values can come from the model (a stop reason, an
    error's text, a test summary), so control characters are spelt out."""
    print(escape_controls(line))


def _reset(paths: ProjectPaths, *, yes: bool) -> int:
    """Clear state.json and undo the run in its workspace, in this folder only.

    Never deletes what the run did not create; asks first (or needs ``--yes``) wherever files
    would be removed or overwritten.
    """
    if not paths.state.is_file():
        print(f"no run to reset in {paths.root} (no state.json); nothing removed")
        return EXIT_SUCCESS
    store = StateStore(paths.state)
    try:
        state = store.load()
    except StateError:
        state = None  # a corrupt state.json is what reset is for
    record = state.workspace if state is not None else None
    if record is None and not paths.is_default_workspace:
        print(f"no run recorded for {paths.workspace}: left it as it is")
        return EXIT_SUCCESS
    listing = ""
    if record is None or record.get("default", True):
        entries = workspace_entries(paths.workspace)
        listing = "".join(f"\n  {paths.workspace.name}/{entry.name}" for entry in entries)
        plan: str | None = f"reset removes {paths.state}" + (
            f" and {plural(len(entries), 'entry', 'entries')} of {paths.workspace}:{listing}"
            if entries
            else ""
        )
    elif not record.get("git"):
        plan = (
            f"reset removes {paths.state}, restores the files the run changed in "
            f"{record['path']} and removes the ones it created"
        )
    else:
        plan = None  # git: back to the starting branch; the run's branch and every file stay
    if plan and not yes:
        if not sys.stdin.isatty():
            return _fail(f"{plan}\nnot a terminal: run `orch-tui reset --yes` to confirm")
        print(plan)
        print("remove them? [y/N] ", end="", flush=True)  # input() would prompt on stderr
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            print("nothing removed")
            return EXIT_SUCCESS
    log_dir = paths.logs / state.run_id if state is not None else None
    try:
        did = reset_workspace(paths, record, log_dir)
    except ResetError as exc:
        return _fail(str(exc))
    store.clear()
    print(f"removed {paths.state}; {did}{listing}\nlogs/ kept")
    return EXIT_SUCCESS


def _restore(paths: ProjectPaths, attempt: int) -> int:
    from orch_tui.core.loop.restore import RestoreError, restore_current_run

    try:
        said = restore_current_run(paths, attempt)
    except StateError as exc:
        return _fail(str(exc), EXIT_STATE)
    except RestoreError as exc:
        return _fail(str(exc))
    print(said)
    return EXIT_SUCCESS


def workspace_entries(workspace: Path) -> list[Path]:
    """What reset would remove from ``workspace`` (its ``.gitkeep`` stays)."""
    if not workspace.is_dir():
        return []
    return sorted(child for child in workspace.iterdir() if child.name != ".gitkeep")


def _history(paths: ProjectPaths, config: Config, export: str | None) -> int:
    if export:
        from orch_tui.core.history.runs import HistoryError, export_markdown

        try:
            sys.stdout.write(export_markdown(paths.logs, export))
        except HistoryError as exc:
            return _fail(str(exc))
        return EXIT_SUCCESS
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        return _print_runs(paths)
    from orch_tui.tui.app import run_history_app

    try:
        chosen = run_history_app(paths, config)
    except ConfigError as exc:
        return _fail(str(exc))
    if chosen is None:
        return EXIT_SUCCESS
    spec = Path(chosen.spec_path)
    argv = [str(spec if spec.is_absolute() else paths.root / spec)]
    if paths.config.is_file():
        argv += ["--config", str(paths.config)]
    return run_spec(run_parser().parse_args(argv))


def _print_runs(paths: ProjectPaths) -> int:
    """``orch-tui history`` without a terminal: the runs list as tab-separated lines."""
    from orch_tui.core.history.runs import list_runs, mark_resumable
    from orch_tui.tui.widgets.runs_table import RUN_COLUMNS, cell_texts

    print("\t".join(column.heading for column in RUN_COLUMNS))
    for run in mark_resumable(list_runs(paths.logs), paths.state):
        print("\t".join(escape_controls(text).replace("\t", " ") for text in cell_texts(run)))
    return EXIT_SUCCESS


if __name__ == "__main__":
    sys.exit(main())
