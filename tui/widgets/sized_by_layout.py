"""SizedByLayout: a widget whose content's size never lays the screen out.

Textual's ``virtual_size`` (how much a widget holds, which its scrolling reads) is a layout
reactive: every change lays the whole screen out again and repaints every widget on it. That
is right for a widget sized ``auto``, whose place on the screen follows what it holds, and
wasted on one whose size the layout gives it (a fixed height, ``1fr``): an input's text
growing, a log's line written, a timeline's note. Those were most of a filter keystroke over
the history's 100,000 runs, and layouts between the engine's events at a 200-file proposal.
Here a change of ``virtual_size`` repaints the widget only; one whose scrollbars follow what
it holds updates them itself (Textual's ``_scroll_update``), and a scrollbar that comes or
goes still lays the screen out.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget

__all__ = ["SizedByLayout"]


class SizedByLayout(Widget):
    """Mixed in after a widget class whose size never depends on its content (after: Textual
    inherits styles and component classes from the first base class only)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
