"""KeyFooter: Textual's Footer, rebuilt once for all the binding changes of one refresh, and
at a narrow width keeping its kept keys and dropping others whole, longest first."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

from orch_tui.tui.widgets.key_footer import KeyFooter

pytestmark = pytest.mark.anyio


class TwoInputs(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "noop", "Always"),
        Binding("f3", "sometimes", "Sometimes"),
    ]
    offered = True
    """Whether ``f3`` is offered: a change of the keys the footer shows."""

    def compose(self) -> ComposeResult:
        yield Input(id="one")
        yield Input(id="two")
        yield KeyFooter()

    def action_noop(self) -> None:
        pass

    def action_sometimes(self) -> None:
        pass

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return True if self.offered or action != "sometimes" else None  # None: shown greyed


async def settled(pilot: Any, app: App[None], rebuilds: list[Footer]) -> None:
    """The launch's own rebuilds (on a slow machine they land after one pause)."""
    for _ in range(50):
        seen = len(rebuilds)
        await pilot.pause()
        await pilot.pause()
        if app.query(FooterKey) and len(rebuilds) == seen:
            return


async def test_binding_changes_in_one_go_rebuild_the_footer_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rebuilds: list[Footer] = []
    rebuild = Footer.recompose

    async def counted(footer: Footer) -> None:
        rebuilds.append(footer)
        await rebuild(footer)

    monkeypatch.setattr(Footer, "recompose", counted)
    app = TwoInputs()
    async with app.run_test() as pilot:
        await settled(pilot, app, rebuilds)
        rebuilds.clear()

        app.offered = False
        for _ in range(3):  # as a screen's opening, focus and layout do within one refresh
            app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()

        assert len(rebuilds) == 1
        keys = [key.description for key in app.query(FooterKey)]
        assert "Always" in keys and "Sometimes" in keys

        app.offered = True  # a later change is not lost: it rebuilds again
        app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert len(rebuilds) >= 2


async def test_a_change_that_leaves_the_keys_as_they_are_rebuilds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A focus move between widgets with the same keys, or the screen settling, tells the
    footer of a change: the review screen's opening rebuilt its keys twice more that way."""
    built: list[FooterKey] = []
    compose = KeyFooter.compose

    def counted(footer: KeyFooter) -> Any:
        for widget in compose(footer):
            built.append(widget)
            yield widget

    monkeypatch.setattr(KeyFooter, "compose", counted)
    app = TwoInputs()
    async with app.run_test() as pilot:
        await settled(pilot, app, [])
        await pilot.pause(0.2)
        built.clear()
        app.query_one("#two", Input).focus()
        app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert built == []
        assert [key.description for key in app.query(FooterKey)][:2] == ["Always", "Sometimes"]


class ManyKeys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "noop('a')", "A rather long description of a key"),
        Binding("y", "noop('y')", "Accept"),
        Binding("n", "noop('n')", "Reject"),
        Binding("r", "noop('r')", "Another long-winded hint"),
        Binding("e", "noop('e')", "Edit"),
        Binding("question_mark", "noop('help')", "Help"),
        Binding("q", "noop('quit')", "Quit"),
    ]
    pressed: ClassVar[list[str]] = []

    def compose(self) -> ComposeResult:
        yield KeyFooter(kept=("noop('help')", "noop('quit')"), compact=True)

    def action_noop(self, name: str) -> None:
        self.pressed.append(name)


def shown(app: App[None]) -> dict[str, tuple[int, int]]:
    """Each shown key's description -> (first column, width)."""
    return {
        key.description: (key.region.x, key.region.width)
        for key in app.query(FooterKey)
        if key.display
    }


@pytest.mark.parametrize("width", [40, 60, 80, 120])
async def test_kept_keys_show_and_every_shown_key_fits_whole(width: int) -> None:
    app = ManyKeys()
    async with app.run_test(size=(width, 5)) as pilot:
        await pilot.pause()
        keys = shown(app)
        assert {"Help", "Quit"} <= set(keys)
        assert all(x + w <= width for x, w in keys.values()), keys


async def test_the_longest_hints_are_dropped_first_and_still_work() -> None:
    app = ManyKeys()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        keys = shown(app)
        assert "A rather long description of a key" not in keys
        assert {"Accept", "Reject", "Edit"} <= set(keys)
        await pilot.press("a")
        assert app.pressed == ["a"]  # dropped from the footer, never from the keys


async def test_a_wide_terminal_shows_every_key_and_a_narrower_one_after_a_resize_drops() -> None:
    app = ManyKeys()
    async with app.run_test(size=(160, 5)) as pilot:
        await pilot.pause()
        assert len(shown(app)) == len(ManyKeys.BINDINGS) + 1  # and the palette key
        await pilot.resize_terminal(50, 5)
        await pilot.pause()
        assert len(shown(app)) < len(ManyKeys.BINDINGS)
        assert {"Help", "Quit"} <= set(shown(app))
