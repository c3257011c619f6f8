"""A plan: the ordered tasks a spec is built in (plan mode, DESIGN.md section 10).

A plan comes from one of three places, each checked here before the engine trusts it:

- a task list already written in the spec (``## Task 1: ...`` headings or a ``- [ ]``
  checklist); lists inside fenced code blocks are examples, not tasks;
- the model's ``submit_plan`` tool call (:data:`SUBMIT_PLAN_TOOL`, a plain JSON-schema tool
  any provider can offer);
- the person's edit of the plan as Markdown (:func:`render_markdown` / :func:`parse_markdown`),
  whose errors name the line.
"""

from __future__ import annotations

import posixpath
import re
from enum import StrEnum
from typing import Any

from orch_tui.core.util.patterns import LazyPattern
from orch_tui.core.util.records import record


class TaskStatus(StrEnum):
    """Where a plan task stands (``state.json``'s ``plan.tasks[].status``)."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


SUBMIT_PLAN = "submit_plan"
MAX_TASKS = 30
TASK_FIELDS = ("id", "title", "description", "acceptance")

SUBMIT_PLAN_TOOL: dict[str, Any] = {
    "name": SUBMIT_PLAN,
    "description": (
        "Submit the plan: the ordered tasks that build the spec, each small enough to review "
        "as one change and finished when its acceptance criteria are met and every check passes."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "tasks": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_TASKS,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "short unique id, e.g. t1"},
                        "title": {"type": "string"},
                        "description": {"type": "string"},
                        "acceptance": {
                            "type": "string",
                            "description": "how to tell the task is done",
                        },
                        "files": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": (
                                "the workspace files (or glob patterns) this task may change; "
                                "tests of them may change too; leave out to allow any file"
                            ),
                        },
                    },
                    "required": list(TASK_FIELDS),
                },
            }
        },
        "required": ["tasks"],
    },
}


class PlanError(ValueError):
    """A plan that cannot be used; the message says what and where (a line or a task)."""


@record(frozen=True)
class Task:
    id: str
    title: str
    description: str = ""
    acceptance: str = ""
    files: tuple[str, ...] = ()
    """The workspace files (or glob patterns) the task may change, their tests besides; empty:
    any file. An edit outside them goes back to the model as an editor-tool error."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {name: getattr(self, name) for name in TASK_FIELDS}
        if self.files:
            data["files"] = list(self.files)
        return data


@record(frozen=True)
class Plan:
    tasks: tuple[Task, ...]

    def to_json(self) -> dict[str, Any]:
        return {"tasks": [task.to_json() for task in self.tasks]}

    @classmethod
    def from_json(cls, data: Any) -> Plan:
        """The plan in ``data`` (a ``submit_plan`` input or a saved ``plan.json``); PlanError."""
        if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
            raise PlanError('a plan is an object with a "tasks" list')
        tasks = []
        for number, item in enumerate(data["tasks"], start=1):
            if not isinstance(item, dict):
                raise PlanError(f"task {number} is not an object")
            for name in TASK_FIELDS:
                if not isinstance(item.get(name), str):
                    raise PlanError(f'task {number} needs "{name}" as a string')
            files = item.get("files", [])
            if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
                raise PlanError(f'task {number}\'s "files" is a list of strings')
            task_id, title, description, acceptance = (item[name].strip() for name in TASK_FIELDS)
            tasks.append(Task(task_id, title, description, acceptance, tuple(files)))
        return checked(tasks)

    def index(self, task_id: str) -> int:
        return next(i for i, task in enumerate(self.tasks) if task.id == task_id)


def checked(tasks: list[Task]) -> Plan:
    """``tasks`` as a plan: at least one, at most :data:`MAX_TASKS`, ids and titles set, ids unique."""
    if not tasks:
        raise PlanError("the plan has no tasks")
    if len(tasks) > MAX_TASKS:
        raise PlanError(f"the plan has {len(tasks)} tasks; at most {MAX_TASKS} are allowed")
    seen: set[str] = set()
    for number, task in enumerate(tasks, start=1):
        if not task.id or not task.title:
            raise PlanError(f"task {number} needs a non-empty id and title")
        if task.id in seen:
            raise PlanError(f"task {number} repeats the id {task.id!r}; ids must be unique")
        seen.add(task.id)
        for entry in task.files:
            _check_task_file(number, entry)
    return Plan(tuple(tasks))


def _check_task_file(number: int, entry: str) -> None:
    """A task's file is a path (or glob) inside the workspace, relative to it."""
    normal = posixpath.normpath(entry.strip()) if entry.strip() else ""
    if not normal or normal == ".":
        raise PlanError(f"task {number} has an empty entry in its files")
    if entry.startswith(("/", "~")) or normal == ".." or normal.startswith("../"):
        raise PlanError(
            f"task {number}'s file {entry!r} is outside the workspace "
            "(files are relative to it, e.g. src/app.py)"
        )


# -- a task list written in the spec ---------------------------------------------------------

_FENCE = LazyPattern(r"^\s{0,3}(`{3,}|~{3,})")
_TASK_HEADING = LazyPattern(
    r"^(#{2,6})\s+task\s+([A-Za-z]?\d[\w.-]*)\s*[:.)\-—]?\s*(.*?)\s*#*\s*$", re.I
)
_HEADING = LazyPattern(r"^(#{1,6})\s")
_CHECKBOX = LazyPattern(r"^[-*+]\s+\[[ xX]\]\s+(.+?)\s*$")
_ACCEPTANCE = LazyPattern(r"^\**acceptance\**\s*:\**\s*(.*)$", re.I)
_FILES = LazyPattern(r"^\**files\**\s*:\**\s*(.*)$", re.I)


def _outside_fences(text: str) -> list[tuple[int, str]]:
    """(line number, line) for every line not inside a fenced code block."""
    kept, fence = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            kept.append((number, line))
    return kept


def _split_body(lines: list[str]) -> tuple[str, str, tuple[str, ...]]:
    """Body lines as (description, acceptance, files): a ``Files: a.py, b.py`` line names the
    task's files; acceptance starts at an ``Acceptance:`` line."""
    files: list[str] = []
    kept = []
    for line in lines:
        match = _FILES.match(line.strip().lstrip("-*+ ").strip())
        if match:
            files += [name.strip().strip("`") for name in match.group(1).split(",") if name.strip()]
        else:
            kept.append(line)
    return (*_split_acceptance(kept), tuple(files))


def _split_acceptance(lines: list[str]) -> tuple[str, str]:
    """Body lines as (description, acceptance): acceptance starts at an ``Acceptance:`` line."""
    for i, line in enumerate(lines):
        match = _ACCEPTANCE.match(line.strip().lstrip("-*+ ").strip())
        if match:
            rest = [match.group(1), *lines[i + 1 :]]
            return "\n".join(lines[:i]).strip(), "\n".join(rest).strip()
    return "\n".join(lines).strip(), ""


def tasks_from_spec(text: str) -> Plan | None:
    """The task list written in the spec, or None when it has none.

    ``## Task <id>: <title>`` headings win (their body is the description, an
    ``Acceptance:`` line starts the acceptance); otherwise top-level ``- [ ] <title>``
    checklist items are the tasks, their indented lines the description.
    """
    lines = _outside_fences(text)
    headed = _tasks_from_headings(lines)
    if headed:
        return checked(headed)
    listed = _tasks_from_checklist(lines)
    return checked(listed) if listed else None


def _tasks_from_headings(lines: list[tuple[int, str]]) -> list[Task]:
    tasks: list[Task] = []
    current: tuple[str, str, int] | None = None
    body: list[str] = []

    def close() -> None:
        if current is not None:
            tasks.append(Task(current[0], current[1], *_split_body(body)))

    for _number, line in lines:
        heading = _TASK_HEADING.match(line)
        other = _HEADING.match(line)
        if heading:
            close()
            task_id, title = heading.group(2), heading.group(3) or f"Task {heading.group(2)}"
            current, body = (task_id, title, len(heading.group(1))), []
        elif other and current is not None and len(other.group(1)) <= current[2]:
            close()
            current, body = None, []
        elif current is not None:
            body.append(line)
    close()
    return tasks


def _tasks_from_checklist(lines: list[tuple[int, str]]) -> list[Task]:
    items: list[tuple[str, list[str]]] = []
    for _number, line in lines:
        box = _CHECKBOX.match(line)
        if box:
            items.append((box.group(1), []))
        elif items and line.startswith((" ", "\t")) and line.strip():
            items[-1][1].append(line.strip())
        elif items and line.strip():
            items.append(("", []))  # a paragraph ends the item; an empty title marks the break
    tasks: list[Task] = []
    for title, body in (item for item in items if item[0]):
        tasks.append(Task(f"t{len(tasks) + 1}", title, *_split_body(body)))
    return tasks


# -- the plan as Markdown, for a person to edit ----------------------------------------------

_EDIT_HEADING = LazyPattern(r"^##\s+(\S+?):\s*(.*?)\s*$")
EDIT_HELP = (
    "<!-- One task per '## <id>: <title>' heading, in order. The lines under it are the "
    "description; a 'Files: a.py, b.py' line limits the files the task may change; an "
    "'Acceptance:' line starts the acceptance. -->"
)


def render_markdown(plan: Plan) -> str:
    """The plan as Markdown that :func:`parse_markdown` reads back to the same plan."""
    parts = ["# Plan", "", EDIT_HELP, ""]
    for task in plan.tasks:
        parts.append(f"## {task.id}: {task.title}")
        parts.append("")
        if task.description:
            parts += [task.description, ""]
        if task.files:
            parts += [f"Files: {', '.join(task.files)}", ""]
        parts += [f"Acceptance: {task.acceptance}", ""]
    return "\n".join(parts)


def parse_markdown(text: str) -> Plan:
    """The plan a person wrote; PlanError names the line of the first problem."""
    tasks: list[Task] = []
    current: tuple[str, str] | None = None
    body: list[str] = []
    heading_lines: dict[str, int] = {}
    in_comment = False

    def close() -> None:
        if current is not None:
            tasks.append(Task(current[0], current[1], *_split_body(body)))

    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        if stripped.startswith("## "):
            match = _EDIT_HEADING.match(stripped)
            if not match or not match.group(2):
                raise PlanError(f"line {number}: a task heading is '## <id>: <title>'")
            if match.group(1) in heading_lines:
                first = heading_lines[match.group(1)]
                raise PlanError(
                    f"line {number}: the id {match.group(1)!r} is already used on line {first}"
                )
            heading_lines[match.group(1)] = number
            close()
            current, body = (match.group(1), match.group(2)), []
        elif current is not None:
            body.append(line)
        elif stripped and not (stripped.startswith("# ") and not tasks):
            raise PlanError(f"line {number}: text before the first '## <id>: <title>' heading")
    close()
    if not tasks:
        raise PlanError("line 1: the plan has no '## <id>: <title>' task headings")
    return checked(tasks)
