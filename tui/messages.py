"""Messages the engine thread posts to the app. Workers post; widgets react."""

from __future__ import annotations

from textual.message import Message

from core.events import Event
from core.review import ReviewSession
from core.verify import TrialOutcome


class EngineEvent(Message):
    """One event from the engine's bus, delivered on the UI thread."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class ReviewRequested(Message):
    """The engine waits for the person to decide on ``session``."""

    def __init__(self, session: ReviewSession) -> None:
        super().__init__()
        self.session = session


class EngineStopped(Message):
    """The engine thread ended: ``exit_code`` is the run's, or 130 when left unfinished."""

    def __init__(self, exit_code: int, error: str | None = None) -> None:
        super().__init__()
        self.exit_code = exit_code
        self.error = error


class TrialFinished(Message):
    """The trial run of the checks for ``attempt`` ended: its outcome, or why there is none."""

    def __init__(self, attempt: int, outcome: TrialOutcome | None, error: str | None) -> None:
        super().__init__()
        self.attempt = attempt
        self.outcome = outcome
        self.error = error
