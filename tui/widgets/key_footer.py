"""Textual's Footer, rebuilt at most once per batch of binding changes, fitted to its width."""

from __future__ import annotations

import asyncio
from collections.abc import Collection

from textual.app import ComposeResult
from textual.events import Resize
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """Textual's ``Footer``, rebuilding its keys once for all the changes of one refresh, and
    showing only the keys that fit.

    Textual's Footer rebuilds every key widget for each binding change it is told of, and a
    screen that opens, takes focus and lays itself out tells it several in its first frames:
    five on the review screen's launch, about 60 key widgets built and styled while the
    engine's proposal waited. A change told while a rebuild is queued is read by that rebuild.

    A footer wider than the terminal cuts its last keys off, half a key at a time: at 80
    columns the review screen lost Quit, Help and History to a stray ``e Ed``. Here the keys
    whose actions are in ``kept`` always show, and the others are dropped longest first until
    the rest fits; every key still works, and ``?`` lists them all.

    Textual's Footer shows no key before the screen first tells it its bindings, after the
    screen's first refresh: its keys come two refreshes after the rest of the screen. With
    ``at_once`` the keys are built with the footer, in the screen's first frame (the run's
    loading frame, painted before anything else loads).
    """

    _rebuild_queued = False
    _built_for: object = None
    """What the keys shown were built from (:meth:`_bindings_shown`)."""

    def __init__(
        self, *, kept: Collection[str] = (), compact: bool = False, at_once: bool = False
    ) -> None:
        super().__init__(compact=compact)
        self._kept = frozenset(kept)
        if at_once:
            self.set_reactive(Footer._bindings_ready, True)

    def compose(self) -> ComposeResult:
        # What the keys are built from: the screen's telling of its bindings after its first
        # refresh rebuilt the same keys of a footer built at once (the launch's frame).
        self._built_for = self._bindings_shown()
        # Each key gets its compact class as it is made: set by its watcher once mounted, it
        # styled every key a second time before the screen's first layout.
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._rebuild_queued:
            return
        super().bindings_changed(screen)  # queues a rebuild after the next refresh, or not
        self._rebuild_queued = bool(
            screen.app.app_focus and self.is_attached and screen is self.screen
        )

    async def build_keys(self) -> None:
        """Build the keys now, for the bindings the screen has now: a screen that focuses its
        main widget as it mounts calls this then, so its first layout has the footer it keeps
        (built before, its keys lack the focused widget's, and the rebuild lays the screen
        out once more)."""
        built = asyncio.Event()

        async def build() -> None:  # on the footer's own message pump, as its compose needs
            self.set_reactive(Footer._bindings_ready, True)
            await self.recompose()
            built.set()

        self.call_next(build)
        await built.wait()

    async def recompose(self) -> None:
        self._rebuild_queued = False
        shown = self._bindings_shown()
        if shown is not None and shown == self._built_for:
            return  # told of a change that left the keys as they are: nothing to rebuild
        self._built_for = shown
        await super().recompose()
        self.fit_keys()

    def _bindings_shown(self) -> object:
        """What the footer's keys are built from (None before the screen told it): a focus
        move or the screen's own settling tells the footer of a change, and the review
        screen's opening told it twice more after its keys were built, each rebuild ~40 ms
        of CPU before the first diff of a big proposal."""
        if not (self._bindings_ready and self.is_attached):  # a rebuild due as its screen went
            return None
        active = self.screen.active_bindings.values()
        keys = tuple((binding, enabled, tooltip) for _, binding, enabled, tooltip in active)
        return keys, self.compact, self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE

    def on_resize(self, event: Resize) -> None:
        self.fit_keys()

    def fit_keys(self) -> None:
        """Show the kept keys, then as many others as fit, dropping the longest first."""
        keys = list(self.query(FooterKey))
        # Before its first layout (keys built as the screen mounts) the footer has no size yet:
        # it spans the screen, so the first frame already shows the keys that fit.
        room = self.size.width or self.app.size.width
        if not keys or room == 0:
            return
        widths = {key: _natural_width(key) for key in keys}
        optional = sorted((k for k in keys if k.action not in self._kept), key=widths.__getitem__)
        shown = set(keys) - set(optional)
        room -= sum(widths[key] for key in shown)
        for key in optional:  # shortest first: the longest are the first dropped
            if widths[key] <= room:
                shown.add(key)
                room -= widths[key]
        for key in keys:
            key.display = key in shown


def _natural_width(key: FooterKey) -> int:
    """The columns ``key`` takes when shown: its text, padding, border and margins."""
    unbounded = Size(10_000, 1)
    content = key.get_content_width(unbounded, unbounded)
    return content + key.styles.gutter.width + key.styles.margin.width
