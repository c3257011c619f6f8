"""The base of orch-tui's Textual apps: its themes registered, and the diff colours a theme
lacks (Textual's own themes) derived from that theme's palette."""

from __future__ import annotations

from typing import TypeVar

from textual.app import App

from orch_tui.themes import register_themes, theme_variable_defaults

ReturnType = TypeVar("ReturnType")


class ThemedApp(App[ReturnType]):
    def __init__(self) -> None:
        super().__init__()
        register_themes(self)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Diff colours for a theme that lacks them (Textual's own), from its palette."""
        try:
            theme = self.current_theme
        except Exception:  # noqa: BLE001 - asked before the theme is set: neutral colours
            theme = None
        return theme_variable_defaults(theme)
