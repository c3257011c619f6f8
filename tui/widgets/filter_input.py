"""FilterInput: an Input whose typing redraws the input, not the screen.

Textual's ``Input`` sets its virtual size (the text's width) on every change of its value: each
key laid out every widget on the screen, which over the history's 100,000-run list was most of
a filter keystroke. An input of fixed size (``width`` and ``height`` not ``auto``, as every
filter box here is) has nothing to lay out when its text grows (:class:`SizedByLayout`); its
scroll limits read the virtual size as it is.
"""

from __future__ import annotations

from textual.widgets import Input

from orch_tui.tui.widgets.sized_by_layout import SizedByLayout

__all__ = ["FilterInput"]


class FilterInput(Input, SizedByLayout):
    """An Input of fixed size that repaints itself, not the screen's layout, as it is typed in."""
