"""``orch-tui restore K``: the workspace back to attempt K's result, as a new step of the run.

A run's changes are a sequence of steps, each a mapping path → text (None: deleted): the applied
change of every attempt (``attempt-NN/applied.json``) and earlier restores
(``restores/restore-NN.json``, taken after the attempt they name). Attempt K's result is the
workspace as it was before the run (git: the starting commit; otherwise the originals kept in the
logs) with every step up to and including attempt K replayed. A restore writes that result for
every file the run touched, records itself, and in git becomes one commit; the attempts after K
that it undid are named in the next prompt.

A file that differs from what the run last wrote holds the person's later work
(:mod:`core.loop.restore_guard`): outside git it is copied to ``restores/kept-NN/`` first and the
message names the copy; in git the restore refuses a dirty tree.
"""

from __future__ import annotations

import json
from pathlib import Path

from orch_tui.core.checks.report import TestReport
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.events import RunRestored
from orch_tui.core.domain.state import RunState, State, StateStore
from orch_tui.core.domain.state_records import LastTest, WorkspaceRecord
from orch_tui.core.loop.exit_codes import EXIT_FAILED
from orch_tui.core.loop.restore_guard import LaterEdits, keep_copies, later_edits, refuse_in_git
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.writer import RunLog
from orch_tui.core.util.atomic import write_json_atomic
from orch_tui.core.util.records import record
from orch_tui.core.util.wording import plural
from orch_tui.core.workspace.apply import apply_change
from orch_tui.core.workspace.git import RESTORE_TRAILER, GitError, Repo
from orch_tui.core.workspace.run_workspace import keep_originals, original_text

RESTORES = "restores"


class RestoreError(Exception):
    """The restore cannot be done; the message says why (exit 1)."""


SHOWN_FILES = 5
"""Files named in a restore's question and message; more are counted."""


@record(frozen=True)
class RestorePlan:
    """What restoring ``attempt`` does: the applied attempts it undoes and the files whose
    text changes (from what the run last wrote to that attempt's result)."""

    attempt: int
    undone: tuple[int, ...]
    files: tuple[str, ...]

    def _what(self, verb: str) -> str:
        """``undo 3 files from attempts 3–4 (a.py, b.py, c.py)``, with ``verb`` as given."""
        if not self.files:
            return "nothing to change: the workspace holds that result already"
        names = ", ".join(self.files[:SHOWN_FILES])
        if len(self.files) > SHOWN_FILES:
            names += f" and {len(self.files) - SHOWN_FILES} more"
        source = f" from {attempt_span(self.undone)}" if self.undone else ""
        return f"{verb} {plural(len(self.files), 'file')}{source} ({names})"

    def question(self) -> str:
        """What the person is asked before the restore."""
        return f"Restore attempt {self.attempt}? This will {self._what('undo')}."

    def done(self) -> str:
        """What the restore did, said afterwards."""
        return f"restored attempt {self.attempt}: {self._what('undid')}"


def attempt_span(numbers: tuple[int, ...]) -> str:
    """``attempt 3``, ``attempts 3–4``, ``attempts 1, 3–5``: runs of numbers joined."""
    spans: list[list[int]] = []
    for number in sorted(numbers):
        if spans and number == spans[-1][-1] + 1:
            spans[-1].append(number)
        else:
            spans.append([number])
    text = ", ".join(str(span[0]) if len(span) == 1 else f"{span[0]}–{span[-1]}" for span in spans)
    return f"{'attempt' if len(numbers) == 1 else 'attempts'} {text}"


def _steps(log_dir: Path) -> list[tuple[tuple[int, int, int], str, dict[str, str | None]]]:
    """Every step of the run in the order it was applied: (order key, label, files)."""
    steps = []
    for folder in sorted(log_dir.glob("attempt-*")):
        applied = folder / runlog.APPLIED
        if applied.is_file():
            attempt = int(folder.name.split("-")[1])
            files = json.loads(applied.read_text(encoding="utf-8")).get("files") or {}
            steps.append(((attempt, 0, 0), f"attempt {attempt}", files))
    for path in sorted((log_dir / RESTORES).glob("restore-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        key = (int(data["after_attempt"]), 1, int(data["number"]))
        steps.append((key, f"restore {data['number']}", data["files"]))
    return sorted(steps, key=lambda step: step[0])


def result_of(state: State, log_dir: Path, attempt: int) -> tuple[dict[str, str | None], list[int]]:
    """The text of every file the run touched as attempt ``attempt`` left it, and the attempts
    applied after it (the ones a restore undoes)."""
    steps = _steps(log_dir)
    applied = [key[0] for key, _label, _files in steps if key[1] == 0]
    if attempt not in applied:
        raise RestoreError(
            f"attempt {attempt} of run {state.run_id} was never applied "
            f"(applied attempts: {', '.join(map(str, applied)) or 'none'})"
        )
    touched = sorted({path for _key, _label, files in steps for path in files})
    record = state.workspace or WorkspaceRecord(path=str(log_dir))
    result = {path: original_text(record, log_dir, path) for path in touched}
    for key, _label, files in steps:
        if key <= (attempt, 0, 0):
            result.update(files)
    return result, [number for number in applied if number > attempt]


def restore(state: State, log_dir: Path, workspace: Path, attempt: int) -> tuple[RestorePlan, str]:
    """Put ``workspace`` back to ``attempt``'s result as a new step; returns what it changed
    and says so.

    ``state`` is updated (the undone attempts, the commit) for the caller to save.
    """
    if state.state in (RunState.REVIEWING, RunState.TESTING):
        raise RestoreError(
            f"run {state.run_id} is {state.state.value}: finish that step first "
            "(run the same command to resume it), then restore"
        )
    files, undone = result_of(state, log_dir, attempt)
    plan = _plan(attempt, files, undone, log_dir)
    folder = log_dir / RESTORES
    number = len(list(folder.glob("restore-*.json"))) + 1
    kept = _protect_later_edits(state, log_dir, workspace, folder / f"kept-{number:02d}")
    keep_originals(state.workspace, log_dir, sorted(files))
    write_json_atomic(
        folder / f"restore-{number:02d}.json",
        {
            "number": number,
            "to_attempt": attempt,
            "after_attempt": state.attempt,
            "undone": undone,
            "files": files,
        },
    )
    apply_change(workspace, files)
    record = state.workspace
    if record is not None:
        record.undone = sorted(set(record.undone) | set(undone))
        if record.git is not None:
            subject = f"orch-tui {state.run_id} restore {number}: back to attempt {attempt}"
            commit, _made = Repo(Path(record.path)).commit_step(
                state.run_id, (RESTORE_TRAILER, number), sorted(files), subject
            )
            record.commits[f"restore-{number}"] = commit
    reopened = _as_attempt_saw(state, log_dir, attempt) if undone else ""
    said = plan.done() + reopened
    if kept:
        copies = folder / f"kept-{number:02d}"
        said += f"; your later edits to {', '.join(kept)} were kept in {copies}"
    return plan, said


def _as_attempt_saw(state: State, log_dir: Path, attempt: int) -> str:
    """The run's verdict back to attempt ``attempt``'s checks, so ``status`` tells the truth
    about the code now in the workspace: a SUCCESS run over code that failed is FAILED again
    (``--continue`` patches it). Returns what changed, for the message ("" for nothing)."""
    data = RunLog(log_dir.parent, log_dir.name).read_json(attempt, runlog.REPORT)
    if data is None:
        return ""
    report = TestReport.from_json(data)
    state.last_test = LastTest(report.passed, report.summary(), list(report.failing))
    if state.state is not RunState.SUCCESS or report.passed:
        return ""
    state.state = RunState.FAILED
    state.exit_code = EXIT_FAILED
    state.stop_reason = (
        f"restored to attempt {attempt}'s result, whose checks failed ({report.summary()})"
    )
    return "; the run is FAILED again, as that attempt's checks were: --continue patches it"


def _plan(
    attempt: int, files: dict[str, str | None], undone: list[int], log_dir: Path
) -> RestorePlan:
    written = last_written(log_dir)
    changed = tuple(path for path, text in sorted(files.items()) if written.get(path) != text)
    return RestorePlan(attempt, tuple(undone), changed)


def plan_restore(paths: ProjectPaths, attempt: int, run_id: str | None = None) -> RestorePlan:
    """What :func:`restore_current_run` would do, changing nothing (its question)."""
    state = _current_state(paths, run_id)
    log_dir = paths.logs / state.run_id
    try:
        files, undone = result_of(state, log_dir, attempt)
        return _plan(attempt, files, undone, log_dir)
    except (OSError, ValueError) as exc:
        raise RestoreError(f"cannot read the run's steps: {exc}") from None


def last_written(log_dir: Path) -> dict[str, str | None]:
    """What the run last wrote to every file it touched (None: it deleted the file)."""
    written: dict[str, str | None] = {}
    for _key, _label, files in _steps(log_dir):
        written.update(files)
    return written


def _protect_later_edits(state: State, log_dir: Path, workspace: Path, copies: Path) -> list[str]:
    """Keep (or, in git, refuse over) the person's edits since the run last wrote; the names
    of the files copied to ``copies``."""
    edited = later_edits(workspace, last_written(log_dir))
    record = state.workspace
    if record is not None and record.git is not None:
        try:
            refuse_in_git(Repo(Path(record.path)), edited)
        except LaterEdits as exc:
            raise RestoreError(str(exc)) from None
        return []
    return keep_copies(workspace, edited, copies)


def restore_current_run(paths: ProjectPaths, attempt: int, run_id: str | None = None) -> str:
    """Restore attempt ``attempt`` of the run in ``state.json``, saved and logged; says what it did.

    ``run_id``, when given, must be that run: only the current run has a workspace to restore.
    StateError for an unusable state.json, RestoreError for anything else.
    """
    store = StateStore(paths.state)
    state = _current_state(paths, run_id)
    record = state.workspace
    workspace = Path(record.path) if record else paths.default_workspace
    try:
        plan, said = restore(state, paths.logs / state.run_id, workspace, attempt)
    except (GitError, OSError, ValueError) as exc:
        raise RestoreError(f"restore failed: {exc}") from None
    store.save(state)
    RunLog(paths.logs, state.run_id)(
        RunRestored(
            message=said,
            to_attempt=attempt,
            undone=list(plan.undone),
            files=list(plan.files),
        )
    )
    return f"{said}; the next prompt of run {state.run_id} says so"


def _current_state(paths: ProjectPaths, run_id: str | None) -> State:
    """The run in ``state.json``, which must be ``run_id`` when given."""
    state = StateStore(paths.state).load()
    if state is None:
        raise RestoreError("no run to restore (state.json not found)")
    if run_id is not None and run_id != state.run_id:
        raise RestoreError(
            f"run {run_id} is not the current run ({state.run_id}): only its attempts can be restored"
        )
    return state
