"""``verify --mutation``: mutmut on the lines the run changed, in the throwaway copy, sandboxed.

mutmut (3.8 and on) mutates whole files and runs the tests against each mutant itself: it
imports the project's code and pytest in its own process (its mutants are trampolines that
import mutmut), so it runs with the project's interpreter. :func:`run_mutation`:

1. puts orch-tui's own mutmut into the project's ``.venv`` as it does pytest and coverage
   (``core.checks.seeded_tools``; never into a person's own ``.venv``, where they install it);
2. prepares the copy (``verify_run.fresh_copy``, thrown away afterwards): ``# pragma: no
   mutate`` on the unchanged lines of each changed file (``core.checks.mutation_marks``), and
   a ``[tool.mutmut]`` in its ``pyproject.toml`` replacing any of the project's: the changed
   files as ``source_paths``, everything else copied beside them, and pytest's configuration
   pinned to the workspace's own as for every check (``pytest_config``);
3. runs ``mutmut run`` as one check: the same runner, sandbox (bubblewrap when present: no
   network, the copy its only writable place) and limits as the tests, its process group
   killed on Ctrl+C or after :data:`TIMEOUT_FACTOR` times ``checks.timeout_seconds``; each
   mutant has mutmut's own timeout besides. Its progress line (``3/8 🎉 2 …``) is read from
   its output as it comes;
4. reads the results from its ``mutants/`` folder (``core.checks.mutation_results``), also
   after a Ctrl+C: the mutants done by then.

mutmut mutates only code inside functions and methods: a changed module-level line has no
mutants. Its pytest runs with its own options, not ``checks.test_command``'s.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import tomli_w

from orch_tui.core.checks.mutation_marks import mark_unchanged
from orch_tui.core.checks.mutation_results import MutationReport, read_results
from orch_tui.core.checks.pytest_config import EMPTY_CONFIG, workspace_config
from orch_tui.core.checks.runner import CheckResult, CheckSpec, run_check
from orch_tui.core.checks.sandbox import Limits, resolve_sandbox
from orch_tui.core.checks.seeded_tools import ensure_tool
from orch_tui.core.checks.venv import check_python
from orch_tui.core.checks.venv_path import PROJECT_VENV
from orch_tui.core.config.models import Config

MUTMUT = "mutmut"
TIMEOUT_FACTOR = 12
"""The whole mutation run may take this many times ``checks.timeout_seconds``."""

# `python -m mutmut` would run mutmut's __main__ twice (mutmut warns about it); its console
# script is not in the .venv (seeding leaves scripts out), so it is called like this.
_RUN_MUTMUT = "import sys; from mutmut.__main__ import cli; sys.exit(cli())"
_PROGRESS = re.compile(r"(\d+)/(\d+)\s+\N{PARTY POPPER}")
_OUTPUT_LINES = 8
_STEPS = {
    "Generating mutants": "making the mutants of the changed lines",
    "Running stats": "running the tests once to see which tests run which function",
    "Running clean tests": "running those tests without mutants",
    "Running forced fail test": "checking that a failing test is noticed",
    "Running mutation testing": "running the tests against each mutant",
}
"""mutmut's own titles of its steps (what it prints), and what each does."""
CTRL_C = "Ctrl+C"


class MutationUnavailable(Exception):
    """mutmut cannot run here, or stopped with an error; the message says why."""


def run_mutation(
    config: Config,
    workspace: Path,
    copy: Path,
    reports: Path,
    lines: Mapping[str, Collection[int]],
    *,
    on_progress: Callable[[int, int], None] | None = None,
    on_step: Callable[[str], None] | None = None,
) -> MutationReport:
    """Mutation-test ``lines`` (path -> changed 1-based lines) in ``copy``, a fresh copy of
    ``workspace`` whose checks passed; ``on_step`` hears each of mutmut's steps before the
    mutants (:data:`_STEPS`) and ``on_progress(done, total)`` its progress through them, both
    from a reader thread. A Ctrl+C stops it: the report then holds what ran."""
    wanted = {
        path: set(found) for path, found in lines.items() if found and (copy / path).is_file()
    }
    if not wanted:
        return MutationReport()
    problem = ensure_tool(config, workspace, MUTMUT)
    if problem is not None:
        raise MutationUnavailable(f"cannot run mutmut: {problem}")
    prepare_copy(copy, wanted)
    command = [check_python(config, workspace), "-c", _RUN_MUTMUT, "run"]
    sandbox = resolve_sandbox(config.checks.sandbox).with_limits(Limits.from_config(config.checks))
    timeout_s = config.checks.timeout_seconds * TIMEOUT_FACTOR
    try:
        result: CheckResult | None = run_check(
            CheckSpec(MUTMUT, command),
            copy,
            reports,
            timeout_s=timeout_s,
            max_output_bytes=config.checks.max_output_bytes,
            extra_env_allow=config.checks.env_allow,
            on_output=_progress_reader(on_progress, on_step),
            sandbox=sandbox,
            read_only=[workspace / PROJECT_VENV],
        )
    except KeyboardInterrupt:  # the runner has killed mutmut's process group
        result = None
    report = MutationReport(read_results(copy, wanted))
    if result is None:
        report.stopped = CTRL_C
    elif result.timed_out:
        report.stopped = f"timed out after {timeout_s:.0f} s"
    elif result.exit_code != 0:
        ran = report.killed + len(report.survivors)
        if ran == 0 and not _made_no_mutants(copy, wanted):
            raise MutationUnavailable(f"mutmut stopped: {_last_lines(result)}")
        if ran:
            report.stopped = f"mutmut failed: {_last_lines(result)}"
    return report


def _made_no_mutants(copy: Path, lines: Collection[str]) -> bool:
    """Whether mutmut mutated every file and found nothing to mutate in any (it then stops
    with exit code 1: no test runs a mutant, there being none)."""
    for path in lines:
        try:
            meta = json.loads((copy / "mutants" / f"{path}.meta").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        if not isinstance(meta, dict) or meta.get("exit_code_by_key"):
            return False
    return True


def prepare_copy(copy: Path, lines: Mapping[str, Collection[int]]) -> None:
    """Mark the unchanged lines of each file of ``lines`` and write mutmut's configuration
    into ``copy`` (see the module's docstring)."""
    shutil.rmtree(copy / "mutants", ignore_errors=True)  # mutmut's own, left by an earlier run
    for path, wanted in lines.items():
        target = copy / path
        try:
            source = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # mutmut says what it makes of it; only changed lines are counted anyway
        target.write_text(mark_unchanged(source, wanted), encoding="utf-8")
    pyproject = copy / "pyproject.toml"
    try:
        data: dict[str, Any] = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise MutationUnavailable(f"cannot read the project's pyproject.toml: {exc}") from None
    pinned = workspace_config(copy)
    tool = data.setdefault("tool", {})
    if not isinstance(tool, dict):
        raise MutationUnavailable("the project's pyproject.toml has a [tool] that is not a table")
    tool[MUTMUT] = {
        "source_paths": sorted(lines),
        "also_copy": sorted(entry.name for entry in copy.iterdir() if entry.name != "mutants"),
        "pytest_add_cli_args": [
            *("-p", "no:cacheprovider", "--confcutdir=."),
            *("-c", pinned.name if pinned is not None else EMPTY_CONFIG),
        ],
        "use_git_change_detection": False,
        "use_setproctitle": False,
    }
    pyproject.write_text(tomli_w.dumps(data), encoding="utf-8")


def _progress_reader(
    on_progress: Callable[[int, int], None] | None,
    on_step: Callable[[str], None] | None,
) -> Callable[[str], None] | None:
    """An ``on_output`` that finds mutmut's steps (:data:`_STEPS`) and its ``done/total`` in
    its output as it arrives."""
    if on_progress is None and on_step is None:
        return None
    seen = {"tail": "", "last": ""}
    told: set[str] = set()

    def read(text: str) -> None:
        tail = seen["tail"] = (seen["tail"] + text)[-400:]
        for title, step in _STEPS.items():
            if title in tail and title not in told and on_step is not None:
                told.add(title)
                on_step(step)
        found = _PROGRESS.findall(tail)
        if found and "/".join(found[-1]) != seen["last"] and on_progress is not None:
            seen["last"] = "/".join(found[-1])
            on_progress(int(found[-1][0]), int(found[-1][1]))

    return read


def _last_lines(result: CheckResult) -> str:
    """What mutmut said last, without its spinner: the reason it stopped."""
    lines = [line.strip() for line in result.output.replace("\r", "\n").splitlines()]
    said = [line for line in lines if line and not line.startswith(tuple("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"))]
    return " ".join(said[-_OUTPUT_LINES:]) or result.error or f"exit code {result.exit_code}"
