"""FilterInput: an Input whose typing redraws the input, not the screen.

Textual's ``Input`` sets its virtual size (the text's width) on every change of its value, and
a virtual size is a layout reactive: each key laid out and repainted every widget on the
screen, which over the history's 100,000-run list was most of a filter keystroke. An input of
fixed size (``width`` and ``height`` not ``auto``, as every filter box here is) has nothing to
lay out when its text grows, so here the virtual size only repaints the input; its scroll
limits read the virtual size as it is.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input

__all__ = ["FilterInput"]


class FilterInput(Input):
    """An Input of fixed size that repaints itself, not the screen's layout, as it is typed in."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
