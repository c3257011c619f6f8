"""Running a spec: ``--auto`` headless with the printer, and opening a run for the review screen.

``--auto`` never loads Textual, and the Anthropic SDK is imported only when a request is made.
The review screen's launch imports this module only once its frame is on screen (tui/launch.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from orch_tui.core.checks import leftovers
from orch_tui.core.checks.sandbox import SandboxError, resolve_sandbox
from orch_tui.core.config.dotenv import provider_env
from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.models import (
    Config,
    NotifyConfig,
    clamp_check_timeout,
    clamp_retries,
)
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.datafiles.head import DataError
from orch_tui.core.datafiles.inputs import read_data_files
from orch_tui.core.doctor import local_findings, refusal
from orch_tui.core.domain.cost import price_for
from orch_tui.core.domain.events import EventBus
from orch_tui.core.domain.spec import Spec, SpecError, read_spec
from orch_tui.core.domain.state import StateError, StateStore
from orch_tui.core.loop.engine import (
    EXIT_INTERRUPTED,
    EXIT_NEEDS_HELP,
    EXIT_STATE,
    Engine,
    NothingToGiveUp,
    ReopenRefused,
    RunOptions,
)
from orch_tui.core.loop.notify import subscribe_notifier
from orch_tui.core.loop.opening import views_a_finished_run
from orch_tui.core.providers.base import ModelError, Provider
from orch_tui.core.providers.factory import KeyLater, KeyMissing, ProviderChoice, choose_provider
from orch_tui.core.providers.scripted import ScriptError
from orch_tui.core.util.records import record
from orch_tui.core.workspace.run_workspace import WorkspaceError
from orch_tui.tui.cli.executable import start_collecting
from orch_tui.tui.cli.failing import Refused, fail
from orch_tui.tui.cli.resume_hint import resume_hint, resuming_command
from orch_tui.tui.cli.shared import acquire_lock, holding_lock, load_project, question_lines


def _sigterm_as_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run_headless_spec(args: argparse.Namespace) -> int:
    """``orch-tui SPEC --auto``: the run to its end with the printer, holding the lock."""
    try:
        paths, config, spec = _open_project(args)
    except Refused as exc:
        return fail(exc.message, exc.code)
    return holding_lock(paths, lambda: _run_locked(args, paths, config, spec))


@record(frozen=True)
class OpenedRun:
    """A run ready for its review screen, the project's lock held until :attr:`release`."""

    paths: ProjectPaths
    config: Config
    spec: Spec
    provider: Provider
    options: RunOptions
    release: Callable[[], None]


def open_for_review(args: argparse.Namespace) -> OpenedRun:
    """What ``orch-tui SPEC`` loads behind the review screen's frame (tui/launch.py), with the
    checks ``--auto`` makes and the review screen's own (state.json readable, ``[ui] keymap``).

    Refused: the run cannot start; the message and exit code are those it always had.
    """
    from orch_tui.tui.keymap import keymap_problem

    paths, config, spec = _open_project(args)
    lock = acquire_lock(paths)
    try:
        provider, options = _prepare(args, paths, config, spec)
        try:
            StateStore(paths.state).load()
        except StateError as exc:
            raise Refused(str(exc), EXIT_STATE) from None
        problem = keymap_problem(config.ui.keymap)
        if problem:
            raise Refused(f"{paths.config}: {problem}")
    except BaseException:
        lock.release()
        raise
    return OpenedRun(paths, config, spec, provider, options, lock.release)


def _open_project(args: argparse.Namespace) -> tuple[ProjectPaths, Config, Spec]:
    try:
        paths, config = load_project(args.config, args.workspace)
        spec = _read_spec(args.spec)
        given = [paths.root / name for name in config.spec.data] + list(args.data)
        spec = dataclasses.replace(spec, data=read_data_files(given))
    except (ConfigError, SpecError, DataError) as exc:
        raise Refused(str(exc)) from None
    try:
        resolve_sandbox(config.checks.sandbox)  # "bwrap" without bubblewrap stops here
    except SandboxError as exc:
        raise Refused(f"{exc} ({paths.config})") from None
    return paths, config, spec


def _read_spec(path: Path) -> Spec:
    try:
        return read_spec(path)
    except OSError as exc:  # it exists but cannot be read: permissions, an I/O error
        raise SpecError(f"cannot read the spec {path}: {exc.strerror or exc}") from None


def _run_locked(args: argparse.Namespace, paths: ProjectPaths, config: Config, spec: Spec) -> int:
    try:
        provider, options = _prepare(args, paths, config, spec)
    except Refused as exc:
        return fail(exc.message, exc.code)
    code = _run_headless(paths, config, spec, provider, options, as_json=args.json)
    if code == EXIT_NEEDS_HELP and not args.json:
        _print_question(paths, args.spec)
    return code


def _prepare(
    args: argparse.Namespace, paths: ProjectPaths, config: Config, spec: Spec
) -> tuple[Provider, RunOptions]:
    """The command line's settings over the config's, the local checks and the provider; under
    the lock. Refused: a check failed, a budget without a price, no provider to be had."""
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
        raise Refused(not_ready)
    model = config.model.name
    if budget is not None and price_for(config.prices, model) is None:
        raise Refused(
            f"no price known for model {model}, so a cost budget cannot be kept: add "
            f'[prices."{model}"] to orchestrator.toml, or run without a budget'
        )
    options = RunOptions(
        max_retries=retries,
        max_cost_usd=budget,
        fresh=args.fresh,
        max_retries_given=args.max_retries is not None,
        allow_dirty=args.allow_dirty,
        plan=args.plan or config.loop.plan,
        continue_run=args.continue_run or args.guidance is not None,
        guidance=args.guidance,
        rework=args.rework,
        task=args.task,
        give_up=args.give_up,
    )
    try:
        choice = choose_provider(
            config, spec, args.script, provider_env(paths.root), paths.workspace
        )
    except KeyMissing as exc:
        if not views_a_finished_run(paths, spec, options):
            raise Refused(str(exc)) from None
        choice = ProviderChoice(KeyLater(config.model.provider, exc))  # asked for if it continues
    except (ModelError, ScriptError, ConfigError) as exc:
        raise Refused(str(exc)) from None
    options.notices = tuple(
        message for message in (choice.notice, warning, clamp_check_timeout(config)) if message
    )
    return choice.provider, options


def _print_question(paths: ProjectPaths, spec: Path) -> None:
    """The question a NEEDS_HELP run waits on, and the command that answers it."""
    from orch_tui.tui.cli.printer import QuietOutput

    state = StateStore(paths.state).load()
    if state is not None and state.question:
        lines = "\n          ".join(question_lines(state.question, str(spec)))
        QuietOutput(sys.stdout).write(f"\nquestion  {lines}\n")


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
        code = engine.run()
    except StateError as exc:
        return fail(str(exc), EXIT_STATE)
    except (WorkspaceError, ReopenRefused, NothingToGiveUp) as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return fail(
            f"interrupted{_where(engine)}: state saved; {resume_hint()}",
            EXIT_INTERRUPTED,
        )
    except OSError as exc:  # a full disk, a read-only folder, a file where a folder should be
        return fail(
            f"stopped{_where(engine)}: {_os_problem(exc)}. {_os_advice(exc)}; "
            f"{_what_resumes(engine)}"
        )
    except Exception as exc:  # noqa: BLE001 - a person gets a sentence; the traceback goes to the log
        details = _save_crash(engine)
        return fail(
            f"stopped on an unexpected error{_where(engine)}: {type(exc).__name__}: {exc}. "
            f"{details}; {_what_resumes(engine)}"
        )
    # A model error's hint; worked out only then (shlex), not after every run.
    if engine.state.retryable and (command := resuming_command()) != "the same command":
        print(f"to resume: run {command}", file=sys.stderr)
    return code


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
            f"{engine.store.path.name} holds the last step saved: "
            f"{resuming_command()} resumes there."
        )
    return (
        f"nothing was saved ({engine.store.path.name} was not written): "
        f"{resuming_command()} starts again."
    )


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
