"""The attempt timeline: one line per attempt, updated from engine events."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import OptionList
from textual.widgets.option_list import Option

from core.history import DECIDED_OUTCOMES, AttemptDetail


class Timeline(OptionList):
    """Attempt 0 is the generation; later attempts are patches."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._steps: dict[int, list[str]] = {}

    def note(self, attempt: int, text: str) -> None:
        """Add one step to an attempt's line (state, proposal size, test result)."""
        self._steps.setdefault(attempt, []).append(text)
        self._redraw(attempt)

    def load(self, attempts: Iterable[AttemptDetail]) -> None:
        """Show a resumed run's earlier attempts, as its logs tell them."""
        last = None
        for attempt in attempts:
            steps = self._steps.setdefault(attempt.number, [])
            if attempt.proposal is not None:
                proposal = attempt.proposal
                steps.append(f"{proposal.file_count} files +{proposal.added} -{proposal.removed}")
            if attempt.outcome in DECIDED_OUTCOMES:
                mark = "✓ " if attempt.outcome == "passed" else "✗ "
                steps.append(mark + (attempt.summary or attempt.outcome))
            else:
                steps.append(attempt.outcome.lower())
            last = attempt.number
        if last is not None:
            self._redraw(last)

    def _redraw(self, highlight: int) -> None:
        self.clear_options()
        for attempt in sorted(self._steps):
            label = "generate" if attempt == 0 else "patch"
            steps = " · ".join(self._steps[attempt])
            self.add_option(Option(f"#{attempt} {label}: {steps}", id=f"attempt-{attempt}"))
        self.highlighted = sorted(self._steps).index(highlight)
