"""A finished run's verdict line, read back from its event log (the batch report shows it)."""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.runlog import layout


def verdict_line(log_dir: Path) -> str:
    """The evidence summary of the run logged in ``log_dir`` (``31 tests pass (12 added, 0
    rewritten, 0 weakened); 3 of 140 changed lines run by no test``); "" when the run did not
    end in SUCCESS, its log is unreadable, or it predates the evidence.

    The event set is imported here, when a run has ended: ``batch --help`` stays light."""
    from orch_tui.core.domain.events import RunFinished
    from orch_tui.core.runlog.reader import read_events

    try:
        events = read_events(log_dir / layout.EVENTS).events
    except OSError:
        return ""
    finished = [e for e in events if isinstance(e, RunFinished)]
    evidence = finished[-1].evidence if finished else None
    summary = evidence.get("summary") if isinstance(evidence, dict) else None
    return summary if isinstance(summary, str) else ""
