"""``orch-tui``: the command line (DESIGN section 6).

Imports stay light at module level: ``--help`` and ``--auto`` never load
Textual, and the Anthropic SDK is imported only when a request is made.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from core.config import Config, ConfigError, clamp_retries, load_config
from core.engine import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_STATE, EXIT_SUCCESS, Engine, RunOptions
from core.events import EventBus
from core.paths import ProjectPaths
from core.providers.base import ModelError, Provider
from core.providers.factory import choose_provider
from core.providers.scripted import ScriptError
from core.spec import Spec, SpecError, read_spec
from core.state import StateError, StateStore

SUBCOMMANDS = ("status", "reset", "history", "init")

EPILOG = """\
other commands:
  orch-tui status [--json]          where the current run stands
  orch-tui reset                    clear state.json and workspace/ (logs/ is kept)
  orch-tui history [--export ID]    browse past runs, or print one as Markdown
  orch-tui init                     write a commented default orchestrator.toml

exit codes: 0 success · 1 failed (retries or budget spent, model error, no progress,
bad input) · 2 safety violation · 3 corrupt or unreadable state · 130 interrupted
(state kept: the same command resumes)
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
    parser.add_argument("--auto", action="store_true", help="headless: accept every proposal")
    parser.add_argument("--json", action="store_true", help="with --auto: one JSON event per line")
    parser.add_argument("--max-retries", type=int, metavar="N", help="patch attempts (1..50)")
    parser.add_argument("--max-cost-usd", type=float, metavar="X", help="stop when the run costs X")
    parser.add_argument("--model", metavar="M", help="Claude model id")
    parser.add_argument(
        "--provider", choices=("anthropic", "scripted"), help="where turns come from"
    )
    parser.add_argument(
        "--script", type=Path, metavar="FILE", help="recorded turns or logs/<run_id>"
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help="orchestrator.toml to use")
    parser.add_argument(
        "--fresh", action="store_true", help="start a new run even if one can resume"
    )
    return parser


def sub_parser(command: str) -> argparse.ArgumentParser:
    parser = _Parser(prog=f"orch-tui {command}")
    parser.add_argument("--config", type=Path, metavar="FILE", help="orchestrator.toml to use")
    if command == "status":
        parser.add_argument("--json", action="store_true", help="print state.json's fields as JSON")
    if command == "history":
        parser.add_argument("--export", metavar="RUN_ID", help="print the run as a Markdown report")
    return parser


def _fail(message: str, code: int = EXIT_FAILED) -> int:
    print(f"orch-tui: {message}", file=sys.stderr)
    return code


def _sigterm_as_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        command = args.pop(0)
        return run_subcommand(command, sub_parser(command).parse_args(args))
    return run_spec(run_parser().parse_args(args))


def _load(config_path: Path | None) -> tuple[ProjectPaths, Config]:
    paths = ProjectPaths.locate(config_path)
    if config_path is not None and not config_path.is_file():
        raise ConfigError(f"{config_path}: no such file")
    return paths, load_config(paths.config)


def run_spec(args: argparse.Namespace) -> int:
    try:
        paths, config = _load(args.config)
        spec = read_spec(args.spec)
    except (ConfigError, SpecError) as exc:
        return _fail(str(exc))
    if args.model:
        config.model.name = args.model
    if args.provider:
        config.model.provider = args.provider
    if args.script and not args.provider:
        config.model.provider = "scripted"
    retries, warning = clamp_retries(
        args.max_retries if args.max_retries is not None else config.loop.max_retries
    )
    budget = args.max_cost_usd if args.max_cost_usd is not None else config.loop.max_cost_usd
    try:
        choice = choose_provider(config, spec, args.script)
    except (ModelError, ScriptError) as exc:
        return _fail(str(exc))
    options = RunOptions(
        max_retries=retries,
        max_cost_usd=budget,
        fresh=args.fresh,
        max_retries_given=args.max_retries is not None,
        notices=tuple(message for message in (choice.notice, warning) if message),
    )
    if not args.auto:
        from tui.app import run_app  # Textual is imported only here

        return run_app(paths, config, spec, choice.provider, options)
    return _run_headless(paths, config, spec, choice.provider, options, as_json=args.json)


def _run_headless(
    paths: ProjectPaths,
    config: Config,
    spec: Spec,
    provider: Provider,
    options: RunOptions,
    *,
    as_json: bool,
) -> int:
    from core.review import AcceptAllReviewer
    from tui.headless import JsonPrinter, LinePrinter

    bus = EventBus()
    bus.subscribe(JsonPrinter(sys.stdout) if as_json else LinePrinter(sys.stdout))
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
    try:
        engine.open_run()
        return engine.run()
    except StateError as exc:
        return _fail(str(exc), EXIT_STATE)
    except KeyboardInterrupt:
        return _fail(
            f"interrupted{_where(engine)}: state saved; run the same command to resume",
            EXIT_INTERRUPTED,
        )
    except Exception as exc:  # noqa: BLE001 - a person gets a sentence; the traceback goes to the log
        crash = _save_crash(engine)
        return _fail(
            f"stopped on an unexpected error{_where(engine)}: {type(exc).__name__}: {exc}. "
            f"State saved; details in {crash}; the same command resumes."
        )


def _where(engine: Engine) -> str:
    state = getattr(engine, "state", None)
    return f" at {state.state} (attempt {state.attempt})" if state else ""


def _save_crash(engine: Engine) -> Path:
    import traceback

    folder = engine.log.dir if hasattr(engine, "log") else engine.paths.logs
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "crash.txt"
    path.write_text(traceback.format_exc(), encoding="utf-8")
    return path


def run_subcommand(command: str, args: argparse.Namespace) -> int:
    try:
        paths, config = _load(args.config)
    except ConfigError as exc:
        return _fail(str(exc))
    if command == "init":
        from core.config_file import write_default_config

        try:
            write_default_config(paths.config)
        except ConfigError as exc:
            return _fail(str(exc))
        print(f"wrote {paths.config}")
        return EXIT_SUCCESS
    if command == "status":
        return _status(paths, as_json=args.json)
    if command == "reset":
        return _reset(paths)
    return _history(paths, config, args.export)


def _status(paths: ProjectPaths, *, as_json: bool) -> int:
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
    print(f"run       {state.run_id}")
    print(f"spec      {state.spec_path}")
    print(f"state     {state.state} (attempt {state.attempt}/{state.max_retries})")
    if last:
        print(f"tests     {last.get('summary', '')}")
    if state.stop_reason:
        print(f"stopped   {state.stop_reason}")
    if state.last_error:
        print(f"error     {state.last_error}")
    print(f"tokens    {state.usage.total:,}  cost ${state.cost_usd:.4f}")
    print(f"updated   {state.updated_at}")
    return EXIT_SUCCESS


def _reset(paths: ProjectPaths) -> int:
    removed = StateStore(paths.state).clear()
    cleared = 0
    if paths.workspace.is_dir():
        for child in paths.workspace.iterdir():
            if child.name == ".gitkeep":
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
            cleared += 1
    print(
        f"{'removed state.json' if removed else 'no state.json'}; cleared {cleared} entries "
        f"from workspace/; logs/ kept"
    )
    return EXIT_SUCCESS


def _history(paths: ProjectPaths, config: Config, export: str | None) -> int:
    if export:
        from core.history import HistoryError, export_markdown

        try:
            sys.stdout.write(export_markdown(paths.logs, export))
        except HistoryError as exc:
            return _fail(str(exc))
        return EXIT_SUCCESS
    from tui.app import run_history_app

    chosen = run_history_app(paths, config)
    if chosen is None:
        return EXIT_SUCCESS
    spec = Path(chosen.spec_path)
    argv = [str(spec if spec.is_absolute() else paths.root / spec)]
    if paths.config.is_file():
        argv += ["--config", str(paths.config)]
    return run_spec(run_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
