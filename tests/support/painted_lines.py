"""A mixin for a line-API widget in a test: it records the lines Textual asks it to paint."""

from __future__ import annotations

from typing import Any

from textual.strip import Strip


class PaintedLines:
    """Mixed in before a widget class, records in ``painted`` each ``y`` Textual renders:
    after a refresh of some lines, only those (the dirty ones) are asked for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.painted: list[int] = []

    def render_line(self, y: int) -> Strip:
        self.painted.append(y)
        return super().render_line(y)  # type: ignore[misc]
