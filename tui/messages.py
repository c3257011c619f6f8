"""Messages between the engine thread, the review screen and the app.

The engine thread and workers post; widgets react. The review screen asks the app for what
only the app may do (release the engine, retry, quit, open the history, save a setting)
by posting a message that bubbles up to it, so the screen never imports the app.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # annotations only: the app's module, and so its first frame, loads no engine
    from orch_tui.core.checks.trial import TrialOutcome
    from orch_tui.core.domain.events import Event
    from orch_tui.core.domain.plan import Plan
    from orch_tui.core.loop.review import ReviewSession


class EngineEvents(Message, bubble=False):
    """The engine's events, in order, delivered on the UI thread to the review screen, and no
    further: nothing above it reads them.

    One message carries every event the engine emits until the screen takes them
    (:meth:`take`): a 200-file proposal emits some 210 events before its first diff, and one
    message each was 210 wake-ups of the UI thread and 210 dispatches on the way to it.
    """

    def __init__(self, events: Iterable[Event]) -> None:
        super().__init__()
        self._events = list(events)
        self._lock = threading.Lock()
        self._taken = False

    def add(self, event: Event) -> bool:
        """Carry ``event`` too; False once the screen took the events (post a new message)."""
        with self._lock:
            if self._taken:
                return False
            self._events.append(event)
            return True

    def take(self) -> list[Event]:
        """The events carried; any later one goes in a new message."""
        with self._lock:
            self._taken = True
            return self._events


class ReviewRequested(Message):
    """The engine waits for the person to decide on ``session``."""

    def __init__(self, session: ReviewSession) -> None:
        super().__init__()
        self.session = session


class PlanRequested(Message):
    """The engine waits for the person to approve (or edit) ``plan``."""

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan


class RewrittenRequested(Message):
    """The checks passed, but ``tests`` were rewritten to pass: the engine waits for the person
    to accept them (SUCCESS) or not (the run stops)."""

    def __init__(self, tests: list[str]) -> None:
        super().__init__()
        self.tests = tests


class RewrittenAnswered(Message):
    """The person's answer to :class:`RewrittenRequested`."""

    def __init__(self, accepted: bool) -> None:
        super().__init__()
        self.accepted = accepted


class EngineStopped(Message):
    """The engine thread ended: ``exit_code`` is the run's, or 130 when left unfinished."""

    def __init__(self, exit_code: int, error: str | None = None) -> None:
        super().__init__()
        self.exit_code = exit_code
        self.error = error


class TrialFinished(Message):
    """The trial run of the checks for ``attempt`` ended: its outcome, or why there is none."""

    def __init__(
        self, attempt: int, outcome: TrialOutcome | None, error: str | None, round_: int = 0
    ) -> None:
        super().__init__()
        self.attempt = attempt
        self.round = round_
        """Which trial of the review screen's this is (a later decision outdates it)."""
        self.outcome = outcome
        self.error = error


class DecisionsFinal(Message):
    """The person applied the decisions (or rejected the whole proposal): release the engine."""


class PlanApproved(Message):
    """The person approved ``plan`` (as edited): release the engine to run it."""

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan


class RetryRun(Message):
    """Ask the model again after the run stopped on a model error."""


class ContinueRun(Message):
    """Reopen a FAILED or NEEDS_HELP run, with the person's guidance (None: none), and go on."""

    def __init__(self, guidance: str | None) -> None:
        super().__init__()
        self.guidance = guidance


class QuitRun(Message):
    """Leave the app; the state on disk is the one to resume from."""


class OpenHistory(Message):
    """Show the run history."""


class SettingChanged(Message):
    """The person changed a ``[ui]`` setting in the app: keep it and save it."""

    def __init__(self, key: str, value: str) -> None:
        super().__init__()
        self.key = key
        self.value = value


class ResumeRun(Message):
    """The person asked to resume ``run_id``: an unfinished run whose spec still matches, or
    one given a proposal of the person's to review (history's ``X``)."""

    def __init__(self, run_id: str, spec_path: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.spec_path = spec_path
