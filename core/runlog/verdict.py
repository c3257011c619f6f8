"""A finished run's evidence, read back from its event log (the batch report and ``status``).

Read as plain JSON, without the event set: ``status --json`` and ``batch`` stay light."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orch_tui.core.runlog import layout

_FINISHED = "run_finished"
"""``EventKind.RUN_FINISHED``'s value (the event set is not imported here)."""


def run_evidence(log_dir: Path) -> dict[str, Any] | None:
    """The ``evidence`` fields of the last ``run_finished`` event of the run logged in
    ``log_dir`` (``core.domain.evidence.Verdict.to_json``: what ``--auto --json``'s last record
    carries); None when the run did not end in SUCCESS, its log is unreadable, or it predates
    the evidence. A torn or unreadable line is skipped."""
    try:
        text = (log_dir / layout.EVENTS).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in reversed(text.splitlines()):
        if _FINISHED not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("event") == _FINISHED:
            evidence = record.get("evidence")
            return evidence if isinstance(evidence, dict) else None
    return None


def verdict_line(log_dir: Path) -> str:
    """The evidence summary of the run logged in ``log_dir`` (``31 tests pass (12 added, 0
    rewritten, 0 weakened); 3 of 140 changed lines run by no test``); "" when there is none
    (:func:`run_evidence`)."""
    summary = (run_evidence(log_dir) or {}).get("summary")
    return summary if isinstance(summary, str) else ""
