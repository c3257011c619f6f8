"""The plan screen: the tasks the run will build, approved (or edited) before any code.

The engine thread waits in ``TuiReviewer.review_plan`` while this screen is open; the
screen dismisses with the approved :class:`Plan` (``enter``) or None (``q``: leave, the
run resumes at the plan next time). Editing happens on a copy: ``e`` opens the plan as
Markdown, ``d`` drops the task under the cursor, ``K`` / ``J`` move it up / down.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from orch_tui.core.domain.plan import Plan, PlanError, Task, parse_markdown, render_markdown
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.tui.widgets.key_footer import KeyFooter


def task_card(number: int, task: Task) -> Content:
    """One task as the list shows it: number, id and title, then description, files and acceptance."""
    lines = [Content.styled(escape_controls(f"{number}. {task.id}: {task.title}"), "bold")]
    if task.description:
        description = escape_controls(task.description, newlines=True)
        lines.append(Content("   " + description.replace("\n", "\n   ")))
    if task.files:
        files = escape_controls(", ".join(task.files))
        lines.append(Content.styled(f"   files: {files}", "dim"))
    acceptance = escape_controls(task.acceptance or "–")
    lines.append(Content.styled(f"   acceptance: {acceptance}", "italic"))
    return Content("\n").join(lines)


class PlanScreen(Screen[Plan | None]):
    CSS_PATH = "plan.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        # A priority binding: the task list would take enter as "select" otherwise.
        Binding("enter", "approve", "Approve", id="plan.approve", priority=True),
        Binding("e", "edit", "Edit as Markdown", id="plan.edit"),
        Binding("d", "drop", "Drop task", id="plan.drop"),
        Binding("K", "move(-1)", "Move up", id="plan.move_up"),
        Binding("J", "move(1)", "Move down", id="plan.move_down"),
        Binding("q", "leave", "Quit", id="plan.quit"),
    ]

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        yield Static("", id="plan-title")
        yield OptionList(id="plan-tasks")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self._show(0)
        self.query_one(OptionList).focus()

    def _show(self, highlight: int) -> None:
        tasks = self.query_one(OptionList)
        tasks.clear_options()
        tasks.add_options(
            Option(task_card(number, task), id=f"task-{number}")
            for number, task in enumerate(self.plan.tasks, start=1)
        )
        tasks.highlighted = max(0, min(highlight, len(self.plan.tasks) - 1))
        count = len(self.plan.tasks)
        self.query_one("#plan-title", Static).update(
            f"The plan: {count} task{'' if count == 1 else 's'}, built in this order. "
            "enter approves · e edits · d drops · K/J move"
        )

    @property
    def cursor(self) -> int:
        return self.query_one(OptionList).highlighted or 0

    def action_approve(self) -> None:
        self.dismiss(self.plan)

    def action_leave(self) -> None:
        self.dismiss(None)

    def action_drop(self) -> None:
        if len(self.plan.tasks) == 1:
            self.notify("A plan needs at least one task.", severity="warning")
            return
        tasks = list(self.plan.tasks)
        del tasks[self.cursor]
        self.plan = Plan(tuple(tasks))
        self._show(self.cursor)

    def action_move(self, step: int) -> None:
        here, there = self.cursor, self.cursor + step
        if not 0 <= there < len(self.plan.tasks):
            return
        tasks = list(self.plan.tasks)
        tasks[here], tasks[there] = tasks[there], tasks[here]
        self.plan = Plan(tuple(tasks))
        self._show(there)

    def action_edit(self) -> None:
        def edited(plan: Plan | None) -> None:
            if plan is not None:
                self.plan = plan
                self._show(self.cursor)

        self.app.push_screen(PlanEditScreen(render_markdown(self.plan)), edited)


class PlanEditScreen(ModalScreen[Plan | None]):
    """The plan as Markdown; ctrl+s reads it back, and an error stays on screen by the text."""

    CSS_PATH = ["dialogs.tcss", "plan.tcss"]  # .dialog and ModalScreen: dialogs.tcss

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="plan_edit.save"),
        Binding("escape", "cancel", "Cancel", id="plan_edit.cancel", priority=True),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-edit-dialog", classes="dialog"):
            yield Label("Editing the plan — ctrl+s saves, escape cancels", id="plan-edit-title")
            yield TextArea.code_editor(self.text, language="markdown", id="plan-editor")
            yield Static("", id="plan-edit-error", markup=False)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        editor = self.query_one(TextArea)
        try:
            plan = parse_markdown(editor.text)
        except PlanError as exc:
            self.query_one("#plan-edit-error", Static).update(str(exc))
            self.query_one("#plan-edit-error").add_class("-shown")
            line = _line_of(str(exc))
            if line is not None:
                editor.move_cursor((line - 1, 0))
            return
        self.dismiss(plan)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _line_of(message: str) -> int | None:
    """The line number a PlanError names (``line N: ...``)."""
    head = message.split(":", 1)[0]
    number = head.removeprefix("line ")
    return int(number) if head.startswith("line ") and number.isdigit() else None
