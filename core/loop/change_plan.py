"""Plan mode in a change run (DESIGN sections 10 and 16): the plan is of the spec's edit.

- A task list written in the spec keeps only the tasks that are new or changed since the
  spec the previous run was built from (the others are built already); when none is, the
  model plans the change.
- The model's planning prompt then carries the spec's edit and the project map, as a
  change run's first prompt does, instead of "plan the work" over a file listing.
"""

from __future__ import annotations

from orch_tui.core.attempt.project_map import MAP_CHARS, project_map
from orch_tui.core.attempt.prompt_templates import render
from orch_tui.core.domain.plan import Plan, PlanError, Task, tasks_from_spec
from orch_tui.core.loop.change_run import previous_spec, spec_edit
from orch_tui.core.loop.context import RunContext
from orch_tui.core.workspace.apply import read_tree


def written_plan(context: RunContext) -> Plan | None:
    """The task list written in the spec; in a change run, only its new or changed tasks
    (None: none is, so the model plans the change)."""
    written = tasks_from_spec(context.spec.text)
    follows = context.state.follows
    if written is None or follows is None:
        return written
    before = _written_before(previous_spec(context.paths.logs, follows))
    kept = tuple(task for task in written.tasks if task not in before)
    return Plan(kept) if kept else None


def _written_before(text: str | None) -> frozenset[Task]:
    if text is None:
        return frozenset()
    try:
        plan = tasks_from_spec(text)
    except PlanError:
        return frozenset()
    return frozenset(plan.tasks) if plan else frozenset()


def planning_prompt(context: RunContext) -> str:
    """The planning conversation's first prompt: plan the project, or in a change run the
    spec's edit to the project as it stands."""
    paths, follows, spec = context.paths, context.state.follows, context.spec
    edit = spec_edit(paths.logs, follows, spec.text, spec.path.name) if follows else None
    if follows is None or edit is None:
        files = sorted(read_tree(paths.workspace))
        listing = "\n".join(f"- {path}" for path in files) or "(none: the workspace is empty)"
        return render("plan", paths.prompts, listing=listing)
    return render(
        "plan_change",
        paths.prompts,
        previous=follows,
        diff=edit,
        listing=project_map(paths.workspace, MAP_CHARS),
    )
