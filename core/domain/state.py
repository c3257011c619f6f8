"""``state.json``: where the current run stands, written before every next step.

A corrupt or unknown file is never overwritten: :class:`StateError` (exit 3)
names the file and says how to reset.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from orch_tui.core.domain.asking import Question
from orch_tui.core.domain.cost import Usage
from orch_tui.core.domain.json_fields import count_of, field_of, object_of, shown, texts_of
from orch_tui.core.domain.roles import Role
from orch_tui.core.domain.state_records import (
    LastTest,
    PlanProgress,
    RoleRecord,
    WorkspaceRecord,
)
from orch_tui.core.util.atomic import Commit, json_bytes
from orch_tui.core.util.records import record
from orch_tui.core.util.timestamps import utc_now

STATE_VERSION = 1
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""What a run id may be: it names the run's folder in logs/, so never a path (``../x``, ``/x``)."""


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
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + os.urandom(2).hex()


@record
class State:
    run_id: str
    spec_path: str
    spec_hash: str
    max_retries: int
    state: RunState = RunState.INIT
    attempt: int = 0
    last_test: LastTest | None = None
    stop_reason: str | None = None
    last_error: str | None = None
    exit_code: int | None = None
    question: Question | None = None
    """While NEEDS_HELP: the question the run waits on."""
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    created_at: str = field(default_factory=utc_now)
    updated_at: str = field(default_factory=utc_now)
    workspace: WorkspaceRecord | None = None
    """Where the run works (core.workspace.run_workspace); None: a run from before it was kept."""
    roles: dict[Role, RoleRecord] = field(default_factory=dict)
    """With model.judge or model.verifier set: each role's last decision (core.loop.roles)."""
    plan: PlanProgress | None = None
    """Plan mode only: the tasks' progress."""
    follows: str | None = None
    """A change run (DESIGN section 16): the run whose project it changes, after a spec edit."""
    final_checks: LastTest | None = None
    """With ``checks.final``: how the final checks went when they last ran."""
    reopened_at: int | None = None
    """The attempt ``--continue`` / ``--guidance`` last reopened the run at: the no-progress
    window starts there (core.loop.retry)."""

    @property
    def retryable(self) -> bool:
        """Stopped by a model error (network, overload, bad key): nothing of the failed attempt
        was written, so asking the model again is safe. Other failures are final."""
        return self.state is RunState.FAILED and bool(self.last_error)

    @property
    def attempts_made(self) -> int:
        """The attempts the run has made: in plan mode the planning turn is none (status,
        history, the summary line and the verdict count the same way)."""
        if self.state in (RunState.INIT, RunState.PLANNING):
            return 0
        planning = self.plan.planning_attempts() if self.plan else 0
        return max(0, self.attempt + 1 - planning)

    def to_json(self) -> dict[str, Any]:
        plan = {} if self.plan is None else {"plan": self.plan.to_json()}
        roles = {role.value: record.to_json() for role, record in self.roles.items()}
        return {
            "version": STATE_VERSION,
            "run_id": self.run_id,
            "spec_path": self.spec_path,
            "spec_hash": self.spec_hash,
            "state": self.state.value,
            "attempt": self.attempt,
            "max_retries": self.max_retries,
            "last_test": self.last_test.to_json() if self.last_test else None,
            "stop_reason": self.stop_reason,
            "last_error": self.last_error,
            "exit_code": self.exit_code,
            "question": self.question.to_json() if self.question else None,
            "usage": self.usage.to_json(),
            "cost_usd": round(self.cost_usd, 6),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "workspace": self.workspace.to_json() if self.workspace else None,
            **({"roles": roles} if roles else {}),
            **plan,
            **({"follows": self.follows} if self.follows else {}),
            **({"reopened_at": self.reopened_at} if self.reopened_at is not None else {}),
            **({"final_checks": self.final_checks.to_json()} if self.final_checks else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> State:
        """The state ``data`` holds; ValueError naming the first field of the wrong shape."""
        if not isinstance(data, dict):
            raise ValueError("top level is not an object")
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"unknown version {data.get('version')!r} (expected {STATE_VERSION})")
        name = field_of(data, "state", str)
        try:
            state = RunState(name)
        except ValueError:
            raise ValueError(f"unknown state {shown(name)}") from None
        run_id = field_of(data, "run_id", str)
        if not RUN_ID.fullmatch(run_id):
            raise ValueError(f"run_id {run_id!r} is not a run id (letters, digits, . _ -)")
        return cls(
            run_id=run_id,
            spec_path=field_of(data, "spec_path", str),
            spec_hash=field_of(data, "spec_hash", str),
            max_retries=count_of(data, "max_retries"),
            state=state,
            attempt=count_of(data, "attempt"),
            last_test=LastTest.from_json(data.get("last_test")),
            stop_reason=field_of(data, "stop_reason", str, optional=True),
            last_error=field_of(data, "last_error", str, optional=True),
            exit_code=field_of(data, "exit_code", int, optional=True),
            question=_question(data.get("question")),
            usage=_usage(data.get("usage")),
            cost_usd=_cost(data.get("cost_usd")),
            created_at=field_of(data, "created_at", str),
            updated_at=field_of(data, "updated_at", str),
            workspace=WorkspaceRecord.from_json(data.get("workspace")),
            roles=_roles(data.get("roles")),
            plan=PlanProgress.from_json(data.get("plan")),
            final_checks=LastTest.from_json(data.get("final_checks")),
            follows=_follows(data.get("follows")),
            reopened_at=count_of(data, "reopened_at") if "reopened_at" in data else None,
        )


def _follows(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not RUN_ID.fullmatch(value):
        raise ValueError(f"follows is {shown(value)}, not a run id")
    return value


def _usage(value: Any) -> Usage:
    usage = object_of(value, "usage") or {}
    fields = Usage.__dataclass_fields__
    return Usage(**{k: count_of(usage, k, "usage") if k in usage else 0 for k in fields})


def _cost(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"cost_usd is {shown(value)}, expected a number of dollars")
    if value < 0:
        raise ValueError(f"cost_usd is {value}, expected 0 or more")
    return float(value)


def _question(value: Any) -> Question | None:
    data = object_of(value, "question")
    if data is None:
        return None
    field_of(data, "text", str, within="question")
    texts_of(data, "options", "question")
    return Question.from_json(data)


def _roles(value: Any) -> dict[Role, RoleRecord]:
    data = object_of(value, "roles") or {}
    roles = {}
    for name, decided in data.items():
        try:
            role = Role(name)
        except ValueError:
            raise ValueError(f"roles.{shown(name)} is not a role (judge, verifier)") from None
        roles[role] = RoleRecord.from_json(decided, name)
    return roles


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
