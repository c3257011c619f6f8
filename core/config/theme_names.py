"""The theme names ``ui.theme`` accepts, and the default one.

``themes/themes.toml`` defines the themes (a test keeps the two the same). Kept apart from
``config`` so the themes, and a diff view on its own, load without pydantic.
"""

from __future__ import annotations

from typing import Literal

ThemeName = Literal["vscode-dark", "vscode-light", "high-contrast"]

DEFAULT_THEME: ThemeName = "vscode-dark"
