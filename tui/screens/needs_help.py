"""The needs-help dialog: the run's question, its options, and a box for free guidance.

A digit picks an option at once; tab moves to the text box, where enter sends what was typed
(a bare option number there picks that option too). Escape closes the dialog and the run stays
NEEDS_HELP: it asks again next time.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from orch_tui.core.domain.asking import Question
from orch_tui.core.util.terminal_text import escape_controls

MAX_OPTIONS = 9


class NeedsHelpScreen(ModalScreen[str | None]):
    """Dismissed with the person's answer, or None when they close it unanswered."""

    CSS_PATH = ["dialogs.tcss", "needs_help.tcss"]  # .dialog and ModalScreen: dialogs.tcss
    AUTO_FOCUS = ""
    """Nothing focused at first, so a digit picks an option instead of typing into the box."""
    BINDINGS: ClassVar[list[BindingType]] = [
        *(
            Binding(str(n), f"pick({n})", f"Option {n}", show=False, id=f"needs_help.pick_{n}")
            for n in range(1, MAX_OPTIONS + 1)
        ),
        Binding("escape", "close", "Close", id="needs_help.close"),
    ]

    def __init__(self, question: Question | None) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        question = self.question
        with Vertical(id="needs-help-dialog", classes="dialog"):
            if question is None:
                yield Label("Guidance for the model's next attempt", id="needs-help-title")
            else:
                title = "The model asks" if question.source == "model" else "The run is stuck"
                yield Label(title, id="needs-help-title")
                yield Static(
                    Text(escape_controls(question.text, newlines=True)), id="needs-help-question"
                )
                options = Text()
                for number, option in enumerate(question.options[:MAX_OPTIONS], 1):
                    options.append(f"{number}  ", style="bold")
                    options.append(escape_controls(option) + "\n")
                yield Static(options, id="needs-help-options")
                if question.recommendation:
                    yield Static(
                        Text(escape_controls(f"Recommended: {question.recommendation}")),
                        id="needs-help-recommendation",
                    )
            yield Input(placeholder="type guidance for the model; enter sends", id="guidance")
            picks = "a digit picks an option · " if question and question.options else ""
            yield Label(
                f"{picks}tab, then type: free guidance · escape closes (the run waits)",
                id="needs-help-keys",
            )

    def action_pick(self, number: int) -> None:
        if self.question is not None and 1 <= number <= len(self.question.options):
            self.dismiss(self.question.options[number - 1])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        answer = event.value.strip()
        if not answer:
            self.notify("Type some guidance, or escape to close.", severity="warning")
            return
        self.dismiss(answer)

    def action_close(self) -> None:
        self.dismiss(None)
