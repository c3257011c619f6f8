"""The engine on a thread, talking to the app only through posted messages.

:class:`TuiReviewer` is the engine's reviewer in the TUI: it posts the session
to the app and blocks the engine thread until the person applies, rejects or
quits.
"""

from __future__ import annotations

import queue
import threading
from typing import Literal

from textual.message_pump import MessagePump

from core.engine import EXIT_INTERRUPTED, EXIT_STATE, Engine
from core.events import Event
from core.review import ReviewAborted, ReviewSession
from core.state import StateError
from tui.messages import EngineEvent, EngineStopped, ReviewRequested

Verdict = Literal["apply", "abort"]


class TuiReviewer:
    def __init__(self, target: MessagePump) -> None:
        self.target = target
        self._verdicts: queue.Queue[Verdict] = queue.Queue()
        self.waiting = False
        """True while the engine thread waits for the person's decisions."""

    def review(self, session: ReviewSession) -> None:
        self.waiting = True
        try:
            self.target.post_message(ReviewRequested(session))
            verdict = self._verdicts.get()
        finally:
            self.waiting = False
        if verdict == "abort":
            raise ReviewAborted

    def finish(self) -> None:
        """The decisions are final: the engine applies them and runs the checks."""
        self._verdicts.put("apply")

    def abort(self) -> None:
        self._verdicts.put("abort")


class EngineThread:
    """Runs one engine to its end on a daemon thread, posting everything to ``target``.

    A daemon thread (rather than an executor worker) so that quitting never
    waits for a model request in flight: the state on disk is already the one
    to resume from.
    """

    def __init__(self, engine: Engine, target: MessagePump, *, subscribe: bool = True) -> None:
        self.engine = engine
        self.target = target
        self.thread = threading.Thread(target=self._run, name="orch-engine", daemon=True)
        if subscribe:  # a retry reuses the engine, whose bus already forwards to target
            engine.bus.subscribe(self._forward)

    def _forward(self, event: Event) -> None:
        self.target.post_message(EngineEvent(event))

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        try:
            code = self.engine.run()
        except (ReviewAborted, KeyboardInterrupt):
            self.target.post_message(EngineStopped(EXIT_INTERRUPTED))
        except StateError as exc:
            self.target.post_message(EngineStopped(EXIT_STATE, str(exc)))
        except Exception as exc:  # noqa: BLE001 - shown to the person, never a traceback on screen
            self.target.post_message(EngineStopped(1, f"{type(exc).__name__}: {exc}"))
        else:
            self.target.post_message(EngineStopped(code))
