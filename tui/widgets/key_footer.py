"""Textual's Footer, rebuilt at most once per batch of binding changes."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """Textual's ``Footer``, rebuilding its keys once for all the changes of one refresh.

    Textual's Footer rebuilds every key widget for each binding change it is told of, and a
    screen that opens, takes focus and lays itself out tells it several in its first frames:
    five on the review screen's launch, about 60 key widgets built and styled while the
    engine's proposal waited. A change told while a rebuild is queued is read by that rebuild.
    """

    _rebuild_queued = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._rebuild_queued:
            return
        super().bindings_changed(screen)  # queues a rebuild after the next refresh, or not
        self._rebuild_queued = bool(
            screen.app.app_focus and self.is_attached and screen is self.screen
        )

    async def recompose(self) -> None:
        self._rebuild_queued = False
        await super().recompose()
