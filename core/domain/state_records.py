"""The records ``state.json`` keeps beside its counters, typed both ways.

- :class:`LastTest`: the last checks' verdict (passed, summary, the failing test ids);
- :class:`WorkspaceRecord`: where the run works (core.workspace.run_workspace): the folder,
  whether it is the default ``workspace/``, git's start and the run's commits, the person's
  protected tests, the attempts a restore undid;
- :class:`PlanProgress`: plan mode's tasks with their status and first attempt, and the
  current one (the tasks' texts are in ``logs/<run>/plan.json``);
- :class:`RoleRecord`: a judge's or verifier's last decision and the attempt it was about.

Each ``from_json`` raises ValueError naming the first field of the wrong shape; each
``to_json`` writes the JSON it reads, so a state.json written before these types reads the same.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from orch_tui.core.domain.json_fields import field_of, object_of, shown, texts_of
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.roles import RoleDecision
from orch_tui.core.util.records import record


@record
class LastTest:
    passed: bool
    summary: str = ""
    failing: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "summary": self.summary, "failing": list(self.failing)}

    @classmethod
    def from_json(cls, value: Any) -> LastTest | None:
        data = object_of(value, "last_test")
        if data is None:
            return None
        return cls(
            passed=bool(field_of(data, "passed", bool, optional=True, within="last_test")),
            summary=field_of(data, "summary", str, optional=True, within="last_test") or "",
            failing=texts_of(data, "failing", "last_test"),
        )


@record
class GitRecord:
    """The run's branch, and where the person's checkout stood when it began."""

    branch: str
    start_branch: str | None = None
    """None: a detached HEAD."""
    start_commit: str | None = None
    """None: a repository with no commit yet."""

    def to_json(self) -> dict[str, Any]:
        return {
            "start_branch": self.start_branch,
            "start_commit": self.start_commit,
            "branch": self.branch,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GitRecord:
        where = "workspace.git"
        return cls(
            branch=field_of(data, "branch", str, within=where),
            start_branch=field_of(data, "start_branch", str, optional=True, within=where),
            start_commit=field_of(data, "start_commit", str, optional=True, within=where),
        )


@record
class WorkspaceRecord:
    path: str
    default: bool = True
    """The default ``workspace/``, orch-tui's own; False: a folder of the person's."""
    git: GitRecord | None = None
    commits: dict[str, str] = field(default_factory=dict)
    """Attempt number (or ``restore-N``) -> the commit that applied it."""
    protected_tests: list[str] | None = None
    """The person's test files at the start, when they are protected (None: not recorded)."""
    undone: list[int] = field(default_factory=list)
    """Attempts a restore undid: the next prompt says so once."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "default": self.default,
            "git": self.git.to_json() if self.git else None,
            "commits": dict(self.commits),
        }
        if self.protected_tests is not None:
            data["protected_tests"] = list(self.protected_tests)
        if self.undone:
            data["undone"] = list(self.undone)
        return data

    @classmethod
    def from_json(cls, value: Any) -> WorkspaceRecord | None:
        data = object_of(value, "workspace")
        if data is None:
            return None
        where = "workspace"
        git = field_of(data, "git", dict, optional=True, within=where)
        commits = field_of(data, "commits", dict, optional=True, within=where) or {}
        for key in commits:
            field_of(commits, key, str, within="workspace.commits")
        undone = field_of(data, "undone", list, optional=True, within=where) or []
        for number in undone:
            if isinstance(number, bool) or not isinstance(number, int):
                raise ValueError(f"workspace.undone holds {shown(number)}, not an attempt number")
        protected = "protected_tests" in data and data["protected_tests"] is not None
        default = field_of(data, "default", bool, optional=True, within=where)
        return cls(
            path=field_of(data, "path", str, within=where),
            default=True if default is None else default,
            git=GitRecord.from_json(git) if git is not None else None,
            commits=dict(commits),
            protected_tests=texts_of(data, "protected_tests", where) if protected else None,
            undone=list(undone),
        )


_TASK_STATUSES = {status.value: status for status in TaskStatus}


@record
class TaskProgress:
    id: str
    title: str
    status: TaskStatus = TaskStatus.PENDING
    first_attempt: int | None = None
    """The run attempt the task began at; None while pending."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status.value,
            "first_attempt": self.first_attempt,
        }

    @classmethod
    def from_json(cls, task: Any, where: str) -> TaskProgress:
        if not isinstance(task, dict):
            raise ValueError(f"{where} is {shown(task)}, expected an object")
        status = field_of(task, "status", str, optional=True, within=where)
        if status is not None and status not in _TASK_STATUSES:
            raise ValueError(f"{where}.status is {shown(status)}, not a task status")
        first = field_of(task, "first_attempt", int, optional=True, within=where)
        if first is not None and first < 0:
            raise ValueError(f"{where}.first_attempt is {first}, expected 0 or more")
        return cls(
            id=field_of(task, "id", str, within=where),
            title=field_of(task, "title", str, within=where),
            status=_TASK_STATUSES[status] if status else TaskStatus.PENDING,
            first_attempt=first,
        )


@record
class PlanProgress:
    tasks: list[TaskProgress]
    current: str | None = None
    """The id of the task the run is in; None before the first starts."""
    only: str | None = None
    """The task ``--task`` runs alone: once it passes the run ends, the others left as they
    are; None: the tasks in order."""
    planning_tokens: int = 0
    planning_cost_usd: float = 0.0
    """What the model's planning conversation took (none when the spec wrote the plan). It is
    no attempt, though its log is attempt 0's folder: see :meth:`planning_attempts`."""

    def planning_attempts(self) -> int:
        """The attempt numbers planning took before the first task: 1 when the model planned
        (its conversation is attempt 0's folder), 0 when the spec wrote the plan. The planning
        turn is not counted as an attempt anywhere (status, history, summaries, export)."""
        first = self.tasks[0].first_attempt if self.tasks else None
        return first or 0

    def current_task(self) -> TaskProgress | None:
        return next((task for task in self.tasks if task.id == self.current), None)

    def status_lines(self) -> list[str]:
        """One line per task for ``orch-tui status``, the current one marked."""
        total = len(self.tasks)
        return [
            f"{'▶' if task.id == self.current else ' '} {number}/{total} "
            f"{task.status.value:<8} {task.id}: {task.title}"
            for number, task in enumerate(self.tasks, start=1)
        ]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "tasks": [task.to_json() for task in self.tasks],
            "current": self.current,
        }
        if self.only:
            data["only"] = self.only
        if self.planning_tokens or self.planning_cost_usd:
            data["planning"] = {
                "tokens": self.planning_tokens,
                "cost_usd": round(self.planning_cost_usd, 6),
            }
        return data

    @classmethod
    def from_json(cls, value: Any) -> PlanProgress | None:
        if value is None:
            return None
        if not isinstance(value, dict) or not isinstance(value.get("tasks"), list):
            raise ValueError("bad plan: expected an object with a tasks list")
        return cls(
            tasks=[
                TaskProgress.from_json(task, f"plan.tasks[{number}]")
                for number, task in enumerate(value["tasks"], start=1)
            ],
            current=field_of(value, "current", str, optional=True, within="plan"),
            only=field_of(value, "only", str, optional=True, within="plan"),
            **_planning(value.get("planning")),
        )


def _planning(value: Any) -> dict[str, Any]:
    """``plan.planning`` read leniently: a figure for people, absent in older state files."""
    if not isinstance(value, dict):
        return {}
    tokens, cost = value.get("tokens"), value.get("cost_usd")
    return {
        "planning_tokens": tokens if isinstance(tokens, int) else 0,
        "planning_cost_usd": float(cost) if isinstance(cost, int | float) else 0.0,
    }


@record
class RoleRecord:
    """A role's last decision, in state.json's ``roles`` (flat: the attempt beside its fields)."""

    attempt: int
    decision: RoleDecision

    def to_json(self) -> dict[str, Any]:
        return {"attempt": self.attempt, **self.decision.to_json()}

    @classmethod
    def from_json(cls, value: Any, role: str) -> RoleRecord:
        where = f"roles.{role}"
        data = object_of(value, where) or {}
        attempt = field_of(data, "attempt", int, optional=True, within=where)
        try:
            decision = RoleDecision.from_json(
                {"model": "", "decision": "none", **data, "role": role}
            )
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where} is not a role's decision ({exc})") from None
        return cls(attempt=attempt or 0, decision=decision)
