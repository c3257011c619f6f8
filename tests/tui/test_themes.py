"""Themes: every diff variable defined everywhere, built-in Textual themes covered, contrast."""

from __future__ import annotations

from typing import get_args

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from orch_tui.core.config.theme_names import ThemeName
from orch_tui.core.domain.proposal import FileChange
from orch_tui.themes import (
    DEFAULT_THEME,
    DIFF_VARIABLES,
    THEMES,
    register_themes,
    theme_variable_defaults,
)
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.file_list import FileList


def test_the_default_and_the_three_themes_exist() -> None:
    assert DEFAULT_THEME == "vscode-dark"
    assert set(THEMES) == {"vscode-dark", "vscode-light", "high-contrast"}
    assert THEMES["vscode-dark"].dark and not THEMES["vscode-light"].dark
    assert THEMES["high-contrast"].text_alpha == 1.0


def test_ui_theme_accepts_exactly_the_themes_there_are() -> None:
    """config's ThemeName (what ui.theme validates against) and themes.toml name the same set."""
    assert set(get_args(ThemeName)) == set(THEMES)


@pytest.mark.parametrize("name", sorted(THEMES))
def test_every_theme_defines_every_diff_variable_as_a_colour(name: str) -> None:
    variables = THEMES[name].variables
    assert set(DIFF_VARIABLES) <= set(variables)
    for key in DIFF_VARIABLES:
        Color.parse(variables[key])


@pytest.mark.parametrize("name", sorted(BUILTIN_THEMES))
def test_defaults_cover_every_builtin_theme(name: str) -> None:
    defaults = theme_variable_defaults(BUILTIN_THEMES[name])
    assert set(defaults) == set(DIFF_VARIABLES)
    for value in defaults.values():
        Color.parse(value)


def test_defaults_without_a_theme_are_colours() -> None:
    defaults = theme_variable_defaults()
    assert set(defaults) == set(DIFF_VARIABLES)
    assert all(Color.parse(value) for value in defaults.values())


def contrast(foreground: Color, background: Color) -> float:
    """WCAG 2 contrast ratio."""

    def luminance(color: Color) -> float:
        def channel(value: int) -> float:
            c = value / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)

    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


@pytest.mark.parametrize(
    ("name", "minimum"), [("high-contrast", 7.0), ("vscode-dark", 4.5), ("vscode-light", 4.5)]
)
def test_text_on_diff_backgrounds_is_readable(name: str, minimum: float) -> None:
    theme = THEMES[name]
    assert theme.background and theme.foreground
    base = Color.parse(theme.background)
    text = Color.parse(theme.foreground)
    for line, word in (
        ("diff-added-background", "diff-added-word"),
        ("diff-removed-background", "diff-removed-word"),
    ):
        line_bg = base + Color.parse(theme.variables[line])
        word_bg = line_bg + Color.parse(theme.variables[word])
        assert contrast(text, line_bg) >= minimum, line
        assert contrast(text, word_bg) >= minimum, word


class ThemedApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield FileList()
        yield DiffView()

    def on_mount(self) -> None:
        register_themes(self)
        self.query_one(DiffView).show(FileChange("a.py", "x = 1\n", "x = 2\n"), [])


@pytest.mark.anyio
async def test_widgets_render_under_every_registered_theme() -> None:
    app = ThemedApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(DiffView)
        names = sorted(app.available_themes)
        assert set(THEMES) <= set(names)
        backgrounds = set()
        for name in names:
            app.theme = name
            await pilot.pause()
            strip = view.render_line(0)
            assert "x = 1" in strip.text and "x = 2" in strip.text
            removed = view.get_component_styles("diff-view--removed").background
            backgrounds.add(removed.hex)
        assert len(backgrounds) > 3  # the colours really follow each theme
