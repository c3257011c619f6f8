"""Importing :mod:`dataclasses` without :mod:`inspect`, as the executable's first import.

On Python 3.11, ``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``,
``linecache``: ~7 ms of every start, issue 26, item 6), and reads it in one place only: an
undocumented class's docstring, written from ``inspect.signature`` as the class is made, which
a record puts off until it is read (:class:`~orch_tui.core.util.records._SignatureDoc`).
:func:`import_dataclasses` imports ``dataclasses`` with a stand-in bound to its name
``inspect``, which imports the real module the first time ``dataclasses`` reads from it (a
plain ``@dataclass`` without a docstring, in the TUI) and hands it over. A Python whose
``dataclasses`` reads ``inspect`` as every class is made (3.12 on) imports it at the first
class, as before. Anyone else importing ``inspect`` gets the real module: the stand-in is in
``sys.modules`` only while ``dataclasses`` itself is imported.
"""

from __future__ import annotations

import sys
from typing import Any


class _InspectWhenRead:
    """``dataclasses``'s ``inspect`` until it first reads from it."""

    __spec__ = None  # what the import system reads of a module it finds in sys.modules

    def __getattr__(self, name: str) -> Any:
        import inspect

        sys.modules["dataclasses"].inspect = inspect  # type: ignore[attr-defined]
        return getattr(inspect, name)


def import_dataclasses() -> None:
    """Import ``dataclasses`` with its ``inspect`` put off; nothing when either is imported."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        return
    stand_in: Any = _InspectWhenRead()
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses  # noqa: F401
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
