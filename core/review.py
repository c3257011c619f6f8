"""The one interface between the engine and whoever reviews a proposal.

The engine hands a :class:`ReviewSession` to a :class:`Reviewer` and waits.
The headless reviewer returns at once (everything undecided lands); the TUI
reviewer waits for the person. Every decision is persisted as it is made, so a
quit mid-review reopens on the same proposal with the same decisions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from core.proposal import Decisions, HunkDecision, Proposal, effective_proposal


class ReviewAborted(Exception):
    """The person left mid-review; the run stays in REVIEWING and resumes there."""


class ReviewSession:
    def __init__(
        self,
        attempt: int,
        proposal: Proposal,
        decisions: Decisions,
        persist: Callable[[Decisions], None],
    ) -> None:
        self.attempt = attempt
        self.proposal = proposal
        self.decisions = decisions
        self._persist = persist

    @property
    def effective(self) -> Proposal:
        """The proposal with the person's hand edits in place."""
        return effective_proposal(self.proposal, self.decisions)

    def decide(self, path: str, hunk_index: int, decision: HunkDecision) -> None:
        self.decisions.set(path, hunk_index, decision)
        self._persist(self.decisions)

    def decide_file(self, path: str, decision: HunkDecision) -> None:
        self.decisions.set_file(path, decision)
        self._persist(self.decisions)

    def edit(self, path: str, text: str) -> None:
        self.decisions.edit(path, text)
        self._persist(self.decisions)

    def reject_all(self, reason: str) -> None:
        self.decisions.reject_reason = reason
        self._persist(self.decisions)


class Reviewer(Protocol):
    def review(self, session: ReviewSession) -> None:
        """Return when the decisions in ``session`` are final; raise ReviewAborted to leave."""


class AcceptAllReviewer:
    """``--auto``: every proposal lands as the model wrote it."""

    def review(self, session: ReviewSession) -> None:
        return None
