"""Failing with a message: :func:`fail` and :class:`Refused`, with nothing of the project loaded.

Apart from ``shared`` so that ``orch-tui SPEC`` reaches its first frame without the config
glance, the lock and the questions ``shared`` imports (tui/launch.py).
"""

from __future__ import annotations

import sys

from orch_tui.core.loop.exit_codes import EXIT_FAILED


def fail(message: str, code: int = EXIT_FAILED) -> int:
    print(f"orch-tui: {message}", file=sys.stderr)
    return code


class Refused(Exception):
    """A run that cannot start: the message :func:`fail` prints and the exit code."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
