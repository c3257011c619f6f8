"""``LazyPattern``: a regular expression compiled on its first use, not when its module loads.

``--auto`` imports the modules of a plan, a question, a patch prompt's pytest output and a JUnit
report before its first model request, and uses their patterns only after it, if at all; their
compiling was part of its fixed start (issue 26, item 6). ``re``'s own cache is not a substitute:
looking a pattern up in it on every call costs more than this object's attribute.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """``re.compile(pattern, flags)`` when first matched; the methods the project calls."""

    __slots__ = ("_compiled", "_source")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(*self._source)
        return self._compiled

    def match(self, text: str) -> re.Match[str] | None:
        return self.compiled.match(text)

    def findall(self, text: str) -> list[Any]:
        return self.compiled.findall(text)

    def sub(self, replacement: str, text: str) -> str:
        return self.compiled.sub(replacement, text)
