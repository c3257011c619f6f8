"""The one interface between the engine and whoever reviews a proposal.

The engine hands a :class:`ReviewSession` to a :class:`Reviewer` and waits.
The headless reviewer returns at once (everything undecided lands); the TUI
reviewer waits for the person. Every decision is persisted as it is made, so a
quit mid-review reopens on the same proposal with the same decisions.

:class:`ReviewCursor` is where the reviewer is in a proposal: pure logic, no widgets, so every
movement is unit-tested. Moves feel like lazygit: ``]``/``[`` walk hunks across files,
``}``/``{`` jump files, and a decision moves on to the next undecided hunk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from orch_tui.core.domain.plan import Plan
from orch_tui.core.util.records import record

if TYPE_CHECKING:  # a review's: --auto's reviewer is made before the first request without it
    from orch_tui.core.domain.proposal import Decisions, HunkDecision, Proposal


class ReviewAborted(Exception):
    """The person left mid-review; the run stays in REVIEWING and resumes there."""


class ReviewSession:
    """One proposal under review: the decisions so far, and what the reviewer needs to know."""

    def __init__(
        self,
        attempt: int,
        proposal: Proposal,
        decisions: Decisions,
        persist: Callable[[Decisions], None],
        failing_before: list[str] | None = None,
    ) -> None:
        self.attempt = attempt
        self.proposal = proposal
        self.decisions = decisions
        self.failing_before = failing_before
        """The tests failing before this attempt (the last test run's); None before any run."""
        self._persist = persist
        self._effective = self._with_edits()
        # Every file is diffed here, on the engine's thread that makes the session (hunks are
        # cached on the FileChange), so the screen showing it never diffs on the UI thread.
        _ = self._effective.hunk_count

    def _with_edits(self) -> Proposal:
        from orch_tui.core.domain.proposal import (
            effective_proposal,
        )  # a review's, not --auto's start

        return effective_proposal(self.proposal, self.decisions)

    @property
    def effective(self) -> Proposal:
        """The proposal with the person's hand edits in place; recomputed only after an edit."""
        return self._effective

    def counts(self) -> tuple[int, int, int]:
        """(accepted, rejected, undecided) hunks of the proposal as it would land."""
        return self.decisions.tally(self._effective)

    def decide(self, path: str, hunk_index: int, decision: HunkDecision) -> None:
        self.decisions.set(path, hunk_index, decision)
        self._persist(self.decisions)

    def decide_file(self, path: str, decision: HunkDecision) -> None:
        self.decisions.set_file(path, decision)
        self._persist(self.decisions)

    def edit(self, path: str, text: str) -> None:
        self.decisions.edit(path, text)
        self._effective = self._with_edits()
        self._persist(self.decisions)

    def reject_all(self, reason: str) -> None:
        self.decisions.reject_reason = reason
        self._persist(self.decisions)


@record
class ReviewCursor:
    """Where the reviewer is: a (file, hunk) stop. A move looks at the files next to the
    cursor only, never the whole proposal: a key on a 200-file proposal costs what it costs
    on a 2-file one."""

    proposal: Proposal
    file: int = 0
    hunk: int = 0

    @property
    def positions(self) -> list[tuple[int, int]]:
        """Every (file, hunk) in order; a file without hunks still has one stop."""
        return [
            (index, hunk)
            for index, change in enumerate(self.proposal.changes)
            for hunk in range(self._stops_in(index))
        ]

    def _stops_in(self, file: int) -> int:
        return max(len(self.proposal.changes[file].hunks), 1)

    def _at_a_stop(self) -> bool:
        changes = self.proposal.changes
        return 0 <= self.file < len(changes) and 0 <= self.hunk < self._stops_in(self.file)

    def _go(self, position: tuple[int, int]) -> None:
        self.file, self.hunk = position

    def next_hunk(self) -> None:
        if not self.proposal.changes:
            return
        if not self._at_a_stop():
            self._go((0, 0))
        if self.hunk + 1 < self._stops_in(self.file):
            self.hunk += 1
        elif self.file + 1 < len(self.proposal.changes):
            self._go((self.file + 1, 0))

    def previous_hunk(self) -> None:
        if not self.proposal.changes:
            return
        if not self._at_a_stop():
            self._go((0, 0))
        elif self.hunk > 0:
            self.hunk -= 1
        elif self.file > 0:
            self._go((self.file - 1, self._stops_in(self.file - 1) - 1))

    def next_file(self) -> None:
        if self.file + 1 < len(self.proposal.changes):
            self._go((self.file + 1, 0))

    def previous_file(self) -> None:
        """The previous file's first hunk; on the first file, its first hunk."""
        if self.proposal.changes:
            self._go((max(self.file - 1, 0), 0))

    def select_file(self, index: int) -> None:
        if 0 <= index < len(self.proposal.changes):
            self._go((index, 0))

    def first_undecided(self, decisions: Decisions) -> bool:
        """Move to the first undecided hunk of the proposal; stay on the first stop when none is."""
        changes = self.proposal.changes
        if not changes:
            return False
        last = len(changes) - 1
        self._go((last, self._stops_in(last) - 1))  # next_undecided starts after the cursor
        if self.next_undecided(decisions):
            return True
        self._go((0, 0))
        return False

    def next_undecided(self, decisions: Decisions) -> bool:
        """Move to the next undecided hunk after the cursor (wrapping); False when none is left.

        Files are looked at one by one from the cursor's, so the search ends at the first
        undecided hunk rather than listing every stop of the proposal."""
        from orch_tui.core.domain.proposal import HunkDecision

        changes = self.proposal.changes
        if not changes:
            return False
        start_file, start_hunk = (self.file, self.hunk) if self._at_a_stop() else (0, 0)
        for step in range(len(changes) + 1):
            file = (start_file + step) % len(changes)
            states = decisions.for_file(changes[file])
            first = start_hunk + 1 if step == 0 else 0
            last = start_hunk + 1 if step == len(changes) else self._stops_in(file)
            for hunk in range(first, last):
                if hunk >= len(states) or states[hunk] is HunkDecision.UNDECIDED:
                    self._go((file, hunk))
                    return True
        return False


class Reviewer(Protocol):
    holds_locked_tests: bool
    """True for a person: an undecided hunk of a locked test file does not land (it needs its
    own accept); False for ``--auto``, whose model may not edit locked tests in the first place
    unless ``safety.allow_test_edits`` says so."""

    def review(self, session: ReviewSession) -> None:
        """Return when the decisions in ``session`` are final; raise ReviewAborted to leave."""

    def review_plan(self, plan: Plan) -> Plan:
        """The plan as the person approved it (edited, reordered, trimmed); ReviewAborted to leave."""

    def accept_rewritten(self, tests: list[str]) -> bool:
        """The checks passed, but ``tests`` (node ids) fail in the form they had before the
        attempt: were they rightly rewritten? SUCCESS needs a person's yes."""


class AcceptAllReviewer:
    """``--auto``: every proposal lands as the model wrote it."""

    holds_locked_tests = False

    def review(self, session: ReviewSession) -> None:
        return None

    def review_plan(self, plan: Plan) -> Plan:
        return plan

    def accept_rewritten(self, tests: list[str]) -> bool:
        return False  # no person to ask: a pass bought by rewriting a test is refused
