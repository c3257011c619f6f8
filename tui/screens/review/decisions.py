"""The person's decisions on the proposal under review: the keys, and what they change."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import on
from textual.events import Resize, ScreenResume

from orch_tui.core.domain.proposal import FileChange, HunkDecision
from orch_tui.core.loop.review import ReviewCursor
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.tui import full_collections
from orch_tui.tui.cli.executable import start_collecting
from orch_tui.tui.messages import (
    DecisionsFinal,
    ReviewRequested,
    RewrittenAnswered,
    RewrittenRequested,
)
from orch_tui.tui.screens.loading import size_classes
from orch_tui.tui.screens.review.coverage import ReviewCoverage
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.file_list import FileList
from orch_tui.tui.widgets.following_log import FollowingLog


class DecisionsScreen(ReviewCoverage):
    """Hunks and files accepted, rejected or edited, the whole proposal rejected with a
    reason, or the decisions applied: each a call on the engine's :class:`ReviewSession`."""

    styled = False
    """Shown once: its widgets were styled as they mounted, a moment before."""

    def on_screen_resume(self, event: ScreenResume) -> None:
        """Back from the history, whose ``v`` changes the remembered diff layout too.

        Textual styles the whole screen again on every showing, for a theme or a rule changed
        while it was hidden; the first showing keeps the styles the widgets got as they mounted
        (at the launch that styling again doubled the styling before the first diff)."""
        if not self.styled:
            self.styled = True
            event.refresh_styles = False
        self.query_one(DiffView).diff_layout = self.config.ui.diff_layout

    def on_resize(self, event: Resize) -> None:
        """Textual lays a screen out again for every Resize it gets, and its first layout sends
        it one for the size it was just laid out at: a full second layout after the first diff,
        before any key. That one is skipped when the size classes are already right for it."""
        if event.size == self.outer_size and set(size_classes(event.size)) <= self.classes:
            event.prevent_default()

    def on_unmount(self) -> None:
        full_collections.let_go(self)  # quit during a review

    @on(ReviewRequested)
    def _review_requested(self, message: ReviewRequested) -> None:
        for log in self.query(FollowingLog):  # what the model said and did, with its proposal
            log.flush()
        self.session = message.session
        self.cursor = ReviewCursor(self.session.effective)
        self.cursor.first_undecided(self.session.decisions)
        self.trial_started = False
        self.trial_text = self._trial_offer()
        self._read_coverage(self.session.attempt)
        self._refresh_review()
        self.query_one(DiffView).focus()
        # The proposal and the screen built for it live as long as the review: a full garbage
        # collection walking them all (~0.1 s on 200 files) every few keys is kept off them.
        full_collections.hold(self)
        # Launched by the executable, the collector is off until the first diff is drawn
        # (tui/launch.py): it comes on then, with the screen and the proposal frozen.
        self.call_after_refresh(start_collecting)
        if self.trial_auto:  # once the proposal is drawn: its copy and checks would slow that
            self.trial_quiet = 0
            self.call_after_refresh(self._start_auto_trial, message.session, self.layouts)

    @on(RewrittenRequested)
    def _rewritten_requested(self, message: RewrittenRequested) -> None:
        """Tests the proposal rewrote to pass: they land only with the person's explicit yes."""
        from orch_tui.tui.screens.dialogs import RewrittenScreen

        def answered(accepted: bool | None) -> None:
            self.post_message(RewrittenAnswered(bool(accepted)))

        self.app.push_screen(RewrittenScreen(message.tests), answered)

    def _refresh_review(self, *, decided: bool = True) -> None:
        """Show the cursor's file and hunk; ``decided``: decisions changed, redo the file list.

        A move alone leaves the file list's lines as they are: rebuilding them would lay the
        whole screen out again on every key.
        """
        session, cursor = self.session, self.cursor
        files = self.query_one(FileList)
        diff = self.query_one(DiffView)
        if session is None or cursor is None:
            diff.show(None, [])
            files.clear_options()
            return
        effective = session.effective
        if decided or files.option_count != effective.file_count:
            files.show(effective, session.decisions)
        change = self._current_change()
        if change is not None:
            files.current = cursor.file
            decisions = session.decisions.for_file(change)
            if diff.change is not change:
                diff.show(change, decisions)
                diff.lex_ahead(neighbours(effective.changes, cursor.file))
            else:
                diff.set_decisions(decisions)
            diff.cursor_hunk = cursor.hunk
        self._refresh_status()

    def _record(self, decide: Callable[[], None]) -> None:
        """Make a decision; if saving it fails, it is still held and saved again on apply."""
        try:
            decide()
        except OSError as exc:
            self.notify(
                f"Could not save to the run log: {exc}. The decision is kept and saved again "
                "when you apply; free the disk before quitting.",
                title="Decision not saved",
                severity="error",
                timeout=15,
                markup=False,
            )

    def action_decide(self, decision: str) -> None:
        self._decide(HunkDecision(decision), whole_file=False)

    def action_decide_file(self, decision: str) -> None:
        self._decide(HunkDecision(decision), whole_file=True)

    def _decide(self, decision: HunkDecision, *, whole_file: bool) -> None:
        """Record a decision on the hunk (or file) under the cursor, then go to the next undecided."""
        if not self._need_session():
            return
        assert self.session and self.cursor
        change = self._current_change()
        if change is None:
            return
        session, hunk = self.session, self.cursor.hunk
        if change.hunks and not whole_file:
            self._record(lambda: session.decide(change.path, hunk, decision))
        else:  # a whole file, or one whose only hunk is an empty file's
            self._record(lambda: session.decide_file(change.path, decision))
        decided_file = self.cursor.file
        self.cursor.next_undecided(session.decisions)
        self._trial_outdated()
        files = self.query_one(FileList)
        if files.option_count == session.effective.file_count:
            files.show_decided(decided_file, change, session.decisions)
            self._refresh_review(decided=False)
        else:
            self._refresh_review()

    def action_move(self, where: str) -> None:
        if not self._need_session():
            return
        assert self.cursor
        getattr(self.cursor, where)()
        self._refresh_review(decided=False)

    @on(FileList.Selected)
    def _file_selected(self, message: FileList.Selected) -> None:
        if self.cursor is not None:
            self.cursor.select_file(message.index)
            self._refresh_review(decided=False)
            self.query_one(DiffView).focus()

    def action_edit(self) -> None:
        if not self._need_session():
            return
        change = self._current_change()
        if change is None:
            return
        if change.new_text is None:
            self.notify("This file is deleted by the proposal; reject it with n to keep it.")
            return
        from orch_tui.tui.screens.dialogs import EditScreen  # loaded when a dialog first opens

        path = change.path

        def edited(text: str | None) -> None:
            session = self.session
            if text is None or session is None or self.cursor is None:
                return
            self._record(lambda: session.edit(path, text))
            self.cursor.proposal = session.effective
            self.cursor.hunk = 0
            self._trial_outdated()
            self._refresh_review()
            self.notify(f"Edited {escape_controls(path)}: your text is what lands.", markup=False)

        self.app.push_screen(EditScreen(path, change.new_text), edited)

    def action_feedback(self) -> None:
        if not self._need_session():
            return
        from orch_tui.tui.screens.dialogs import FeedbackScreen

        def rejected(reason: str | None) -> None:
            session = self.session
            if reason is None or session is None:
                return
            self._record(lambda: session.reject_all(reason))
            self._release("the whole proposal was rejected; the model gets your reason")

        self.app.push_screen(FeedbackScreen(), rejected)

    def action_apply(self) -> None:
        if not self._need_session():
            return
        self._release("applying the decisions and running the checks…")

    def _release(self, status: str) -> None:
        # The review is over: a trial run still going would only compete with the real run.
        self._stop_trial()
        self.trial_started = False
        self.session = None
        self.cursor = None
        self.trial_text = ""
        full_collections.let_go(self)  # the review is over
        self._refresh_review()
        self._set_status(status)
        self.post_message(DecisionsFinal())


def neighbours(changes: Sequence[FileChange], index: int) -> list[FileChange]:
    """The files ``}`` and ``{`` open from the file at ``index``: the next, then the previous."""
    return [changes[near] for near in (index + 1, index - 1) if 0 <= near < len(changes)]
