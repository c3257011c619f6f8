"""Two standard modules imported first, each without a module it rarely reads (issue 26, item 6).

- ``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``,
  ``linecache``: ~7 ms of every start on Python 3.11) and reads it in one place only: an
  undocumented class's docstring, written from ``inspect.signature`` as the class is made,
  which a record puts off until it is read (:class:`~orch_tui.core.util.records._SignatureDoc`).
- ``pathlib`` imports ``urllib.parse`` (and with it ``ipaddress``: ~2 ms) for
  ``Path.as_uri`` alone, which orch-tui never calls before its first model request.

:func:`import_stdlib_first` imports each with a stand-in bound to the module it would import,
which imports the real one the first time it is read from, and hands it over. A Python whose
module reads it as it loads (``dataclasses`` from 3.12 reads ``inspect`` as every class is
made) imports it then, as before; one that no longer imports it (``pathlib`` from 3.13) leaves
the stand-in unused. Anyone else importing ``inspect`` or ``urllib.parse`` gets the real
module: a stand-in is in ``sys.modules`` only while its importer is imported.
"""

from __future__ import annotations

import sys
from typing import Any


class _ImportedWhenRead:
    """The module ``name`` as ``importer`` sees it, until ``importer`` first reads from it."""

    __spec__ = None  # what the import system reads of a module it finds in sys.modules

    def __init__(self, name: str, importer: str) -> None:
        self._name = name
        self._importer = importer

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # what the import system asks of a module (__path__)
            raise AttributeError(attribute)
        return getattr(self._real(), attribute)

    def _real(self) -> Any:
        __import__(self._name)
        module = sys.modules[self._name]
        importer = sys.modules[self._importer]
        for name, value in list(vars(importer).items()):
            if value is self:  # ``import inspect``: the importer's name for it
                setattr(importer, name, module)
        return module


class _UrlParseWhenCalled(_ImportedWhenRead):
    """``urllib.parse`` as ``pathlib`` imports from it: its one function, which imports the real
    module when ``Path.as_uri`` first calls it."""

    def __init__(self) -> None:
        super().__init__("urllib.parse", "pathlib")

    def quote_from_bytes(self, *args: Any, **kwargs: Any) -> Any:
        return self._real().quote_from_bytes(*args, **kwargs)


def import_stdlib_first() -> None:
    """Import ``dataclasses`` and ``pathlib`` with their rarely read imports put off; nothing for
    one already imported, or whose import is."""
    _import_without("dataclasses", "inspect", _ImportedWhenRead("inspect", "dataclasses"))
    _import_without("pathlib", "urllib.parse", _UrlParseWhenCalled())


def _import_without(importer: str, name: str, stand_in: Any) -> None:
    if importer in sys.modules or name in sys.modules:
        return
    sys.modules[name] = stand_in
    try:
        __import__(importer)
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
