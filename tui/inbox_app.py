"""``orch-tui inbox``'s Textual app: the list of waiting batch runs and the review of one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import App

from orch_tui.core.batch.inbox import InboxEntry
from orch_tui.core.batch.landing import Target
from orch_tui.core.config.models import Config
from orch_tui.themes import register_themes, theme_variable_defaults
from orch_tui.tui.screens.inbox.runs import InboxScreen


class InboxApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "orch-tui inbox"

    def __init__(
        self, root: Path, config: Config, target_for: Callable[[InboxEntry], Target]
    ) -> None:
        super().__init__()
        self.root = root
        self.config = config
        self.target_for = target_for
        register_themes(self)
        self.theme = config.ui.theme
        self.set_keymap(config.ui.keymap)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Diff colours for a theme that lacks them (Textual's own), from its palette."""
        try:
            theme = self.current_theme
        except Exception:  # noqa: BLE001 - asked before the theme is set: neutral colours
            theme = None
        return theme_variable_defaults(theme)

    def on_mount(self) -> None:
        self.push_screen(InboxScreen(self.root, self.config, self.target_for))
