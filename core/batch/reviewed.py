"""What the inbox remembers: ``review.json`` in a run's folder, written once the person handled it.

A run leaves the inbox when its review is recorded for the attempt it finished at; a run the
person sent back to the model finishes at a later attempt and comes back for a new review.
The decisions made so far (``review-decisions.json``) are kept while a review is open, so
leaving the review screen and opening the run again finds them as they were.
"""

from __future__ import annotations

import json
from dataclasses import asdict, field
from pathlib import Path
from typing import Any

from orch_tui.core.domain.proposal import Decisions
from orch_tui.core.util.atomic import write_json_atomic
from orch_tui.core.util.records import record
from orch_tui.core.util.timestamps import utc_now

REVIEW_FILE = "review.json"
DECISIONS_FILE = "review-decisions.json"


@record
class ReviewRecord:
    """How the person handled one finished attempt of a batch run."""

    run_id: str
    attempt: int
    landed: list[str] = field(default_factory=list)
    """Files written to the person's project."""
    conflicts: list[str] = field(default_factory=list)
    """Files not written: the person's copy changed in a way the run's change does not merge with."""
    rejected_hunks: int = 0
    sent_back: str = ""
    """The reason the rejected hunks went back to the model with; empty: they were dropped."""
    target: str = ""
    at: str = field(default_factory=utc_now)


def read_review(folder: Path) -> ReviewRecord | None:
    """The run's last review; None when it has none (or the file cannot be read)."""
    try:
        data = json.loads((folder / REVIEW_FILE).read_text(encoding="utf-8"))
        fields = ReviewRecord.__dataclass_fields__
        return ReviewRecord(**{k: v for k, v in data.items() if k in fields})
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def is_reviewed(folder: Path, run_id: str, attempt: int) -> bool:
    """The run's attempt ``attempt`` was handled already."""
    review = read_review(folder)
    return review is not None and (review.run_id, review.attempt) == (run_id, attempt)


def save_review(folder: Path, review: ReviewRecord) -> None:
    write_json_atomic(folder / REVIEW_FILE, asdict(review))
    (folder / DECISIONS_FILE).unlink(missing_ok=True)


def load_decisions(folder: Path, run_id: str, attempt: int) -> Decisions | None:
    """The decisions of a review left open on this attempt; None when there are none."""
    try:
        data: Any = json.loads((folder / DECISIONS_FILE).read_text(encoding="utf-8"))
        if (data.get("run_id"), data.get("attempt")) != (run_id, attempt):
            return None
        return Decisions.from_json(data["decisions"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def save_decisions(folder: Path, run_id: str, attempt: int, decisions: Decisions) -> None:
    write_json_atomic(
        folder / DECISIONS_FILE,
        {"run_id": run_id, "attempt": attempt, "decisions": decisions.to_json()},
    )
