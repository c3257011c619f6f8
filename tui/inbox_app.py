"""``orch-tui inbox``'s Textual app: the list of waiting batch runs and the review of one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from orch_tui.core.batch.inbox import InboxEntry
from orch_tui.core.batch.landing import Target
from orch_tui.core.config.models import Config
from orch_tui.tui.screens.inbox.runs import InboxScreen
from orch_tui.tui.themed_app import ThemedApp


class InboxApp(ThemedApp[None]):
    CSS_PATH = "app.tcss"
    TITLE = "orch-tui inbox"

    def __init__(
        self, root: Path, config: Config, target_for: Callable[[InboxEntry], Target]
    ) -> None:
        super().__init__()
        self.root = root
        self.config = config
        self.target_for = target_for
        self.theme = config.ui.theme
        self.set_keymap(config.ui.keymap)

    def on_mount(self) -> None:
        self.push_screen(InboxScreen(self.root, self.config, self.target_for))
