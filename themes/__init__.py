"""orch-tui's Textual themes and the diff colour variables every theme must provide.

Widgets never hard-code colours: the diff widget and the file list read the ``diff-*``
variables below through their CSS. Our themes set every one of them; for any other theme
(Textual's built-in ones, picked from the command palette) the App falls back to
:func:`theme_variable_defaults`, which derives them from that theme's own palette::

    class OrchApp(App):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return theme_variable_defaults(self.current_theme)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.color import Color
from textual.theme import Theme

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


VSCODE_DARK = Theme(
    name="vscode-dark",
    primary="#0078D4",
    secondary="#3794FF",
    accent="#4DAAFC",
    warning="#CCA700",
    error="#F14C4C",
    success="#89D185",
    foreground="#CCCCCC",
    background="#1F1F1F",
    surface="#181818",
    panel="#2B2B2B",
    dark=True,
    variables={
        "diff-added-background": "#2EA04326",
        "diff-removed-background": "#F8514926",
        "diff-added-word": "#2EA04366",
        "diff-removed-word": "#F8514966",
        "diff-added-sign": "#3FB950",
        "diff-removed-sign": "#F85149",
        "diff-modified-sign": "#D29922",
        "diff-line-number": "#6E7681",
        "diff-filler": "#FFFFFF14",
        "diff-fold": "#8B949E",
        "diff-fold-background": "#388BFD1A",
        "diff-gutter-accepted": "#3FB950",
        "diff-gutter-rejected": "#F85149",
        "diff-gutter-undecided": "#D29922",
        "diff-cursor": "#388BFD59",
    },
)

VSCODE_LIGHT = Theme(
    name="vscode-light",
    primary="#005FB8",
    secondary="#0069D1",
    accent="#005FB8",
    warning="#BF8803",
    error="#E51400",
    success="#388A34",
    foreground="#3B3B3B",
    background="#FFFFFF",
    surface="#F8F8F8",
    panel="#E5E5E5",
    dark=False,
    variables={
        "diff-added-background": "#E6FFEC",
        "diff-removed-background": "#FFEBE9",
        "diff-added-word": "#ABF2BC",
        "diff-removed-word": "#FFC1C0",
        "diff-added-sign": "#1A7F37",
        "diff-removed-sign": "#CF222E",
        "diff-modified-sign": "#9A6700",
        "diff-line-number": "#6E7781",
        "diff-filler": "#0000001A",
        "diff-fold": "#57606A",
        "diff-fold-background": "#DDF4FF",
        "diff-gutter-accepted": "#1A7F37",
        "diff-gutter-rejected": "#CF222E",
        "diff-gutter-undecided": "#9A6700",
        "diff-cursor": "#0969DA33",
    },
)

HIGH_CONTRAST = Theme(
    name="high-contrast",
    primary="#6FC3DF",
    secondary="#FFFFFF",
    accent="#F38518",
    warning="#FFD700",
    error="#FF6E6E",
    success="#5FFF5F",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1A1A1A",
    boost="#FFFFFF1F",
    dark=True,
    text_alpha=1.0,
    variables={
        # Opaque, dark line backgrounds keep white text above 7:1; '+'/'-' signs and the
        # gutter symbols carry the meaning without colour.
        "diff-added-background": "#003800",
        "diff-removed-background": "#4A0000",
        "diff-added-word": "#005C00",
        "diff-removed-word": "#8F0000",
        "diff-added-sign": "#5FFF5F",
        "diff-removed-sign": "#FF6E6E",
        "diff-modified-sign": "#FFD700",
        "diff-line-number": "#D0D0D0",
        "diff-filler": "#6A6A6A",
        "diff-fold": "#6FC3DF",
        "diff-fold-background": "#001F2E",
        "diff-gutter-accepted": "#5FFF5F",
        "diff-gutter-rejected": "#FF6E6E",
        "diff-gutter-undecided": "#FFD700",
        "diff-cursor": "#00508F",
    },
)

THEMES: dict[str, Theme] = {
    theme.name: theme for theme in (VSCODE_DARK, VSCODE_LIGHT, HIGH_CONTRAST)
}
DEFAULT_THEME = "vscode-dark"


def register_themes(app: App[Any]) -> None:
    """Register every orch-tui theme with a Textual App."""
    for theme in THEMES.values():
        app.register_theme(theme)
