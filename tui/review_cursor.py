"""Where the reviewer's cursor is: a (file, hunk) position over a proposal.

Pure logic, no widgets, so every movement is unit-tested. Moves feel like
lazygit: `]`/`[` walk hunks across files, `}`/`{` jump files, and a decision
moves on to the next undecided hunk.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.proposal import Decisions, HunkDecision, Proposal


@dataclass
class ReviewCursor:
    proposal: Proposal
    file: int = 0
    hunk: int = 0

    @property
    def positions(self) -> list[tuple[int, int]]:
        """Every (file, hunk) in order; a file without hunks still has one stop."""
        stops: list[tuple[int, int]] = []
        for index, change in enumerate(self.proposal.changes):
            count = max(len(change.hunks), 1)
            stops += [(index, hunk) for hunk in range(count)]
        return stops

    def _index(self) -> int:
        stops = self.positions
        return stops.index((self.file, self.hunk)) if (self.file, self.hunk) in stops else 0

    def _go(self, position: tuple[int, int]) -> None:
        self.file, self.hunk = position

    def next_hunk(self) -> None:
        stops = self.positions
        if stops:
            self._go(stops[min(self._index() + 1, len(stops) - 1)])

    def previous_hunk(self) -> None:
        stops = self.positions
        if stops:
            self._go(stops[max(self._index() - 1, 0)])

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
        stops = self.positions
        if not stops:
            return False
        self._go(stops[-1])  # next_undecided starts after the cursor and wraps to the start
        if self.next_undecided(decisions):
            return True
        self._go(stops[0])
        return False

    def next_undecided(self, decisions: Decisions) -> bool:
        """Move to the next undecided hunk after the cursor (wrapping); False when none is left."""
        stops = self.positions
        start = self._index()
        for offset in range(1, len(stops) + 1):
            file, hunk = stops[(start + offset) % len(stops)]
            states = decisions.for_file(self.proposal.changes[file])
            if hunk >= len(states) or states[hunk] is HunkDecision.UNDECIDED:
                self._go((file, hunk))
                return True
        return False
