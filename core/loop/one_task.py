"""``--task ID``: one task of an approved plan, run alone (DESIGN.md section 18).

The chosen task starts again at the next attempt with its own retry budget, whatever its status
(pending, done or failed); once it passes, the run ends. The other tasks keep their status, except
that a task the run was in the middle of goes back to pending, so the plan can pick it up again.
"""

from __future__ import annotations

from orch_tui.core.domain.events import Notice
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.state import RunState, State
from orch_tui.core.loop.run import Run


def one_task_refusal(task_id: str | None, resumed: State | None) -> str | None:
    """Why ``--task`` cannot run on the run being resumed (None: not resuming), or None."""
    if task_id is None:
        return None
    plan = resumed.plan if resumed else None
    if plan is None:
        return (
            f"--task {task_id} runs one task of an approved plan, and this spec's run has none: "
            "start it with --plan first"
        )
    if all(task.id != task_id for task in plan.tasks):
        ids = ", ".join(task.id for task in plan.tasks)
        return f"--task {task_id}: the plan has no such task (its tasks: {ids})"
    return None


def start_one_task(run: Run) -> None:
    """Start ``--task``'s task (checked first by :func:`one_task_refusal`)."""
    state, task_id = run.state, run.options.task
    plan = state.plan
    chosen = next((task for task in plan.tasks if task.id == task_id), None) if plan else None
    if plan is None or chosen is None:
        return
    plan.only = chosen.id
    if (
        chosen.id == plan.current
        and chosen.status is TaskStatus.RUNNING
        and not state.state.terminal
    ):
        run.store.save(state)  # already in it: go on where it stands
        return
    for task in plan.tasks:
        if task.status is TaskStatus.RUNNING and task is not chosen:
            task.status, task.first_attempt = TaskStatus.PENDING, None
    attempt = state.attempt + 1
    chosen.status, chosen.first_attempt = TaskStatus.RUNNING, attempt
    plan.current = chosen.id
    state.stop_reason = None
    state.exit_code = None
    state.last_error = None
    state.question = None
    run.emit(
        Notice(
            message=f"--task {chosen.id}: running task {chosen.id} alone; the other "
            "tasks stay as they are"
        )
    )
    run.transition(RunState.GENERATING, attempt=attempt)
    run.planner.announce()


def finished_alone(run: Run) -> str | None:
    """After a passing check: the stop reason when the task ran alone (``--task``), else None."""
    plan = run.state.plan
    if plan is None or plan.only is None:
        return None
    only, plan.only = plan.only, None
    waiting = [task.id for task in plan.tasks if task.status is not TaskStatus.DONE]
    left = f"; not done: {', '.join(waiting)}" if waiting else "; every task is done"
    return f"task {only} passed (--task){left}"
