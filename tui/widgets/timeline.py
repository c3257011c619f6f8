"""The attempt timeline: one line per attempt, updated from engine events."""

from __future__ import annotations

from textual.widgets import OptionList
from textual.widgets.option_list import Option


class Timeline(OptionList):
    """Attempt 0 is the generation; later attempts are patches."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._steps: dict[int, list[str]] = {}

    def note(self, attempt: int, text: str) -> None:
        """Add one step to an attempt's line (state, proposal size, test result)."""
        self._steps.setdefault(attempt, []).append(text)
        self._redraw(attempt)

    def replace_last(self, attempt: int, text: str) -> None:
        steps = self._steps.setdefault(attempt, [])
        if steps:
            steps[-1] = text
        else:
            steps.append(text)
        self._redraw(attempt)

    def _redraw(self, highlight: int) -> None:
        self.clear_options()
        for attempt in sorted(self._steps):
            label = "generate" if attempt == 0 else "patch"
            steps = " · ".join(self._steps[attempt])
            self.add_option(Option(f"#{attempt} {label}: {steps}", id=f"attempt-{attempt}"))
        self.highlighted = sorted(self._steps).index(highlight)
