"""Plan mode in the engine: the planning step, and which task the loop is working on.

The engine keeps its one generate → review → test → patch loop; this module adds
what a plan needs around it (DESIGN.md section 10):

- PLANNING: the task list written in the spec, or else the model's ``submit_plan``
  call (an invalid plan goes back as an ``is_error`` tool result, at most
  :data:`PLAN_TOOL_ERRORS` times), then the reviewer's approval; in a change run, a plan
  of the spec's edit (:mod:`.change_plan`). The draft is saved
  before the approval, so a resumed run never asks the model for the plan again.
- Each task counts its attempts from its ``first_attempt`` (its own retry budget);
  ``state.json``'s ``plan`` says which tasks are done, so a resumed run never asks
  for a finished task again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from orch_tui.core.attempt.conversation import CONTINUE_PROMPT
from orch_tui.core.attempt.prompt_templates import render
from orch_tui.core.domain.events import ModelText, Notice, PlanApproved, TaskFinished, TaskStarted
from orch_tui.core.domain.plan import (
    SUBMIT_PLAN,
    SUBMIT_PLAN_TOOL,
    Plan,
    PlanError,
    Task,
    TaskStatus,
)
from orch_tui.core.domain.state_records import PlanProgress, TaskProgress
from orch_tui.core.providers.base import TurnRequest
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.conversation import conversation_record, turn_record
from orch_tui.core.runlog.layout import PLAN_DRAFT_FILE, PLAN_FILE, TASK_FILE

if TYPE_CHECKING:
    from orch_tui.core.loop.context import RunContext

PLAN_TOOL_ERRORS = 2
"""Invalid plans sent back to the model before the run fails."""

NO_TOOL_CALL = "Error: answer with a submit_plan tool call holding the whole plan."


class PlanFailed(Exception):
    """The model gave no valid plan; the message is the run's stop reason."""


def task_label(index: int, total: int, attempt: int, max_retries: int) -> str:
    """``task 2/5 · attempt 1/5``: where a planned run stands, as the header and lines show it."""
    return f"task {index + 1}/{total} · attempt {attempt}/{max_retries}"


class PlanRunner:
    """The run's plan-mode collaborator; it reads and writes the run's state and log."""

    def __init__(self, context: RunContext) -> None:
        self.context = context

    # -- where the run stands ------------------------------------------------------------

    @property
    def tasks(self) -> list[TaskProgress]:
        return self.context.state.plan.tasks if self.context.state.plan else []

    def current(self) -> TaskProgress | None:
        plan = self.context.state.plan
        return plan.current_task() if plan else None

    def base_attempt(self) -> int:
        """The run attempt where the current task began: its generation."""
        task = self.current()
        return (task.first_attempt or 0) if task else 0

    def label(self) -> str | None:
        task = self.current()
        if task is None:
            return None
        state = self.context.state
        return task_label(
            self.tasks.index(task),
            len(self.tasks),
            state.attempt - self.base_attempt(),
            state.max_retries,
        )

    def record_attempt(self, attempt: int) -> None:
        """Note in the attempt's folder which task it works on (plan mode only)."""
        task = self.current()
        if task is not None:
            self.context.log.write_json(attempt, TASK_FILE, {"task": task.id})

    def stopped_while_planning(self) -> bool:
        """The run stopped in its planning conversation (attempt 0), before any plan was approved."""
        if self.context.state.plan is not None:
            return False
        return bool((self.context.log.read_json(0, TASK_FILE) or {}).get("planning"))

    def reason(self, why: str) -> str:
        """A stop reason that names the task it happened in."""
        task = self.current()
        return f"task {task.id} ({task.title}): {why}" if task else why

    def current_details(self) -> Task | None:
        """The current task as approved (``plan.json``): with its description and files."""
        task = self.current()
        if task is None:
            return None
        approved = Plan.from_json(self.context.log.read_json(None, PLAN_FILE))
        return approved.tasks[approved.index(task.id)]

    def task_files(self) -> tuple[str, tuple[str, ...]]:
        """The current task's id and the files it may change (none: not a task, or any file)."""
        details = self.current_details()
        return (details.id, details.files) if details else ("", ())

    def prompt_prefix(self) -> str:
        """What a task's prompts add: the whole plan with statuses, and the task itself."""
        details = self.current_details()
        if details is None:
            return ""
        listing = "\n".join(f"- [{t.status.value}] {t.id}: {t.title}" for t in self.tasks)
        return render(
            "task",
            plan=listing,
            task_id=details.id,
            title=details.title,
            description=details.description or "(no description)",
            acceptance=details.acceptance or "every check passes",
            files=(
                "Change only these files (and their tests): " + ", ".join(details.files)
                if details.files
                else "Any file may change."
            ),
        )

    # -- steps ------------------------------------------------------------------------------

    def make_plan(self) -> int:
        """PLANNING: obtain the plan (spec, or the model), have it approved, start task 1.

        Returns the attempt task 1 begins at; PlanFailed when the model gave no valid plan.
        """
        from orch_tui.core.loop import change_plan  # plan mode's: not every run's start

        context = self.context
        draft = context.log.read_json(None, PLAN_DRAFT_FILE)
        if draft is None:
            written = change_plan.written_plan(context)
            if written is not None:
                draft = {"plan": written.to_json(), "source": "spec", "first_attempt": 0}
            else:
                state = context.state
                tokens, cost = state.usage.total, state.cost_usd
                planned = self._ask_model()
                draft = {
                    "plan": planned.to_json(),
                    "source": "model",
                    "first_attempt": 1,
                    "planning": {
                        "tokens": state.usage.total - tokens,
                        "cost_usd": round(state.cost_usd - cost, 6),
                    },
                }
            context.log.write_json(None, PLAN_DRAFT_FILE, draft)
        approved = context.reviewer.review_plan(Plan.from_json(draft["plan"]))
        context.log.write_json(None, PLAN_FILE, approved.to_json())
        spent = draft.get("planning") or {}
        context.state.plan = PlanProgress(
            [TaskProgress(t.id, t.title) for t in approved.tasks],
            planning_tokens=int(spent.get("tokens", 0)),
            planning_cost_usd=float(spent.get("cost_usd", 0.0)),
        )
        context.emit(
            PlanApproved(
                tasks=[task.to_json() for task in approved.tasks],
                source=draft["source"],
                tokens=context.state.plan.planning_tokens,
                cost_usd=context.state.plan.planning_cost_usd,
            )
        )
        return self._start_task(self.tasks[0], int(draft["first_attempt"]))

    def _start_task(self, task: TaskProgress, attempt: int) -> int:
        plan = self.context.state.plan
        assert plan is not None, "tasks come from the plan, so a started task has one"
        task.status, task.first_attempt = TaskStatus.RUNNING, attempt
        plan.current = task.id
        self.announce()
        return attempt

    def announce(self) -> None:
        """Tell subscribers which task the run is in (at its start, and on resume)."""
        task = self.current()
        if task is not None:
            self.context.emit(
                TaskStarted(
                    task_id=task.id,
                    title=task.title,
                    index=self.tasks.index(task),
                    total=len(self.tasks),
                    first_attempt=self.base_attempt(),
                )
            )

    def task_passed(self) -> int | None:
        """The current task is done; start the next one at the attempt returned, None when none is left."""
        task = self.current()
        if task is None:
            return None
        task.status = TaskStatus.DONE
        self.context.emit(TaskFinished(task_id=task.id, status=TaskStatus.DONE))
        if self.context.state.plan is not None and self.context.state.plan.only:
            return None  # --task: this task ran alone; the others stay as they are
        following = next((t for t in self.tasks if t.status is TaskStatus.PENDING), None)
        if following is None:
            return None
        return self._start_task(following, self.context.state.attempt + 1)

    def mark(self, status: TaskStatus) -> None:
        """Record how the current task stands now the run stopped or reopened."""
        task = self.current()
        if task is not None and task.status is not status:
            task.status = status
            if status is TaskStatus.FAILED:
                self.context.emit(TaskFinished(task_id=task.id, status=TaskStatus.FAILED))

    # -- the planning conversation --------------------------------------------------------

    def _ask_model(self) -> Plan:
        """Attempt 0: a conversation offering only ``submit_plan``, until a valid plan comes."""
        from orch_tui.core.loop import change_plan

        context = self.context
        config = context.config
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": change_plan.planning_prompt(context)}
        ]
        turns: list[dict[str, Any]] = []
        errors: list[str] = []
        system = context.system_blocks()
        tools = [dict(SUBMIT_PLAN_TOOL)]
        context.log.write_json(0, TASK_FILE, {"planning": True})
        for index in range(config.model.max_tool_turns):
            request = TurnRequest(
                model=config.model.name,
                system=system,
                tools=tools,
                messages=list(messages),
                max_tokens=context.request_max_tokens(config.model.max_tokens, config.model.name),
                attempt=0,
            )
            turn = context.complete(
                request, lambda text: context.emit(ModelText(attempt=0, text=text)), turn=index
            )
            messages.append({"role": "assistant", "content": turn.content})
            turns.append(turn_record(turn.to_json(), len(messages) - 1))
            calls = [block for block in turn.content if block.get("type") == "tool_use"]
            plan, reply = self._check_calls(calls, errors)
            context.log.write_json(
                0,
                runlog.CONVERSATION,
                conversation_record(request.model, system, tools, messages, turns),
            )
            if plan is not None:
                return plan
            if not calls and turn.stop_reason == "max_tokens":
                messages.append({"role": "user", "content": CONTINUE_PROMPT})
                continue
            if len(errors) > PLAN_TOOL_ERRORS:
                break
            context.emit(Notice(message=f"the plan was not valid, asking again: {errors[-1]}"))
            messages.append({"role": "user", "content": reply})
        last = errors[-1] if errors else "the planning conversation reached its turn limit"
        raise PlanFailed(f"no valid plan after {len(errors)} tries: {last}")

    def _check_calls(
        self, calls: list[dict[str, Any]], errors: list[str]
    ) -> tuple[Plan | None, Any]:
        """The valid plan among ``calls``, or the tool results that say what was wrong."""
        if not calls:
            errors.append("the model answered without a submit_plan call")
            return None, NO_TOOL_CALL
        results = []
        for call in calls:
            if call.get("name") != SUBMIT_PLAN:
                message = (
                    f"Error: unknown tool {call.get('name')!r}; the only tool is {SUBMIT_PLAN}"
                )
            else:
                try:
                    return Plan.from_json(call.get("input")), None
                except PlanError as exc:
                    message = f"Error: the plan is not valid: {exc}. Submit the whole plan again."
            errors.append(message.removeprefix("Error: "))
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call["id"],
                    "content": message,
                    "is_error": True,
                }
            )
        return None, results
