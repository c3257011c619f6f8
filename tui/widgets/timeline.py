"""The attempt timeline: one line per attempt, updated from engine events."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from orch_tui.core.domain.asking import QuestionSource
from orch_tui.core.domain.attempt_kind import attempt_kinds
from orch_tui.core.domain.events import Event, GuidanceGiven, QuestionAsked, TaskStarted
from orch_tui.core.domain.outcome import DECIDED_OUTCOMES
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.tui.widgets.sized_by_layout import SizedByLayout

if TYPE_CHECKING:  # a resumed run's attempts only: the history's reader is not on a launch's path
    from orch_tui.core.history.detail import AttemptDetail


class Timeline(OptionList, SizedByLayout):
    """Attempt 0 is the generation; later attempts are patches, and the attempt after a
    question is labelled as what it is (:mod:`~orch_tui.core.domain.attempt_kind`).

    In plan mode each task's first attempt is its generation, and a task's attempts sit
    under a line naming the task.

    Every note redraws the lines (none, then all of them again): that repaints the timeline
    alone, whose height the sidebar's layout fixes (:class:`SizedByLayout`); ``OptionList``
    updates the scrollbars and the scroll limits itself.
    """

    def __init__(self, **kwargs: object) -> None:
        # Steps hold test names and summaries: plain text, never markup.
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]
        self._steps: dict[int, list[str]] = {}
        self._tasks: dict[int, str] = {}
        """First attempt of a task -> the line that heads its attempts."""
        self._model_asked: set[int] = set()
        self._answered: set[int] = set()

    def label_from(self, event: Event) -> None:
        """What a question asked in an attempt, or the answer that goes into one, makes of
        the attempts' labels; other events change none."""
        if isinstance(event, GuidanceGiven):
            self._answered.add(event.attempt)
        elif isinstance(event, QuestionAsked) and event.source == QuestionSource.MODEL:
            self._model_asked.add(event.attempt)

    def start_task(self, task: TaskStarted) -> None:
        self._tasks[task.first_attempt] = (
            f"task {task.index + 1}/{task.total} · {task.task_id}: {task.title}"
        )
        self._steps.setdefault(task.first_attempt, [])
        self._redraw(task.first_attempt)

    def note(self, attempt: int, text: str) -> None:
        """Add one step to an attempt's line (state, proposal size, test result)."""
        self._steps.setdefault(attempt, []).append(text)
        self._redraw(attempt)

    def load(self, attempts: Iterable[AttemptDetail]) -> None:
        """Show a resumed run's earlier attempts, as its logs tell them."""
        last = None
        previous_task: str | None = None
        for attempt in attempts:
            steps = self._steps.setdefault(attempt.number, [])
            if attempt.model_asked:
                self._model_asked.add(attempt.number)
            if attempt.answered:
                self._answered.add(attempt.number)
            if attempt.proposal is not None:
                proposal = attempt.proposal
                steps.append(
                    f"{plural(proposal.file_count, 'file')} +{proposal.added} -{proposal.removed}"
                )
            if attempt.outcome in DECIDED_OUTCOMES:
                mark = "✓ " if attempt.outcome == "passed" else "✗ "
                steps.append(mark + (attempt.summary or attempt.outcome))
            else:
                steps.append(attempt.outcome.lower())
            if attempt.task and attempt.task != previous_task:
                self._tasks[attempt.number] = f"task {attempt.task}"
            previous_task = attempt.task
            last = attempt.number
        if last is not None:
            self._redraw(last)

    def _redraw(self, highlight: int) -> None:
        self.clear_options()
        highlighted = 0
        kinds = attempt_kinds(self._steps, self._tasks, self._model_asked, self._answered)
        for attempt in sorted(self._steps):
            if attempt in self._tasks:
                self.add_option(
                    Option(
                        Text(escape_controls(self._tasks[attempt])),
                        id=f"task-{attempt}",
                        disabled=True,
                    )
                )
            label = kinds[attempt]
            steps = " · ".join(self._steps[attempt])
            if attempt == highlight:
                highlighted = self.option_count
            indent = "  " if self._tasks else ""
            # Text, never markup, control characters spelt out: a step can quote the model.
            line = Text(escape_controls(f"{indent}#{attempt} {label}: {steps}"))
            self.add_option(Option(line, id=f"attempt-{attempt}"))
        self.highlighted = highlighted
