"""Running the configured checks: for real in the workspace, or on trial in a scratch copy.

The trial run gives the review screen its test evidence ("3 failing → 0;
fixes test_a; breaks none") while the person is still deciding; the real run
after they apply still decides.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import field
from functools import partial
from pathlib import Path

from orch_tui.core.checks.coverage_env import with_coverage
from orch_tui.core.checks.coverage_map import CoverageMap, CoverageUnavailable, read_coverage
from orch_tui.core.checks.declarations import put_back, snapshot
from orch_tui.core.checks.installer import INSTALL_CHECK
from orch_tui.core.checks.leftovers import remove_trial_copies, trial_prefix
from orch_tui.core.checks.processes import kill_running_checks
from orch_tui.core.checks.report import CheckSpec, configured_checks
from orch_tui.core.checks.runner import TestReport, run_checks
from orch_tui.core.checks.sandbox import Limits, resolve_sandbox
from orch_tui.core.checks.venv import prepare_env
from orch_tui.core.checks.venv_path import PROJECT_VENV
from orch_tui.core.config.models import Config
from orch_tui.core.domain.proposal import Decisions, FileChange, Proposal, resolve
from orch_tui.core.util.records import record
from orch_tui.core.workspace.apply import apply_change, copy_tree


def kept_read_only(workspace: Path) -> list[Path]:
    """What of the workspace a sandboxed check may read but not write: the project's ``.venv``
    (its interpreter runs the installer outside the sandbox) and ``.git`` (orch-tui's own git
    commands read it outside the sandbox)."""
    return [workspace / PROJECT_VENV, workspace / ".git"]


def run_configured(
    config: Config,
    workspace: Path,
    report_dir: Path,
    on_output: Callable[[str, str], None] | None = None,
    running: Path | None = None,
    on_notice: Callable[[str], None] | None = None,
    project: Path | None = None,
    final: bool = False,
) -> TestReport:
    """The checks, not measured: :func:`run_measured`'s report."""
    return run_measured(
        config,
        workspace,
        report_dir,
        on_output,
        running,
        on_notice,
        project,
        measure=False,
        final=final,
    ).report


@record(frozen=True)
class Measured:
    report: TestReport
    coverage: CoverageMap | CoverageUnavailable
    """Which tests ran each line, or why that is not known (the run goes on without it)."""


def run_measured(
    config: Config,
    workspace: Path,
    report_dir: Path,
    on_output: Callable[[str, str], None] | None = None,
    running: Path | None = None,
    on_notice: Callable[[str], None] | None = None,
    project: Path | None = None,
    *,
    measure: bool = True,
    final: bool = False,
) -> Measured:
    """Prepare the project's environment (:mod:`core.project_env`), then run the checks, the
    test check under coverage with a context per test (``measure``; ``core.checks.coverage_env``).

    ``report_dir``: where the installer's output is kept (the checks' own reports go to a
    private folder); ``project``: the folder whose environment runs them, when not
    ``workspace`` (a trial runs in a copy); ``running``: where the running check's process
    group is recorded (``leftovers``); ``on_notice`` hears what the preparation does, and
    which declaration files a check wrote and were put back. A failed preparation is the
    report's only check: the tests do not run without the project's dependencies.
    """
    env = prepare_env(
        config,
        project or workspace,
        report_dir,
        on_output=partial(on_output, INSTALL_CHECK) if on_output else None,
        on_notice=on_notice,
        running=running,
    )
    if env.failure is not None:
        return Measured(
            TestReport(checks=[env.failure]), CoverageUnavailable("the tests did not run")
        )
    sandbox = resolve_sandbox(config.checks.sandbox).with_limits(Limits.from_config(config.checks))
    # The checks write their reports into a folder of their own, never into report_dir (the
    # run's log folder, where a check could forge or break what orch-tui reads back later).
    declared = snapshot(workspace)
    # Named like a trial copy of the project's workspace, so that a killed run's is swept too.
    with tempfile.TemporaryDirectory(prefix=trial_prefix(project or workspace)) as own_reports:
        specs = configured_checks(config, env.python, final)
        measured: CoverageMap | CoverageUnavailable = CoverageUnavailable("not measured")
        problem: CoverageUnavailable | None = None
        if measure and not final:
            command, problem = with_coverage(
                config, workspace, Path(own_reports), specs[0].command, venv_of=project
            )
            specs[0] = CheckSpec(specs[0].name, command)
            measured = problem or measured
        report = run_checks(
            specs,
            workspace,
            Path(own_reports),
            timeout_s=config.checks.timeout_seconds,
            max_output_bytes=config.checks.max_output_bytes,
            extra_env_allow=config.checks.env_allow,
            on_output=on_output,
            sandbox=sandbox,
            running=running,
            read_only=kept_read_only(workspace),
            allow_all_skipped=config.checks.allow_all_skipped,
        )
        if measure and not final and problem is None:
            measured = read_coverage(Path(own_reports), workspace)
    undone = put_back(workspace, declared)
    if undone and on_notice is not None:
        on_notice(
            f"a check wrote {', '.join(undone)}; put back as reviewed: the installer installs "
            "only what the person accepted"
        )
    return Measured(report, measured)


@record(frozen=True)
class TrialOutcome:
    report: TestReport
    before: list[str] | None
    """Tests failing in the last real run, or None when the checks have not run yet."""
    coverage: CoverageMap | CoverageUnavailable | None = None
    """Which tests run each line with the proposal applied (the diff's coverage marks)."""
    landed: Mapping[str, str | None] = field(default_factory=dict)
    """The files the trial changed, as it measured them: the proposal as decided when it
    started (None: deleted). Any other file it measured as it stands in the workspace."""

    def measured_text(self, change: FileChange) -> str | None:
        """The text of ``change``'s file that :attr:`coverage` measured."""
        return self.landed[change.path] if change.path in self.landed else change.old_text

    @property
    def fixes(self) -> list[str]:
        return sorted(set(self.before or ()) - set(self.report.failing))

    @property
    def breaks(self) -> list[str]:
        return sorted(set(self.report.failing) - set(self.before or ()))

    def summary(self) -> str:
        after = len(self.report.failing)
        if self.before is None:
            head = f"with this proposal: {self.report.summary()}"
        else:
            head = f"{len(self.before)} failing → {after}"
        fixes = ", ".join(_short(t) for t in self.fixes) or "none"
        breaks = ", ".join(_short(t) for t in self.breaks) or "none"
        return f"{head}; fixes {fixes}; breaks {breaks}"


def _short(test_id: str) -> str:
    return test_id.rsplit("::", 1)[-1]


def run_trial(
    config: Config,
    workspace: Path,
    proposal: Proposal,
    before: list[str] | None,
    decisions: Decisions | None = None,
    running: Path | None = None,
) -> TrialOutcome:
    """The checks on a scratch copy of the workspace with the proposal applied as decided so
    far (undecided hunks count as accepted, as on apply)."""
    global _trials_running
    with _trials_idle:
        _trials_running += 1
    try:
        with tempfile.TemporaryDirectory(prefix=trial_prefix(workspace)) as tmp:
            scratch = Path(tmp) / "workspace"
            copy_tree(workspace, scratch)
            landed = resolve(proposal, decisions or Decisions())
            apply_change(scratch, landed, durable=False)
            reports = Path(tmp) / "reports"
            reports.mkdir()
            measured = run_measured(config, scratch, reports, running=running, project=workspace)
            return TrialOutcome(measured.report, before, measured.coverage, landed)
    finally:
        with _trials_idle:
            _trials_running -= 1
            _trials_idle.notify_all()


_trials_running = 0
"""Trial runs under way in this process (each in a worker thread of the review screen)."""
_trials_idle = threading.Condition()


def end_trials(workspace: Path, grace_s: float) -> None:
    """Stop every trial run and remove its scratch copy: the person is leaving.

    Their checks are killed, so each trial ends and removes its copy; one still copying the
    workspace after ``grace_s`` has its copy removed here, since a leaving process may be ended
    before the trial's own clean-up runs (a copy left behind holds the model's code and the
    person's files in the temporary folder until the next start)."""
    ends = time.monotonic() + grace_s
    with _trials_idle:
        while _trials_running and time.monotonic() < ends:
            kill_running_checks()  # again each time: a trial may go on to its next check
            _trials_idle.wait(0.1)
    remove_trial_copies(workspace)
