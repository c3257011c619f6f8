"""What the diff view computed for one file, kept while the reviewer moves between files."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.cache import LRUCache
from textual.highlight import HighlightTheme
from textual.strip import Strip

from orch_tui.core.workspace.test_guard import weakening_hunks
from orch_tui.tui.widgets.diff.highlight import LineHighlighter
from orch_tui.tui.widgets.diff.rows import Ranges

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

FILES_KEPT = 8
"""Files whose highlighting and styled lines stay cached, so going back to one redoes nothing."""


@dataclass(eq=False)
class FileCache:
    """What the widget computed for one file: kept while the reviewer moves between files."""

    change: FileChange
    highlighters: tuple[LineHighlighter, LineHighlighter]
    weakening: set[int]
    number_width: int
    longest_line: int
    words: LRUCache[tuple[int, int], tuple[Ranges, Ranges]] = field(
        default_factory=lambda: LRUCache(4096)
    )
    texts: LRUCache[tuple[Any, ...], Strip] = field(default_factory=lambda: LRUCache(4096))
    """Each line's styled text, uncropped: a horizontal scroll only crops it again."""

    @classmethod
    def of(cls, change: FileChange) -> FileCache:
        lines = (*change.old_lines, *change.new_lines)
        return cls(
            change,
            (
                LineHighlighter(change.path, change.old_lines, _token_style),
                LineHighlighter(change.path, change.new_lines, _token_style),
            ),
            weakening_hunks(change),
            len(str(max(len(change.old_lines), len(change.new_lines), 1))),
            max((len(line) + 3 * line.count("\t") for line in lines), default=0),
        )


def cached_file(files: dict[int, FileCache], change: FileChange) -> FileCache:
    """The caches of ``change`` in ``files`` (by ``id`` of the FileChange, least recent first),
    made the first time it is shown and moved to the end; only the last FILES_KEPT stay."""
    cache = files.pop(id(change), None)
    if cache is None or cache.change is not change:
        cache = FileCache.of(change)
    files[id(change)] = cache
    while len(files) > FILES_KEPT:
        del files[next(iter(files))]
    return cache


def _token_style(token_type: Any) -> str | None:
    """The style Textual's highlight theme gives a Pygments token (walking up its parents)."""
    styles = HighlightTheme.STYLES
    while token_type is not None:
        style = styles.get(token_type)
        if style is not None:
            return style or None
        token_type = token_type.parent
    return None
