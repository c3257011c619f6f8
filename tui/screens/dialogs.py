"""Modal dialogs: edit a file, reject with a reason, help, a stopped run, a yes/no question."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Markdown, TextArea

from orch_tui.core.util.terminal_text import escape_controls

DIALOG_CSS = "dialogs.tcss"
"""The dialogs' rules, parsed when a dialog is first shown rather than with the app's."""

_LANGUAGES = {
    ".py": "python",
    ".md": "markdown",
    ".toml": "toml",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".js": "javascript",
    ".html": "html",
    ".css": "css",
    ".sh": "bash",
    ".rs": "rust",
    ".go": "go",
    ".sql": "sql",
    ".xml": "xml",
    ".java": "java",
}


def language_for(path: str, available: Iterable[str]) -> str | None:
    """The TextArea language for a file, when this install can highlight it."""
    language = _LANGUAGES.get(PurePosixPath(path).suffix.lower())
    return language if language in set(available) else None


class EditScreen(ModalScreen[str | None]):
    """Edit the proposed text of one file; what is saved is what lands."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        # Not a priority binding: ctrl+s then waits behind the keys typed before it.
        Binding("ctrl+s", "save", "Save", id="edit.save"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel", priority=True),
    ]

    def __init__(self, path: str, text: str) -> None:
        super().__init__()
        self.path = path
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-dialog", classes="dialog"):
            yield Label(
                f"Editing {escape_controls(self.path)} — ctrl+s saves, escape cancels",
                id="edit-title",
                markup=False,
            )
            editor = TextArea.code_editor(self.text, id="editor")
            editor.language = language_for(self.path, editor.available_languages)
            yield editor

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class FeedbackScreen(ModalScreen[str | None]):
    """Reject the whole proposal with a reason the model reads."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="feedback.cancel"),
    ]

    PROMPT = "Reject the whole proposal. Tell the model why (enter sends, escape cancels):"

    def __init__(self, prompt: str = PROMPT) -> None:
        super().__init__()
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        with Vertical(id="feedback-dialog", classes="dialog"):
            yield Label(self.prompt)
            yield Input(placeholder="e.g. keep the public API unchanged", id="reason")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        reason = event.value.strip()
        if not reason:
            self.notify(
                "A reason helps the model: type one, or escape to cancel.", severity="warning"
            )
            return
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)


HELP = """\
**Keys**

| key | action |
|---|---|
| `y` / `n` | accept / reject the hunk under the cursor, then go to the next undecided one |
| `Y` / `N` | accept / reject every hunk of the current file |
| `]` / `[`, `u` | next / previous hunk (across files); `u`: the next one no test runs (`◌`) |
| `}` / `{` | next / previous file |
| `e` | edit the current file's proposed text (ctrl+s saves, escape cancels) |
| `f` | reject the whole proposal with a reason for the model |
| `enter` | apply the decisions (undecided hunks count as accepted) and run the tests |
| `t` | trial run: the checks on a scratch copy, with the decisions so far |
| `v` | side-by-side / unified diff |
| `z` / `o` | unfold all unchanged lines / show more context |
| `←` / `→`, shift+wheel | scroll sideways: long lines are cut at the edge (`…`: shown from the change on) |
| `s` / `l` | show / hide the spec and the attempts / switch the Model and Tests tabs |
| `h` / `?` | run history / this help |
| `ctrl+p` | command palette: apply, layout, history, theme, help |
| `q` | quit; the run is saved and resumes next time |

Decisions are saved as you make them. The status line shows what a trial run of the proposal
as decided does to the tests; the real run after `enter` still decides.

**Marks**

- `●` `✓` `✗`: a hunk undecided, accepted, rejected (in the gutter and the file list)
- `!` beside a hunk's mark: the hunk weakens a test (loosens or drops an assert, skips a test)
- `▌` `◌`: a changed line a test runs / a changed statement no test runs (when measured)
- `✎ edited`: a file whose proposed text you edited with `e`
"""


class HelpScreen(ModalScreen[None]):
    """The keys; at most as large as the terminal, and it scrolls (arrows, page keys, wheel)."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog", classes="dialog"):
            yield Markdown(HELP)

    def on_mount(self) -> None:
        self.query_one("#help-dialog").focus()

    def action_close(self) -> None:
        self.dismiss(None)


class StoppedScreen(ModalScreen[str]):
    """The run stopped on an error: what happened and what the person can do."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('retry')", "Retry", id="stopped.retry"),
        Binding("c", "choose('continue')", "Continue", id="stopped.continue"),
        Binding("g", "choose('guidance')", "Guidance", id="stopped.guidance"),
        Binding("q", "choose('quit')", "Quit", id="stopped.quit"),
        Binding("escape", "choose('stay')", "Close", id="stopped.stay"),
    ]

    def __init__(
        self,
        title: str,
        message: str,
        can_retry: bool,
        can_continue: bool = False,
        *,
        advice: str = "",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.advice = advice
        """What to do next: shown below the message, which scrolls when it is long, so the
        advice and the keys are on screen even at 80x24."""
        self.can_retry = can_retry
        self.can_continue = can_continue

    def compose(self) -> ComposeResult:
        options = "r asks the model again · " if self.can_retry else ""
        if self.can_continue:
            options += "c continues with a fresh retry budget · g continues with your guidance · "
        with Vertical(id="stopped-dialog", classes="dialog"):
            yield Label(self.title_text, id="stopped-title", markup=False)
            with VerticalScroll(id="stopped-body"):
                yield Label(
                    escape_controls(self.message, newlines=True), id="stopped-message", markup=False
                )
            if self.advice:
                yield Label(self.advice, id="stopped-advice", markup=False)
            yield Label(
                f"{options}q quits (the run is saved) · escape closes this", id="stopped-keys"
            )

    def action_choose(self, choice: str) -> None:
        if choice == "retry" and not self.can_retry:
            return
        if choice in ("continue", "guidance") and not self.can_continue:
            return
        self.dismiss(choice)


class RewrittenScreen(ModalScreen[bool]):
    """Tests were rewritten to pass: SUCCESS only with the person's explicit yes."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Accept", id="rewritten.accept"),
        Binding("n,escape", "answer(False)", "Refuse", id="rewritten.refuse"),
    ]

    def __init__(self, tests: list[str]) -> None:
        super().__init__()
        self.tests = tests

    def compose(self) -> ComposeResult:
        names = "\n".join(f"  {escape_controls(test)}" for test in self.tests)
        with Vertical(id="rewritten-dialog", classes="dialog"):
            yield Label("Tests rewritten to pass", id="rewritten-title")
            yield Label(
                "The checks pass, but these tests fail in the form they had before this "
                f"attempt:\n{names}\nwere they wrong, or were they changed to fit the code?",
                id="rewritten-message",
                markup=False,
            )
            yield Label("y accepts them (SUCCESS) · n refuses (the run stops)", id="rewritten-keys")

    def action_answer(self, accepted: bool) -> None:
        self.dismiss(accepted)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question before something that changes files (history's ``R``)."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, question: str) -> None:
        super().__init__()
        self.title_text = title
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Label(self.title_text, id="confirm-title", markup=False)
            yield Label(escape_controls(self.question), id="confirm-message", markup=False)
            yield Label("y does it · n or Escape leaves everything as it is", id="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
