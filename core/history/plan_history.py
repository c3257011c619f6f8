"""A planned run in history: its tasks, their outcomes, and the attempts under each.

Read from the run's logs only: ``plan.json`` (the approved plan), each attempt's
``task.json`` (the task it worked on) and the ``task_finished`` events.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path

from orch_tui.core.domain.events import Event, TaskFinished
from orch_tui.core.domain.plan import Plan, PlanError, TaskStatus
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.layout import PLAN_FILE, TASK_FILE
from orch_tui.core.runlog.reader import read_json_file
from orch_tui.core.util.markdown_text import inline_text
from orch_tui.core.util.records import record

PLANNING = "plan"
"""The task key of the planning attempt (the model's submit_plan conversation)."""


@record
class TaskOutcome:
    id: str
    title: str
    description: str
    acceptance: str
    status: TaskStatus
    attempts: list[int] = field(default_factory=list)


def attempt_task(folder: Path, number: int) -> str | None:
    """The task attempt ``number`` of the run in ``folder`` worked on; :data:`PLANNING` or None."""
    data, _problem = read_json_file(folder / runlog.attempt_dir_name(number) / TASK_FILE)
    if not isinstance(data, dict):
        return None
    if data.get("planning"):
        return PLANNING
    return str(data["task"]) if data.get("task") is not None else None


def task_outcomes(
    folder: Path, attempt_tasks: dict[int, str | None], events: list[Event]
) -> list[TaskOutcome] | None:
    """The plan's tasks in order with their outcome and attempts; None for a run without a plan."""
    data, problem = read_json_file(folder / PLAN_FILE)
    if problem is not None:
        return None
    try:
        plan = Plan.from_json(data)
    except PlanError:
        return None
    finished = {event.task_id: event.status for event in events if isinstance(event, TaskFinished)}
    outcomes = []
    for task in plan.tasks:
        numbers = sorted(n for n, owner in attempt_tasks.items() if owner == task.id)
        status = finished.get(task.id) or (TaskStatus.RUNNING if numbers else TaskStatus.PENDING)
        outcomes.append(
            TaskOutcome(task.id, task.title, task.description, task.acceptance, status, numbers)
        )
    return outcomes


def plan_section(tasks: list[TaskOutcome]) -> list[str]:
    """The export's ``## Plan``: each task, its outcome and its attempts."""
    out = ["## Plan", "", "| # | task | outcome | attempts |", "|---|---|---|---|"]
    for number, task in enumerate(tasks, start=1):
        attempts = ", ".join(str(n) for n in task.attempts) or "–"
        title = f"{inline_text(task.id)}: {inline_text(task.title)}"
        out.append(f"| {number} | {title} | {task.status} | {attempts} |")
    out.append("")
    for task in tasks:
        out += [f"- **{inline_text(task.id)}** {inline_text(task.description or '')}".rstrip()]
        if task.acceptance:
            out.append(f"  - acceptance: {inline_text(task.acceptance)}")
    return out + [""]
