"""The engine on a thread, talking to the app only through posted messages.

:class:`TuiReviewer` is the engine's reviewer in the TUI: it posts the session
to the app and blocks the engine thread until the person applies, rejects or
quits. Both post to a :class:`Mailbox`, so the engine can start before the
screen that shows its messages is mounted.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol

from textual.message import Message
from textual.message_pump import MessagePump

from orch_tui.core.loop.exit_codes import EXIT_INTERRUPTED, EXIT_STATE
from orch_tui.tui.messages import (
    EngineEvents,
    EngineStopped,
    PlanRequested,
    ReviewRequested,
    RewrittenRequested,
)

if TYPE_CHECKING:  # the app imports this module before its first frame; the engine comes later
    from orch_tui.core.domain.events import Event
    from orch_tui.core.domain.plan import Plan
    from orch_tui.core.loop.engine import Engine
    from orch_tui.core.loop.review import ReviewSession

Verdict = Literal["apply", "abort"]


class MessageTarget(Protocol):
    """Anything the engine thread may post to: a Textual message pump, or a :class:`Mailbox`."""

    def post_message(self, message: Message) -> bool: ...


class Mailbox:
    """The engine thread's messages for a screen that may not be mounted yet.

    ``orch-tui SPEC`` starts the engine before the app runs, so the engine's start-up (state,
    logs, the model's first turn or its replay) overlaps Textual's own instead of following the
    first frame; what it posts meanwhile is held, in order, until :meth:`attach`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: list[Message] = []
        self._target: MessagePump | None = None

    def post_message(self, message: Message) -> bool:
        with self._lock:
            if self._target is None:
                self._held.append(message)
                return True
            target = self._target
        return target.post_message(message)

    def attach(self, target: MessagePump) -> None:
        """Post everything held to ``target``, then forward every later message to it."""
        with self._lock:  # held: a message posted meanwhile waits, so the order is kept
            for message in self._held:
                target.post_message(message)
            self._held.clear()
            self._target = target


class TuiReviewer:
    holds_locked_tests = True
    """A person reviews: a locked test's change lands only with their own accept."""

    def __init__(self, target: MessageTarget) -> None:
        self.target = target
        self._answers: queue.Queue[Verdict | Plan | bool] = queue.Queue()
        self.waiting = False
        """True while the engine thread waits for the person's decisions."""

    def _ask(self, request: Message) -> Verdict | Plan | bool:
        """Post ``request`` to the app and block the engine thread until the person answers."""
        self.waiting = True
        try:
            self.target.post_message(request)
            answer = self._answers.get()
        finally:
            self.waiting = False
        if answer == "abort":
            from orch_tui.core.loop.review import ReviewAborted

            raise ReviewAborted
        return answer

    def review(self, session: ReviewSession) -> None:
        self._ask(ReviewRequested(session))

    def review_plan(self, plan: Plan) -> Plan:
        from orch_tui.core.domain.plan import Plan

        approved = self._ask(PlanRequested(plan))
        assert isinstance(approved, Plan)
        return approved

    def accept_rewritten(self, tests: list[str]) -> bool:
        return self._ask(RewrittenRequested(tests)) is True

    def answer_rewritten(self, accepted: bool) -> None:
        self._answers.put(accepted)

    def approve_plan(self, plan: Plan) -> None:
        self._answers.put(plan)

    def finish(self) -> None:
        """The decisions are final: the engine applies them and runs the checks."""
        self._answers.put("apply")

    def abort(self) -> None:
        self._answers.put("abort")


class EngineThread:
    """Runs one engine step to its end on a daemon thread, posting everything to ``target``.

    A daemon thread (rather than an executor worker) so that quitting never
    waits for a model request in flight: the state on disk is already the one
    to resume from. Every call into the engine happens on this thread, never the UI's.
    """

    def __init__(
        self, engine: Engine, target: MessageTarget, step: Callable[[], int] | None = None
    ) -> None:
        """``step``: what to run, :meth:`Engine.run` by default; after the engine stopped, a
        retry (:meth:`Engine.retry`) or a continuation (:meth:`Engine.continue_with`)."""
        self.engine = engine
        self.target = target
        self.step = step or engine.run
        self.thread = threading.Thread(target=self._run, name="orch-engine", daemon=True)
        self._forward_lock = threading.Lock()
        self._open: EngineEvents | None = None
        """The last events message posted, which carries later events until it is handled."""
        if step is None:  # a later step reuses the engine, whose bus already forwards to target
            engine.bus.subscribe(self._forward)

    def _forward(self, event: Event) -> None:
        with self._forward_lock:  # the bus emits on the thread that has the event
            if self._open is not None and self._open.add(event):
                return
            self._open = EngineEvents([event])
            self.target.post_message(self._open)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        from orch_tui.core.domain.state import StateError
        from orch_tui.core.loop.review import ReviewAborted

        try:
            code = self.step()
        except (ReviewAborted, KeyboardInterrupt):
            self.target.post_message(EngineStopped(EXIT_INTERRUPTED))
        except StateError as exc:
            self.target.post_message(EngineStopped(EXIT_STATE, str(exc)))
        except Exception as exc:  # noqa: BLE001 - shown to the person, never a traceback on screen
            self.target.post_message(EngineStopped(1, f"{type(exc).__name__}: {exc}"))
        else:
            self.target.post_message(EngineStopped(code))
