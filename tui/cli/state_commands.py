"""The subcommands about the project and its run: ``status``, ``reset``, ``restore``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orch_tui.core.checks.sandbox import SandboxError, resolve_sandbox
from orch_tui.core.config.files import SandboxMode
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.state import RunState, State, StateError, StateStore
from orch_tui.core.loop.exit_codes import EXIT_FAILED, EXIT_STATE, EXIT_SUCCESS
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import planning_cost, plural
from orch_tui.tui.cli.failing import fail
from orch_tui.tui.cli.shared import question_lines

if TYPE_CHECKING:
    from orch_tui.core.domain.evidence import EvidenceFound


def status(paths: ProjectPaths, sandbox: SandboxMode, *, as_json: bool) -> int:
    try:
        state = StateStore(paths.state).load()
    except StateError as exc:
        return fail(str(exc), EXIT_STATE)
    if state is None:
        print(json.dumps(None) if as_json else "no run yet (state.json not found)")
        return EXIT_SUCCESS
    if as_json:
        print(json.dumps(_json_status(paths, state), indent=2))
        return EXIT_SUCCESS
    last = state.last_test
    _say(f"run       {state.run_id}")
    _say(f"spec      {state.spec_path}")
    if state.follows:
        _say(f"follows   {state.follows} (this run changes its project)")
    if state.plan:
        _say(f"state     {state.state} ({plural(state.attempts_made, 'attempt')} after planning)")
    else:
        _say(f"state     {state.state} (attempt {state.attempt}/{state.max_retries})")
    record = state.workspace
    if record is not None and not record.default:
        branch = f" (branch {record.git.branch})" if record.git else ""
        _say(f"workspace {record.path}{branch}")
    if state.plan:
        _say("plan")
        for line in state.plan.status_lines():
            _say(f"  {line}")
        if state.plan.planning_tokens:
            plan = state.plan
            _say(f"planning  {planning_cost(plan.planning_tokens, plan.planning_cost_usd)}")
    if last:
        _say(f"tests     {last.summary}")
    if state.final_checks:
        verdict = "passed" if state.final_checks.passed else "failed"
        _say(f"final     {verdict}: {state.final_checks.summary}")
    if state.stop_reason:
        _say(f"stopped   {state.stop_reason}")
    evidence = _last_evidence(paths, state.run_id, state.attempt)
    if evidence is not None:
        found = evidence.describe().removeprefix("evidence: ")
        _say(f"evidence  attempt {evidence.attempt}: {found}")
    if state.state is RunState.SUCCESS:
        from orch_tui.core.runlog.verdict import verdict_line

        if line := verdict_line(paths.logs / state.run_id):
            _say(f"verdict   {line}")
    if state.last_error:
        _say(f"error     {state.last_error}")
    if state.question:
        print("question  " + "\n          ".join(question_lines(state.question, state.spec_path)))
    if state.roles:
        from orch_tui.core.domain.describe import describe_decision
    for role, decided in state.roles.items():
        _say(f"{role:<9} attempt {decided.attempt}: {describe_decision(decided.decision)}")
    _say(f"tokens    {state.usage.total:,}  cost ${state.cost_usd:.4f}")
    try:
        _say(f"sandbox   {resolve_sandbox(sandbox).describe()}")
    except SandboxError as exc:
        _say(f"sandbox   none: {exc}")
    _say(f"updated   {state.updated_at}")
    return EXIT_SUCCESS


def _json_status(paths: ProjectPaths, state: State) -> dict[str, Any]:
    """``state.json`` with the run's evidence: ``evidence`` holds the fields ``--auto --json``'s
    last record has (at SUCCESS, else null), ``attempt_evidence`` the last attempt's
    ``evidence.json`` (the tests it added, rewrote or weakened, its uncovered lines). Plain
    JSON read back: no event set, no models."""
    from orch_tui.core.runlog.verdict import run_evidence

    finished = state.state is RunState.SUCCESS
    return {
        **state.to_json(),
        "evidence": run_evidence(paths.logs / state.run_id) if finished else None,
        "attempt_evidence": _last_evidence_record(paths, state.run_id, state.attempt),
    }


def _last_evidence_record(paths: ProjectPaths, run_id: str, attempt: int) -> Any:
    """The ``evidence.json`` of the run's last attempt that has one, as read; None without."""
    from orch_tui.core.runlog import layout as runlog

    for number in range(attempt, -1, -1):
        path = paths.logs / run_id / runlog.attempt_dir_name(number) / runlog.EVIDENCE
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    return None


def _last_evidence(paths: ProjectPaths, run_id: str, attempt: int) -> EvidenceFound | None:
    """The evidence of the run's last attempt that has some: that attempt's own changes, which
    the verdict line (the whole run's) does not repeat, so its line names the attempt. The
    event set is imported only when there is one to read: ``status`` stays quick without."""
    data = _last_evidence_record(paths, run_id, attempt)
    if data is None:
        return None
    from orch_tui.core.domain.evidence import EvidenceFound

    return EvidenceFound.from_record(data)


def _say(line: str) -> None:
    """Print one line of ``status``: its values can come from the model (a stop reason, an
    error's text, a test summary), so control characters are spelt out."""
    print(escape_controls(line))


def reset(paths: ProjectPaths, *, yes: bool) -> int:
    """Clear state.json and undo the run in its workspace, in this folder only.

    Never deletes what the run did not create; asks first (or needs ``--yes``) wherever files
    would be removed or overwritten.
    """
    from orch_tui.core.loop.reset import ResetError, reset_workspace

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
    if record is None or record.default:
        entries = workspace_entries(paths.workspace)
        listing = "".join(f"\n  {paths.workspace.name}/{entry.name}" for entry in entries)
        plan: str | None = f"reset removes {paths.state}" + (
            f" and {plural(len(entries), 'entry', 'entries')} of {paths.workspace}:{listing}"
            if entries
            else ""
        )
    elif record.git is None:
        plan = (
            f"reset removes {paths.state}, restores the files the run changed in "
            f"{record.path} and removes the ones it created"
        )
    else:
        plan = None  # git: back to the starting branch; the run's branch and every file stay
    if plan and not yes:
        if not sys.stdin.isatty():
            return fail(f"{plan}\nnot a terminal: run `orch-tui reset --yes` to confirm")
        print(plan)
        print("remove them? [y/N] ", end="", flush=True)  # input() would prompt on stderr
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            print("nothing removed")
            return EXIT_FAILED  # declined: a script can tell nothing was reset
    log_dir = paths.logs / state.run_id if state is not None else None
    try:
        did = reset_workspace(paths, record, log_dir)
    except ResetError as exc:
        return fail(str(exc))
    store.clear()
    print(f"removed {paths.state}; {did}{listing}\nlogs/ kept")
    return EXIT_SUCCESS


def restore(paths: ProjectPaths, attempt: int) -> int:
    from orch_tui.core.loop.restore import RestoreError, restore_current_run

    try:
        said = restore_current_run(paths, attempt)
    except StateError as exc:
        return fail(str(exc), EXIT_STATE)
    except RestoreError as exc:
        return fail(str(exc))
    print(said)
    return EXIT_SUCCESS


def workspace_entries(workspace: Path) -> list[Path]:
    """What reset would remove from ``workspace`` (its ``.gitkeep`` stays)."""
    if not workspace.is_dir():
        return []
    return sorted(child for child in workspace.iterdir() if child.name != ".gitkeep")
