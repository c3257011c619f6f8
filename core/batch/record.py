"""``batch.json``: the batch's options and where each of its runs stands.

Written atomically after every change, so a batch stopped by Ctrl+C, a crash or a killed worker
is resumed by the same command: finished runs are skipped, the others resume from their own
``state.json``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from orch_tui.core.util.atomic import write_json_atomic
from orch_tui.core.util.records import record

BATCH_FILE = "batch.json"
BATCH_VERSION = 1


class RunStatus(StrEnum):
    """Where a batch's run stands, as the batch sees it."""

    PENDING = "pending"
    """Not started yet (or stopped before its first step)."""
    RUNNING = "running"
    STOPPED = "stopped"
    """Interrupted or its worker died: the next batch command resumes it."""
    FINISHED = "finished"
    """SUCCESS, FAILED or NEEDS_HELP: the next batch command leaves it as it is."""
    SKIPPED = "skipped"
    """Not started: the batch's budget was spent."""
    REWORKING = "reworking"
    """Sent back from the inbox: a new attempt runs in the background; no batch starts it."""


@record
class RunRecord:
    """One spec's run inside the batch: what the report and the live table show."""

    name: str
    spec: str
    status: RunStatus = RunStatus.PENDING
    state: str = ""
    run_id: str = ""
    attempts: int = 0
    tests: str = ""
    tests_passed: bool = False
    tokens: int = 0
    cost_usd: float = 0.0
    elapsed_s: float = 0.0
    stop_reason: str = ""
    evidence: str = ""
    """At SUCCESS, the verdict's evidence line: tests passing (added, rewritten, weakened) and
    changed lines no test runs ("" before the run ends, or from an older run)."""
    exit_code: int | None = None
    cap_usd: float | None = None
    """The share of the batch budget this run was started with (``--max-cost-usd``)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        record = cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
        record.status = RunStatus(record.status)
        return record


@record
class BatchRecord:
    """The whole batch: its id, the options every run shares, and the runs in spec order."""

    batch_id: str
    created_at: str
    options: dict[str, Any]
    runs: list[RunRecord] = field(default_factory=list)
    wall_s: float = 0.0
    """Seconds the batch commands ran, summed over every resume."""

    def run(self, name: str) -> RunRecord:
        return next(r for r in self.runs if r.name == name)

    @property
    def spent_usd(self) -> float:
        return sum(r.cost_usd for r in self.runs)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": BATCH_VERSION,
            "batch_id": self.batch_id,
            "created_at": self.created_at,
            "options": self.options,
            "wall_s": round(self.wall_s, 3),
            "runs": [r.to_json() for r in self.runs],
        }

    def save(self, folder: Path) -> None:
        write_json_atomic(folder / BATCH_FILE, self.to_json())


class BatchFileError(Exception):
    """``batch.json`` cannot be read: the message names the file and what is wrong."""


def load_batch(folder: Path) -> BatchRecord | None:
    """The batch recorded in ``folder``; None when there is none yet."""
    path = folder / BATCH_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != BATCH_VERSION:
            raise ValueError(f"version {data.get('version')!r}, expected {BATCH_VERSION}")
        return BatchRecord(
            batch_id=str(data["batch_id"]),
            created_at=str(data["created_at"]),
            options=dict(data["options"]),
            runs=[RunRecord.from_json(r) for r in data["runs"]],
            wall_s=float(data.get("wall_s", 0.0)),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BatchFileError(
            f"{path}: cannot be read ({exc}); move it aside to start the batch again"
        ) from None
