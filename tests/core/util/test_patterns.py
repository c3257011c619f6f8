"""``LazyPattern`` compiles its expression once, when first used."""

from __future__ import annotations

import re

import pytest

from orch_tui.core.util.patterns import LazyPattern


def test_a_pattern_is_compiled_on_its_first_use_and_only_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled: list[str] = []
    real_compile = re.compile

    def counted(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real_compile(pattern, flags)

    monkeypatch.setattr(re, "compile", counted)
    word = LazyPattern(r"^(\w+) (?P<rest>.*)$", re.I)
    assert compiled == []
    found = word.match("Hello there")
    assert found is not None and found.group("rest") == "there"
    assert word.findall("a b") == [("a", "b")]
    assert word.sub(r"\1", "x yz") == "x"
    assert word.match("") is None
    assert compiled == [r"^(\w+) (?P<rest>.*)$"]
    assert word.compiled.flags & re.I
