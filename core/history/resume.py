"""Whether a past run can be resumed: only the run ``state.json`` holds, with its spec unchanged."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from orch_tui.core.domain.spec import Spec, SpecError, read_spec
from orch_tui.core.domain.state import StateError, StateStore
from orch_tui.core.history.index import RunIndex
from orch_tui.core.history.scan import RunSummary, unfinished_positions


def resume_blocker(run: RunSummary, state_path: Path) -> str | None:
    """Why ``run`` cannot be resumed, or None when it can.

    The engine resumes only the run ``state.json`` holds, and only with the spec it was
    started from: the run must be unfinished and undamaged, be the run in ``state.json``, and
    its spec file (relative to the project root) must still have the same hash.
    """
    if run.damaged:
        return f"run {run.run_id} is damaged: {run.damaged}"
    if run.finished:
        return f"run {run.run_id} already finished ({run.state})"
    try:
        saved = StateStore(state_path).load()
    except StateError as exc:
        return str(exc)
    if saved is None or saved.run_id != run.run_id:
        return f"run {run.run_id} is not the current run in {state_path.name}"
    spec_path = Path(saved.spec_path)
    if not spec_path.is_absolute():
        spec_path = state_path.parent / spec_path
    try:
        spec: Spec = read_spec(spec_path)
    except SpecError as exc:
        return str(exc)
    if spec.digest != saved.spec_hash:
        return f"{saved.spec_path} changed since run {run.run_id} started"
    return None


def resumable_id(index: RunIndex, state_path: Path) -> str | None:
    """The id of the run that can be resumed, if one can: the run ``state.json`` holds, read
    once, looked up in the index (no run is looked at otherwise)."""
    try:
        saved = StateStore(state_path).load()
    except StateError:
        return None
    run = None if saved is None else index.run(saved.run_id)
    return run.run_id if run is not None and resume_blocker(run, state_path) is None else None


def mark_resumable(runs: Iterable[RunSummary], state_path: Path) -> list[RunSummary]:
    """The runs with ``resumable`` set; only unfinished runs are checked (at most one can be)."""
    marked = list(runs)
    for position in unfinished_positions(marked):
        run = marked[position]
        if not run.damaged and resume_blocker(run, state_path) is None:
            marked[position] = run._replace(resumable=True)
    return marked
