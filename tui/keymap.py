"""``[ui] keymap``: remapped keys by binding id, checked against the ids the app really has.

Textual's ``set_keymap`` ignores an id no binding carries, so a typo would silently remap
nothing; the app refuses to start instead, naming the file, the key and the id.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator

from textual.binding import Binding
from textual.dom import DOMNode

from orch_tui.tui import screens, widgets


def _our_classes(base: type[DOMNode]) -> Iterator[type[DOMNode]]:
    for cls in base.__subclasses__():
        if cls.__module__.startswith("orch_tui."):
            yield cls
        yield from _our_classes(cls)


def _import_screens_and_widgets() -> None:
    """Import every screen and widget module: the review screen is loaded after the first frame
    is drawn, and a binding's id exists only once its class does."""
    for package in (screens, widgets):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)


def binding_ids() -> set[str]:
    """Every binding id of orch-tui's app, screens and widgets."""
    _import_screens_and_widgets()
    return {
        binding.id
        for cls in _our_classes(DOMNode)
        for binding in cls.__dict__.get("BINDINGS", [])
        if isinstance(binding, Binding) and binding.id
    }


def keymap_problem(keymap: dict[str, str]) -> str | None:
    """What is wrong with ``keymap`` (ids no binding has), or None."""
    if not keymap:
        return None
    unknown = sorted(set(keymap) - binding_ids())
    if not unknown:
        return None
    return (
        f"ui.keymap: no key binding has the id {', '.join(map(repr, unknown))} "
        '(the ids are listed in README.md, "Keys of the review screen")'
    )
