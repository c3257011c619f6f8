"""orch-tui's Textual themes and the diff colour variables every theme must provide.

The themes themselves are data, in ``themes.toml``. Widgets never hard-code colours: the diff
widget and the file list read the ``diff-*`` variables below through their CSS. Our themes set
every one of them; for any other theme (Textual's built-in ones, picked from the command
palette) the App falls back to :func:`theme_variable_defaults`, which derives them from that
theme's own palette::

    class OrchApp(App):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return theme_variable_defaults(self.current_theme)
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.color import Color
from textual.theme import Theme

from orch_tui.core.config.theme_names import DEFAULT_THEME

if TYPE_CHECKING:
    from textual.app import App

__all__ = [
    "DEFAULT_THEME",
    "DIFF_VARIABLES",
    "THEMES",
    "register_themes",
    "theme_variable_defaults",
]

DIFF_VARIABLES: dict[str, str] = {
    "diff-added-background": "background of an added line",
    "diff-removed-background": "background of a removed line",
    "diff-added-word": "background of the changed words inside an added line",
    "diff-removed-word": "background of the changed words inside a removed line",
    "diff-added-sign": "colour of '+', of added counts and of the A kind letter",
    "diff-removed-sign": "colour of '-', of removed counts and of the D kind letter",
    "diff-modified-sign": "colour of the M kind letter",
    "diff-line-number": "colour of line numbers",
    "diff-filler": "colour of the hatch on the empty side of a side-by-side row",
    "diff-fold": "text colour of a folded-region row",
    "diff-fold-background": "background of a folded-region row",
    "diff-gutter-accepted": "gutter mark of an accepted hunk",
    "diff-gutter-rejected": "gutter mark of a rejected hunk",
    "diff-gutter-undecided": "gutter mark of an undecided hunk",
    "diff-cursor": "gutter background of the hunk under the cursor",
}
"""Every diff variable, with what it colours (tests check each theme sets all of them)."""

# Fallbacks for a theme whose palette lacks a colour; they read well on dark and light.
_FALLBACK = {
    "success": "#2EA043",
    "error": "#F85149",
    "warning": "#D29922",
    "primary": "#388BFD",
    "foreground": "#8B949E",
}

_DERIVED: dict[str, tuple[str, float]] = {
    "diff-added-background": ("success", 0.15),
    "diff-removed-background": ("error", 0.15),
    "diff-added-word": ("success", 0.40),
    "diff-removed-word": ("error", 0.40),
    "diff-added-sign": ("success", 1.0),
    "diff-removed-sign": ("error", 1.0),
    "diff-modified-sign": ("warning", 1.0),
    "diff-line-number": ("foreground", 0.55),
    "diff-filler": ("foreground", 0.15),
    "diff-fold": ("foreground", 0.75),
    "diff-fold-background": ("primary", 0.10),
    "diff-gutter-accepted": ("success", 1.0),
    "diff-gutter-rejected": ("error", 1.0),
    "diff-gutter-undecided": ("warning", 1.0),
    "diff-cursor": ("primary", 0.35),
}
"""How a theme without diff variables gets each: (the palette colour it comes from, its alpha)."""


def _colour(value: str | None, fallback: str) -> Color:
    try:
        return Color.parse(value) if value else Color.parse(fallback)
    except Exception:  # a theme colour Textual itself could not parse: use ours
        return Color.parse(fallback)


def theme_variable_defaults(theme: Theme | None = None) -> dict[str, str]:
    """Diff variables for a theme that does not define them, from its own palette.

    With no theme, neutral values that read well on both dark and light backgrounds.
    """
    palette = {
        name: _colour(getattr(theme, name) if theme else None, fallback)
        for name, fallback in _FALLBACK.items()
    }
    return {
        variable: (palette[source] if alpha == 1.0 else palette[source].with_alpha(alpha)).hex
        for variable, (source, alpha) in _DERIVED.items()
    }


def _load_themes() -> dict[str, Theme]:
    """The themes in ``themes.toml`` (data, not code: one table of Theme fields per theme),
    read beside this module: ``importlib.resources`` (and the zipfile it loads) would be
    imported before the run's first frame for it."""
    text = Path(__file__).with_name(THEMES_FILE).read_text(encoding="utf-8")
    return {name: Theme(name=name, **fields) for name, fields in tomllib.loads(text).items()}


THEMES_FILE = "themes.toml"
THEMES: dict[str, Theme] = _load_themes()
"""By name; the names are also ``ThemeName`` (``ui.theme`` accepts only these)."""


def register_themes(app: App[Any]) -> None:
    """Register every orch-tui theme with a Textual App."""
    for theme in THEMES.values():
        app.register_theme(theme)
