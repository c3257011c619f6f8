"""Waits between retries, kept within the request's total deadline and said aloud.

Both SDKs retry a 429, 529 or 5xx after the wait the server asks for (``retry-after``), up to
49 days. A run must not sleep past ``model.timeout_seconds``: :func:`paced` makes an SDK
client class whose retry waits go through :func:`wait_for_retry`, which refuses a wait longer
than the time left (a :class:`RetryWaitTooLong`, which the provider turns into a ModelError)
and tells the person about any wait of a second or more before it starts.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast

from orch_tui.core.providers.base import RESUME_HINT, Deadline, ModelError, TextSink
from orch_tui.core.util.records import record

SHOWN_WAIT_S = 1.0
"""Waits at least this long are told to the person; shorter ones pass unsaid."""


class RetryWaitTooLong(Exception):
    """The server asked for a wait before a retry that the deadline does not leave."""

    def __init__(self, status: int | None, asked_s: float, left_s: float) -> None:
        super().__init__(f"asked to wait {asked_s:g} s with {left_s:.0f} s left")
        self.status = status
        self.asked_s = asked_s
        self.left_s = left_s

    def model_error(self, timeout_s: float) -> ModelError:
        answer = f"answered {self.status}" if self.status else "failed"
        return ModelError(
            f"the API {answer} and asked to wait {self.asked_s:,.0f} s before a retry, longer "
            f"than the {self.left_s:.0f} s left of model.timeout_seconds ({timeout_s:g} s)",
            RESUME_HINT,
        )


@record(frozen=True)
class _Pace:
    deadline: Deadline
    on_text: TextSink


_current: ContextVar[_Pace | None] = ContextVar("orch_retry_pace", default=None)


@contextmanager
def pacing(deadline: Deadline, on_text: TextSink) -> Iterator[None]:
    """Retry waits of requests made in this block keep to ``deadline`` and are told to ``on_text``."""
    token = _current.set(_Pace(deadline, on_text))
    try:
        yield
    finally:
        _current.reset(token)


def wait_for_retry(wait_s: float, status: int | None) -> None:
    """Sleep ``wait_s`` before a retry, within the current deadline (RetryWaitTooLong if not)."""
    pace = _current.get()
    if pace is not None:
        left = pace.deadline.remaining()
        if wait_s > left:
            raise RetryWaitTooLong(status, wait_s, left)
        if wait_s >= SHOWN_WAIT_S:
            answer = f"answered {status}" if status else "could not be reached"
            pace.on_text(f"\n[the API {answer}: retrying in {wait_s:.0f} s]\n")
    time.sleep(wait_s)


_C = TypeVar("_C", bound=type)


def paced(client_class: _C) -> _C:
    """A subclass of an SDK client class (``anthropic.Anthropic``, ``openai.OpenAI``) whose
    retry waits go through :func:`wait_for_retry`."""

    def _sleep_for_retry(
        self: Any, *, retries_taken: int, max_retries: int, options: Any, response: Any
    ) -> None:
        headers = response.headers if response is not None else None
        wait_s = self._calculate_retry_timeout(max_retries - retries_taken, options, headers)
        wait_for_retry(wait_s, response.status_code if response is not None else None)

    name = f"Paced{client_class.__name__}"
    return cast(_C, type(name, (client_class,), {"_sleep_for_retry": _sleep_for_retry}))
