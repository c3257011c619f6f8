"""The ``orch-tui`` executable: the garbage collector waits for start-up to end.

Start-up imports Textual, pydantic and the engine: tens of thousands of objects that live as
long as the process, which the collector walks again and again while they are made (about
90 ms of collections before the review screen showed its diff, 38–52 ms of it two full
ones). The executable starts with the collector off; :func:`start_collecting` freezes what
start-up made (never walked again) and turns it back on, just before the app, the
headless engine, a batch or the inbox runs. The other subcommands (status, reset, doctor...)
are short and bounded, and end with it off. Its first imports are ``dataclasses`` and
``pathlib``, without the ``inspect`` and ``urllib.parse`` they would load
(core/util/stdlib_first.py).
"""

from __future__ import annotations

import gc
import sys
from typing import NoReturn


def main() -> NoReturn:
    gc.disable()
    from orch_tui.core.util.stdlib_first import import_stdlib_first

    import_stdlib_first()  # before any module of ours imports them: see its module
    from orch_tui.tui.cli.commands import main as run

    sys.exit(run())


def start_collecting() -> None:
    """Freeze start-up's objects and turn the collector on; nothing when it is on already (a
    caller other than the executable, such as the tests, keeps its collector as it is)."""
    if gc.isenabled():
        return
    gc.freeze()
    gc.enable()
