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
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from textual.color import Color
from textual.theme import Theme

from orch_tui.core.config import ThemeName, UiConfig

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


def _colour(value: str | None, fallback: str) -> Color:
    try:
        return Color.parse(value) if value else Color.parse(fallback)
    except Exception:  # a theme colour Textual itself could not parse: use ours
        return Color.parse(fallback)


def theme_variable_defaults(theme: Theme | None = None) -> dict[str, str]:
    """Diff variables for a theme that does not define them, from its own palette.

    With no theme, neutral values that read well on both dark and light backgrounds.
    """
    success = _colour(theme.success if theme else None, _FALLBACK["success"])
    error = _colour(theme.error if theme else None, _FALLBACK["error"])
    warning = _colour(theme.warning if theme else None, _FALLBACK["warning"])
    primary = _colour(theme.primary if theme else None, _FALLBACK["primary"])
    foreground = _colour(theme.foreground if theme else None, _FALLBACK["foreground"])
    return {
        "diff-added-background": success.with_alpha(0.15).hex,
        "diff-removed-background": error.with_alpha(0.15).hex,
        "diff-added-word": success.with_alpha(0.40).hex,
        "diff-removed-word": error.with_alpha(0.40).hex,
        "diff-added-sign": success.hex,
        "diff-removed-sign": error.hex,
        "diff-modified-sign": warning.hex,
        "diff-line-number": foreground.with_alpha(0.55).hex,
        "diff-filler": foreground.with_alpha(0.15).hex,
        "diff-fold": foreground.with_alpha(0.75).hex,
        "diff-fold-background": primary.with_alpha(0.10).hex,
        "diff-gutter-accepted": success.hex,
        "diff-gutter-rejected": error.hex,
        "diff-gutter-undecided": warning.hex,
        "diff-cursor": primary.with_alpha(0.35).hex,
    }


def _load_themes() -> dict[str, Theme]:
    """The themes in ``themes.toml`` (data, not code: one table of Theme fields per theme)."""
    text = files(__package__).joinpath(THEMES_FILE).read_text(encoding="utf-8")
    return {name: Theme(name=name, **fields) for name, fields in tomllib.loads(text).items()}


THEMES_FILE = "themes.toml"
THEMES: dict[str, Theme] = _load_themes()
"""By name; the names are also config's ``ThemeName`` (``ui.theme`` accepts only these)."""
DEFAULT_THEME: ThemeName = UiConfig().theme


def register_themes(app: App[Any]) -> None:
    """Register every orch-tui theme with a Textual App."""
    for theme in THEMES.values():
        app.register_theme(theme)
