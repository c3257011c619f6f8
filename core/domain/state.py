"""``state.json``: where the current run stands, written before every next step.

A corrupt or unknown file is never overwritten: :class:`StateError` (exit 3)
names the file and says how to reset.
"""

from __future__ import annotations

import json
import math
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from orch_tui.core.domain.cost import Usage
from orch_tui.core.domain.events import utc_now
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.util.atomic import Commit, json_bytes

STATE_VERSION = 1
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""What a run id may be: it names the run's folder in logs/, so never a path (``../x``, ``/x``)."""
MAX_COUNT = 2**63
"""Above any real attempt, exit code or token count: a bigger number is a damaged file."""


class RunState(StrEnum):
    INIT = "INIT"
    PLANNING = "PLANNING"
    GENERATING = "GENERATING"
    REVIEWING = "REVIEWING"
    TESTING = "TESTING"
    PATCHING = "PATCHING"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    NEEDS_HELP = "NEEDS_HELP"
    """Waiting for a person's answer (``question`` says what); ``--guidance`` reopens it."""

    @property
    def terminal(self) -> bool:
        """The loop stops here; FAILED and NEEDS_HELP runs can be reopened with --continue."""
        return self in (RunState.SUCCESS, RunState.FAILED, RunState.NEEDS_HELP)


class StateError(Exception):
    """state.json cannot be trusted; it is left untouched."""


def new_run_id() -> str:
    """Sortable by time: ``20261121-194630-3fa2``."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


@dataclass
class State:
    run_id: str
    spec_path: str
    spec_hash: str
    max_retries: int
    state: RunState = RunState.INIT
    attempt: int = 0
    last_test: dict[str, Any] | None = None
    stop_reason: str | None = None
    last_error: str | None = None
    exit_code: int | None = None
    question: dict[str, Any] | None = None
    """While NEEDS_HELP: the question (text, options, recommendation, source)."""
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    created_at: str = field(default_factory=utc_now)
    updated_at: str = field(default_factory=utc_now)
    workspace: dict[str, Any] | None = None
    """Where the run works (core.run_workspace): path, default or not, git start and commits."""
    roles: dict[str, Any] | None = None
    """With model.judge or model.verifier set: each role's last decision by role name
    (``{"judge": {"attempt", "decision", "guidance", "question", ...}}``, core.roles)."""
    plan: dict[str, Any] | None = None
    """Plan mode only: ``{"tasks": [{"id", "title", "status", "first_attempt"}], "current": ID}``."""

    @property
    def retryable(self) -> bool:
        """Stopped by a model error (network, overload, bad key): nothing of the failed attempt
        was written, so asking the model again is safe. Other failures are final."""
        return self.state is RunState.FAILED and bool(self.last_error)

    def to_json(self) -> dict[str, Any]:
        plan = {} if self.plan is None else {"plan": self.plan}
        roles = {} if self.roles is None else {"roles": self.roles}
        return {
            "version": STATE_VERSION,
            "run_id": self.run_id,
            "spec_path": self.spec_path,
            "spec_hash": self.spec_hash,
            "state": self.state.value,
            "attempt": self.attempt,
            "max_retries": self.max_retries,
            "last_test": self.last_test,
            "stop_reason": self.stop_reason,
            "last_error": self.last_error,
            "exit_code": self.exit_code,
            "question": self.question,
            "usage": self.usage.to_json(),
            "cost_usd": round(self.cost_usd, 6),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "workspace": self.workspace,
            **roles,
            **plan,
        }

    @classmethod
    def from_json(cls, data: Any) -> State:
        """The state ``data`` holds; ValueError naming the first field of the wrong shape."""
        if not isinstance(data, dict):
            raise ValueError("top level is not an object")
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"unknown version {data.get('version')!r} (expected {STATE_VERSION})")
        name = _field(data, "state", str)
        try:
            state = RunState(name)
        except ValueError:
            raise ValueError(f"unknown state {_shown(name)}") from None
        run_id = _field(data, "run_id", str)
        if not RUN_ID.fullmatch(run_id):
            raise ValueError(f"run_id {run_id!r} is not a run id (letters, digits, . _ -)")
        return cls(
            run_id=run_id,
            spec_path=_field(data, "spec_path", str),
            spec_hash=_field(data, "spec_hash", str),
            max_retries=_count(data, "max_retries"),
            state=state,
            attempt=_count(data, "attempt"),
            last_test=_last_test(data.get("last_test")),
            stop_reason=_field(data, "stop_reason", str, optional=True),
            last_error=_field(data, "last_error", str, optional=True),
            exit_code=_field(data, "exit_code", int, optional=True),
            question=_question(data.get("question")),
            usage=_usage(data.get("usage")),
            cost_usd=_cost(data.get("cost_usd")),
            created_at=_field(data, "created_at", str),
            updated_at=_field(data, "updated_at", str),
            workspace=_workspace(data.get("workspace")),
            roles=_roles(data.get("roles")),
            plan=_plan_or_none(data.get("plan")),
        )


def _field(
    data: dict[str, Any], key: str, kind: type, *, optional: bool = False, within: str = ""
) -> Any:
    """``data[key]`` if it is a ``kind`` (None too, when ``optional``); else ValueError.

    ``within`` names the object ``data`` sits in, for the message (``last_test``)."""
    name = f"{within}.{key}" if within else key
    if key not in data and not optional:
        raise ValueError(f"missing key {name!r}")
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValueError(f"{name} is {_shown(value)}, expected {_KINDS.get(kind, kind.__name__)}")
    if isinstance(value, int) and not -MAX_COUNT < value < MAX_COUNT:
        raise ValueError(f"{name} is {_shown(value)}, out of range")
    return value


_KINDS = {
    str: "a string",
    int: "a whole number",
    dict: "an object",
    list: "a list",
    bool: "true or false",
}


def _shown(value: Any) -> str:
    text = (
        json.dumps(value)
        if isinstance(value, str | int | float | bool | None)
        else type(value).__name__
    )
    return text if len(text) <= 40 else text[:39] + "…"


def _count(data: dict[str, Any], key: str, within: str = "") -> int:
    value: int = _field(data, key, int, within=within)
    if value < 0:
        raise ValueError(f"{within + '.' if within else ''}{key} is {value}, expected 0 or more")
    return value


def _object(value: Any, key: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = _field({key: value}, key, dict, optional=True)
    return found


def _usage(value: Any) -> Usage:
    usage = _object(value, "usage") or {}
    fields = Usage.__dataclass_fields__
    return Usage(**{k: _count(usage, k, "usage") if k in usage else 0 for k in fields})


def _cost(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"cost_usd is {_shown(value)}, expected a number of dollars")
    if value < 0:
        raise ValueError(f"cost_usd is {value}, expected 0 or more")
    return float(value)


def _last_test(value: Any) -> dict[str, Any] | None:
    last = _object(value, "last_test")
    if last is not None:
        _field(last, "summary", str, optional=True, within="last_test")
        _texts(last, "failing", "last_test")
    return last


def _question(value: Any) -> dict[str, Any] | None:
    question = _object(value, "question")
    if question is not None:
        _field(question, "text", str, within="question")
        _texts(question, "options", "question")
    return question


def _texts(data: dict[str, Any], key: str, within: str) -> None:
    """``data[key]``, when there, must be a list of strings."""
    items = _field(data, key, list, optional=True, within=within) or []
    if not all(isinstance(item, str) for item in items):
        raise ValueError(f"{within}.{key} holds something other than text")


def _workspace(value: Any) -> dict[str, Any] | None:
    record = _object(value, "workspace")
    if record is not None:
        _field(record, "path", str, within="workspace")
        _field(record, "default", bool, optional=True, within="workspace")
        git = _field(record, "git", dict, optional=True, within="workspace")
        if git is not None:
            _field(git, "branch", str, within="workspace.git")
            for key in ("start_branch", "start_commit"):
                _field(git, key, str, optional=True, within="workspace.git")
        commits = _field(record, "commits", dict, optional=True, within="workspace") or {}
        for key in commits:
            _field(commits, key, str, within="workspace.commits")
        _texts(record, "protected_tests", "workspace")
        for number in _field(record, "undone", list, optional=True, within="workspace") or []:
            if isinstance(number, bool) or not isinstance(number, int):
                raise ValueError(f"workspace.undone holds {_shown(number)}, not an attempt number")
    return record


def _roles(value: Any) -> dict[str, Any] | None:
    roles = _object(value, "roles")
    for role, decided in (roles or {}).items():
        _object(decided, f"roles.{role}")
    return roles


def _plan_or_none(plan: Any) -> dict[str, Any] | None:
    if plan is None:
        return None
    if not isinstance(plan, dict) or not isinstance(plan.get("tasks"), list):
        raise ValueError("bad plan: expected an object with a tasks list")
    _field(plan, "current", str, optional=True, within="plan")
    for number, task in enumerate(plan["tasks"], start=1):
        where = f"plan.tasks[{number}]"
        if not isinstance(task, dict):
            raise ValueError(f"{where} is {_shown(task)}, expected an object")
        _field(task, "id", str, within=where)
        _field(task, "title", str, within=where)
        status = _field(task, "status", str, optional=True, within=where)
        if status is not None and status not in _TASK_STATUSES:
            raise ValueError(f"{where}.status is {_shown(status)}, not a task status")
        first = _field(task, "first_attempt", int, optional=True, within=where)
        if first is not None and first < 0:
            raise ValueError(f"{where}.first_attempt is {first}, expected 0 or more")
    return plan


_TASK_STATUSES = frozenset(status.value for status in TaskStatus)


class StateStore:
    """Reads and atomically writes one ``state.json``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> State | None:
        """The saved state, ``None`` when there is none; :class:`StateError` when unusable."""
        if not self.path.exists():
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return State.from_json(data)
        except (
            OSError,
            UnicodeDecodeError,
            json.JSONDecodeError,
            ValueError,
            TypeError,
            RecursionError,
        ) as exc:
            raise StateError(
                f"{self.path} is corrupt or unknown ({exc}). It was left untouched: "
                "move it aside, or run `orch-tui reset` to clear it (logs/ is kept)."
            ) from None

    def save(self, state: State, files: Commit | None = None) -> None:
        """Write ``state`` durably; ``files``, the files it points to, are made durable first."""
        state.updated_at = utc_now()
        (files or Commit()).commit(self.path, json_bytes(state.to_json()))

    def clear(self) -> bool:
        if self.path.exists():
            self.path.unlink()
            return True
        return False
