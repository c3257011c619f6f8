"""KeyFooter: Textual's Footer, rebuilt once for all the binding changes of one refresh."""

from __future__ import annotations

from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

from orch_tui.tui.widgets.key_footer import KeyFooter

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class TwoInputs(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f2", "noop", "Always")]

    def compose(self) -> ComposeResult:
        yield Input(id="one")
        yield Input(id="two")
        yield KeyFooter()

    def action_noop(self) -> None:
        pass


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
        # the launch's own rebuilds first (on a slow machine they land after one pause)
        for _ in range(50):
            seen = len(rebuilds)
            await pilot.pause()
            await pilot.pause()
            if app.query(FooterKey) and len(rebuilds) == seen:
                break
        rebuilds.clear()

        for _ in range(3):  # as a screen's opening, focus and layout do within one refresh
            app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()

        assert len(rebuilds) == 1
        keys = [key.description for key in app.query(FooterKey)]
        assert "Always" in keys

        app.query_one("#two", Input).focus()  # a later change is not lost: it rebuilds again
        await pilot.pause()
        await pilot.pause()
        assert len(rebuilds) >= 2
