"""``orch-tui verify [--mutation]``: the checks again on the finished workspace, in a fresh copy.

:func:`fresh_copy` copies the workspace without ``.git``, ``.venv`` and tool caches
(``copy_tree``) into a temporary folder named like a trial copy (``leftovers`` clears one a
killed process left). :func:`verify_checks` runs the configured checks there exactly as the
run did: sandboxed, with the project's interpreter.

The ``.venv`` is reused, read-only, not recreated: it lies outside the copy, the sandbox binds
everything outside the copy read-only, and it is the environment the run's own checks used
(``prepare_env`` first brings it up to date with what the project declares, as before every
check). Recreating it would need the network and minutes for the same packages; the price is
that a package installed into it by hand but never declared would go unnoticed.

With ``--mutation``, :func:`run_mutation` mutates only the Python lines the run changed (its
changes are :func:`run_changes`: each file the run's attempts applied, from the text before the
run to the text now) with ``core.checks.mutation``, and runs the test check on each mutant
with a per-mutant timeout: killed (a test failed, or the tests timed out or crashed) or
survived. ``on_progress`` hears each mutant done; ``cancel``, an Event checked between mutants,
stops it, and so does Ctrl+C (the running test's process group is killed by the runner).
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orch_tui.core.checks.coverage_map import changed_lines
from orch_tui.core.checks.leftovers import trial_prefix
from orch_tui.core.checks.mutation import Mutant, mutants
from orch_tui.core.checks.runner import CheckResult, TestReport, run_check
from orch_tui.core.checks.sandbox import resolve_sandbox
from orch_tui.core.checks.trial import configured_checks, run_configured
from orch_tui.core.checks.venv import PROJECT_VENV, check_python
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.domain.state import StateError, StateStore
from orch_tui.core.domain.state_records import WorkspaceRecord
from orch_tui.core.domain.test_files import is_test_file
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.workspace.apply import copy_tree
from orch_tui.core.workspace.run_workspace import original_text

KILLED, SURVIVED, TIMED_OUT = "killed", "survived", "timed out"


class NoRun(Exception):
    """There is no run to verify here; the message says so and what to do."""


@dataclass(frozen=True)
class RunChanges:
    run_id: str
    workspace: Path
    changes: tuple[FileChange, ...]
    """Every file the run applied, from its text before the run to its text now."""

    def mutable_lines(self) -> dict[str, list[int]]:
        """The changed lines of the Python files that are not tests, by path."""
        return {
            change.path: changed_lines(change)
            for change in self.changes
            if change.path.endswith(".py") and not is_test_file(change.path) and change.new_text
        }


def run_changes(paths: ProjectPaths) -> RunChanges:
    """What the project's last run changed; :class:`NoRun` when there is none to verify."""
    try:
        state = StateStore(paths.state).load()
    except StateError as exc:
        raise NoRun(str(exc)) from None
    if state is None:
        raise NoRun(
            f"no run in {paths.root} (no {paths.state.name}): nothing to verify; "
            "start one with `orch-tui SPEC`"
        )
    log_dir = paths.logs / state.run_id
    if not log_dir.is_dir():
        raise NoRun(f"the run {state.run_id} has no log folder {log_dir}: nothing to verify")
    record = state.workspace or WorkspaceRecord(path=str(paths.workspace))
    workspace = Path(record.path)
    if not workspace.is_dir():
        raise NoRun(f"the run's workspace {workspace} does not exist")
    touched: set[str] = set()
    for folder in sorted(log_dir.glob("attempt-*")):
        applied = folder / runlog.APPLIED
        if applied.is_file():
            touched.update(json.loads(applied.read_text(encoding="utf-8")).get("files") or {})
    changes = []
    for path in sorted(touched):
        before = original_text(record, log_dir, path)
        now = workspace / path
        after = now.read_text(encoding="utf-8", errors="replace") if now.is_file() else None
        if before != after and (before is not None or after is not None):
            changes.append(FileChange(path, before, after))
    return RunChanges(state.run_id, workspace, tuple(changes))


# -- the checks in a fresh copy ---------------------------------------------------------------


@contextmanager
def fresh_copy(workspace: Path) -> Iterator[tuple[Path, Path]]:
    """A copy of ``workspace`` (no .git, .venv or caches) and a reports folder beside it;
    both are removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=trial_prefix(workspace)) as tmp:
        copy = Path(tmp) / "workspace"
        copy_tree(workspace, copy)
        reports = Path(tmp) / "reports"
        reports.mkdir()
        yield copy, reports


def verify_checks(
    config: Config,
    workspace: Path,
    copy: Path,
    reports: Path,
    on_output: Callable[[str, str], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> TestReport:
    """The configured checks on ``copy`` with the workspace's environment (see the module)."""
    return run_configured(
        config, copy, reports, on_output=on_output, on_notice=on_notice, project=workspace
    )


# -- mutation ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    status: str
    """:data:`KILLED`, :data:`SURVIVED` or :data:`TIMED_OUT` (a kill too)."""
    duration_s: float

    @property
    def killed(self) -> bool:
        return self.status != SURVIVED


@dataclass
class MutationReport:
    total: int
    results: list[MutantResult] = field(default_factory=list)
    cancelled: bool = False

    @property
    def survivors(self) -> list[MutantResult]:
        return [result for result in self.results if not result.killed]

    def summary(self) -> str:
        """``8 mutants: 6 killed, 2 survived`` (and where it stopped, when cancelled)."""
        killed = sum(result.killed for result in self.results)
        line = f"{self.total} mutants: {killed} killed, {len(self.survivors)} survived"
        if self.cancelled:
            line += f"; stopped after {len(self.results)} of {self.total}"
        return line

    def survivor_lines(self) -> list[str]:
        """``calc.py:7: a < b → a <= b``, one per surviving mutant."""
        return [f"{r.mutant.where}: {r.mutant.description}" for r in self.survivors]

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "killed": len(self.results) - len(self.survivors),
            "survived": len(self.survivors),
            "cancelled": self.cancelled,
            "survivors": [
                {"path": r.mutant.path, "line": r.mutant.line, "mutation": r.mutant.description}
                for r in self.survivors
            ],
        }


def mutant_timeout(config: Config, baseline: TestReport) -> float:
    """Per mutant: three times the tests' own time plus 5 s, at least 10 s, at most the
    checks' timeout (a mutant that loops forever is killed by it)."""
    tests = next((check for check in baseline.checks if check.name == "tests"), None)
    own = tests.duration_s if tests is not None else config.checks.timeout_seconds
    return min(config.checks.timeout_seconds, max(10.0, 3 * own + 5))


def run_mutation(
    config: Config,
    workspace: Path,
    copy: Path,
    reports: Path,
    lines: Mapping[str, list[int]],
    *,
    timeout_s: float,
    on_progress: Callable[[int, int, Mutant | None], None] | None = None,
    cancel: threading.Event | None = None,
) -> MutationReport:
    """Each mutant of ``lines`` (path -> 1-based lines) in ``copy``, its tests run; the file is
    put back after each. ``on_progress(done, total, next_mutant)``."""
    found = [
        mutant
        for path, wanted in sorted(lines.items())
        if (copy / path).is_file()
        for mutant in mutants(path, (copy / path).read_text(encoding="utf-8"), wanted)
    ]
    report = MutationReport(len(found))
    tests = configured_checks(config, check_python(config, workspace))[0]
    progress = on_progress or (lambda _done, _total, _next: None)
    for index, mutant in enumerate(found):
        if cancel is not None and cancel.is_set():
            report.cancelled = True
            break
        progress(index, len(found), mutant)
        target = copy / mutant.path
        original = target.read_text(encoding="utf-8")
        started = time.monotonic()
        try:
            target.write_text(mutant.text, encoding="utf-8")
            result = run_check(
                tests,
                copy,
                reports / "mutants",
                timeout_s=timeout_s,
                max_output_bytes=config.checks.max_output_bytes,
                extra_env_allow=config.checks.env_allow,
                sandbox=resolve_sandbox(config.checks.sandbox),
                read_only=[workspace / PROJECT_VENV],
            )
        except KeyboardInterrupt:  # the runner killed the test's process group already
            report.cancelled = True
            break
        finally:
            target.write_text(original, encoding="utf-8")
        report.results.append(MutantResult(mutant, _status(result), time.monotonic() - started))
    progress(len(report.results), len(found), None)
    return report


def _status(result: CheckResult) -> str:
    if result.timed_out:
        return TIMED_OUT
    return SURVIVED if result.passed else KILLED
