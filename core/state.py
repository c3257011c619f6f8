"""``state.json``: where the current run stands, written before every next step.

A corrupt or unknown file is never overwritten: :class:`StateError` (exit 3)
names the file and says how to reset.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from orch_tui.core.atomic import Commit, json_bytes
from orch_tui.core.cost import Usage
from orch_tui.core.events import utc_now

STATE_NAME = "state.json"
STATE_VERSION = 1


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
        if not isinstance(data, dict):
            raise ValueError("top level is not an object")
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"unknown version {data.get('version')!r} (expected {STATE_VERSION})")
        try:
            state = RunState(data["state"])
        except ValueError:
            raise ValueError(f"unknown state {data['state']!r}") from None
        attempt = data["attempt"]
        if not isinstance(attempt, int) or attempt < 0:
            raise ValueError(f"bad attempt {attempt!r}")
        return cls(
            run_id=str(data["run_id"]),
            spec_path=str(data["spec_path"]),
            spec_hash=str(data["spec_hash"]),
            max_retries=int(data["max_retries"]),
            state=state,
            attempt=attempt,
            last_test=data.get("last_test"),
            stop_reason=data.get("stop_reason"),
            last_error=data.get("last_error"),
            exit_code=data.get("exit_code"),
            question=data.get("question"),
            usage=Usage.from_json(data.get("usage")),
            cost_usd=float(data.get("cost_usd") or 0.0),
            created_at=str(data["created_at"]),
            updated_at=str(data["updated_at"]),
            workspace=data.get("workspace"),
            roles=data.get("roles") if isinstance(data.get("roles"), dict) else None,
            plan=_plan_or_none(data.get("plan")),
        )


def _plan_or_none(plan: Any) -> dict[str, Any] | None:
    if plan is None:
        return None
    if not isinstance(plan, dict) or not isinstance(plan.get("tasks"), list):
        raise ValueError("bad plan: expected an object with a tasks list")
    return plan


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
            KeyError,
            ValueError,
            TypeError,
        ) as exc:
            reason = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            raise StateError(
                f"{self.path} is corrupt or unknown ({reason}). It was left untouched: "
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
